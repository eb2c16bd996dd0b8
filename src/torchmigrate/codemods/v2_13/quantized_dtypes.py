"""Quantized tensors (`torch.quint8`, `qint8`, `qint32`) are deprecated since PyTorch 2.13.

## What it does
Reports (no edit) calls of the functions that create quantized tensors — `torch.quantize_per_tensor`,
`torch.quantize_per_channel`, `torch.quantize_per_tensor_dynamic`, `torch._make_per_tensor_quantized_tensor`,
`torch._make_per_channel_quantized_tensor` — whatever the import form. (`torch.ao.quantization` itself is reported
by the `ao-quantization` pass.)

## Why
pytorch/pytorch#184984 (PyTorch 2.13) added a deprecation warning to quantized tensor creation, in C++ so that
every path is covered: `UserWarning: torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor
creation functions that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will
be removed in a future PyTorch release` (tracking issue pytorch/pytorch#184982; checked on torch 2.13).

## Fix safety
Finding only: the suggested path is plain dtypes (`torch.int8`, `torch.uint8`, `torch.float8_e4m3fn`) with the
scale and zero point kept by the model code — `q = torch.clamp(torch.round(x / scale) + zero_point, qmin,
qmax).to(torch.uint8)` and `(q.float() - zero_point) * scale` to dequantize — or torchao.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.transform import CallContext

CREATORS = (
    "torch.quantize_per_tensor",
    "torch.quantize_per_channel",
    "torch.quantize_per_tensor_dynamic",
    "torch._make_per_tensor_quantized_tensor",
    "torch._make_per_channel_quantized_tensor",
)

PASS = Pass(
    id="quantized-dtypes",
    since="1.8",
    release="2.13",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.quantize_per_tensor / quantize_per_channel (quantized dtypes) deprecated in 2.13 (finding)",
    evidence=(
        "pytorch/pytorch#184984 (PyTorch 2.13; tracking issue #184982); UserWarning checked on torch 2.13"
        "; finding only: emits no new form"
    ),
    examples=[
        Example(
            before="""
                import torch

                q = torch.quantize_per_tensor(x, 0.1, 10, torch.quint8)
            """,
            findings=1,
        ),
        Example(
            title="from-import",
            before="""
                from torch import quantize_per_channel

                q = quantize_per_channel(w, scales, zero_points, 0, torch.qint8)
            """,
            findings=1,
        ),
        Example(
            title="look-alike: dequantize and another library's quantize",
            before="""
                import torch
                from mylib import quantize_per_tensor

                y = torch.dequantize(q)
                z = quantize_per_tensor(x)
            """,
        ),
    ],
)


@PASS.rewrites_calls(*CREATORS)
def report(call: cst.Call, ctx: CallContext) -> None:
    ctx.finding(
        f"{ctx.qualname} creates a quantized tensor (torch.quint8/qint8/qint32), deprecated since 2.13 "
        "(pytorch/pytorch#184982): keep int8/uint8 data with the scale and zero point in your own code, or use torchao"
    )
    return None
