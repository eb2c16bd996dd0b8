"""Export a small model for inference, the PyTorch 2.7 way."""

import torch
from torch.export import export_for_inference as efi


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.proj(x))


def export_default(model: torch.nn.Module, example: torch.Tensor):
    return efi(model, (example,))


def export_with_table(model: torch.nn.Module, example: torch.Tensor, table):
    return torch.export.export_for_inference(model, (example,), decomp_table=table)
