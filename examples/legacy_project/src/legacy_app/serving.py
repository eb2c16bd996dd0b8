"""Export the model for the C++ inference server, which reads TorchScript archives with `torch::jit::load`."""

import torch

from legacy_app.torchscript import TinyConv


def export_for_cpp_server(path: str) -> None:
    model = TinyConv().eval()
    traced = torch.jit.trace(model, torch.randn(1, 2, 5))
    traced.save(path)  # the server's contract: a TorchScript archive
