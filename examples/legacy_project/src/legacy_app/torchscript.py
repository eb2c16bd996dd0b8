"""Ship a small model as TorchScript: trace it, save it, load it back — the PyTorch 2.7 way."""

import torch


class TinyConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv1d(2, 4, kernel_size=3, padding=1)

    def forward(self, x):
        return scaled_tanh(self.conv(x)).mean(dim=-1)


@torch.jit.script
def scaled_tanh(x):
    return 1.7159 * torch.tanh(2.0 / 3.0 * x)


def save_traced(model: torch.nn.Module, example: torch.Tensor, path: str) -> None:
    traced = torch.jit.trace(model.eval(), example, check_trace=False)
    torch.jit.save(traced, path)


def load_traced(path: str):
    return torch.jit.load(path)


def trace_and_run(model: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
    fast = torch.jit.trace(model, (batch,))
    return fast(batch)
