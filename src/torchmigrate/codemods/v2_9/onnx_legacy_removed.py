"""`torch.onnx.enable_fake_mode`, `is_onnxrt_backend_supported` and `torch.compile(backend="onnxrt")` are gone in PyTorch 2.9.

## What it does
Reports (no edit) uses of `torch.onnx.enable_fake_mode` and `torch.onnx.is_onnxrt_backend_supported` (any import
form), and `torch.compile(..., backend="onnxrt")` calls.

## Why
They belonged to the `dynamo_export` stack that 2.9 removed (pytorch/pytorch#158130): the 2.8 wheel's
`torch/onnx/__init__.py` exports `enable_fake_mode` and `is_onnxrt_backend_supported` and
`torch/_dynamo/backends/onnxrt.py` registers the `onnxrt` backend; in the 2.9 wheel the names are gone and the
registration is commented out. On torch 2.13 the attributes raise `AttributeError` and the backend is unknown
(`InvalidBackend`).

## Fix safety
Finding only. Export with `torch.onnx.export(model, args, dynamo=True)` (fake-mode export has no direct replacement:
export from a model on the `meta` device, or load the weights after export) and run the `.onnx` file with
onnxruntime; for `torch.compile`, use the default `inductor` backend.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import PassTransformer

GONE = {
    "torch.onnx.enable_fake_mode": "torch.onnx.enable_fake_mode was removed in 2.9 with dynamo_export: export with torch.onnx.export(model, args, dynamo=True) (no fake-mode option: export a meta-device model, or load weights after export)",
    "torch.onnx.is_onnxrt_backend_supported": "torch.onnx.is_onnxrt_backend_supported was removed in 2.9 with the onnxrt torch.compile backend",
}
ONNXRT = "torch.compile(backend=\"onnxrt\"): the onnxrt backend was removed in 2.9; use the default inductor backend, or export with torch.onnx.export(..., dynamo=True) and run the model with onnxruntime"

PASS = Pass(
    id="onnx-legacy-removed",
    since="1.8",
    release="2.9",
    kind=REMOVAL,
    safety=SAFE,
    title='torch.onnx.enable_fake_mode / is_onnxrt_backend_supported / compile(backend="onnxrt") removed in 2.9 (finding)',
    evidence=(
        "pytorch/pytorch#158130 (PyTorch 2.9 removed dynamo_export); 2.8 vs 2.9 wheels: torch/onnx/__init__.py, torch/_dynamo/backends/onnxrt.py"
        "; finding only: emits no new form"
    ),
    triggers=("enable_fake_mode", "onnxrt"),
    examples=[
        Example(
            before="""
                import torch

                with torch.onnx.enable_fake_mode() as ctx:
                    model = Net()
            """,
            findings=1,
        ),
        Example(
            title="compile backend and the support check",
            before="""
                import torch
                from torch.onnx import is_onnxrt_backend_supported

                if is_onnxrt_backend_supported():
                    fn = torch.compile(fn, backend="onnxrt")
            """,
            findings=2,
        ),
        Example(
            title="look-alikes: another backend, a string elsewhere",
            before="""
                import torch

                fn = torch.compile(fn, backend="inductor")
                name = "onnxrt"
            """,
        ),
    ],
)


@PASS.uses
class OnnxLegacy(PassTransformer):
    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False  # the uses are reported, not the import

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        message = GONE.get(self.qualname(node) or "")
        if message is not None:
            self.finding(node, message)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        message = GONE.get(self.qualname(node) or "")
        if message is not None:
            self.finding(node, message)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) != "torch.compile":
            return
        backend = kwarg(node, "backend")
        if backend is not None and isinstance(backend.value, cst.SimpleString) and backend.value.evaluated_value == "onnxrt":
            self.finding(node, ONNXRT)
