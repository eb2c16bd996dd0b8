"""A training loop in the style of PyTorch 2.0–2.3: mixed precision, activation checkpointing, resuming from disk."""

import functools

import torch
import torch.nn as nn
from torch.cuda import amp
from torch.utils.checkpoint import checkpoint as ckpt


class Block(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.lin(x))


class Net(nn.Module):
    def __init__(self, width: int = 8, depth: int = 2) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        for block in self.blocks:
            x = ckpt(block, x)
        return self.head(x)


def train_step(model, optimizer, scaler, x, y, device_type="cpu"):
    if device_type == "cuda":
        context = amp.autocast(True, torch.float16)
    else:
        context = torch.cpu.amp.autocast(dtype=torch.bfloat16)
    with context:
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


def make_scaler(use_cuda: bool):
    return torch.cuda.amp.GradScaler(enabled=use_cuda)


def make_scheduler(optimizer):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5, verbose=False)


def restore(model, path):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state)
    return model


def resume(path):
    # A full checkpoint (epoch, optimizer state, ...): torchmigrate reports this one instead of guessing.
    return torch.load(path)


load_on_cpu = functools.partial(torch.load, map_location="cpu")
