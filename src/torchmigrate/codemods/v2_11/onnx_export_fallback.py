"""`torch.onnx.export(fallback=...)` was removed in PyTorch 2.11: drop the keyword.

## What it does
Removes `fallback=` from `torch.onnx.export(...)` calls. When its value was not a literal `False`, the edit comes with
a finding: with `fallback=True` a failing `dynamo=True` export used to retry with the TorchScript exporter; now it
raises, so choose one exporter (`dynamo=False` for the TorchScript one).

## Why
`fallback` existed from 2.5 to 2.10 ("Whether to fallback to the TorchScript exporter if the dynamo exporter fails",
2.10 wheel `torch/onnx/__init__.py`); 2.11 removed it (pytorch/pytorch#173189; its docstring: "``fallback`` option
has been removed"). On torch 2.13 passing it is a `TypeError`.

## Fix safety
Safe: the call cannot run on 2.11+ with the keyword, and without it a successful export is the same; only the retry
after a failure is gone, which the finding points out when it was switched on.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg, with_args
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="onnx-export-fallback",
    release="2.11",
    kind=REMOVAL,
    safety=SAFE,
    since="1.8",  # the call without the keyword works on every release
    title="torch.onnx.export(fallback=...) → drop fallback (removed in 2.11)",
    evidence=(
        "pytorch/pytorch#173189 (PyTorch 2.11); the 2.10 wheel has the parameter, the 2.11 wheel documents its removal; TypeError on torch 2.13"
        "; since 1.8: a torch.onnx.export call without fallback= runs on every release"
    ),
    triggers=("fallback",),
    call_filter=lambda call: any(k.arg in (None, "fallback") for k in call.keywords),
    examples=[
        Example(
            before="""
                import torch

                torch.onnx.export(model, (x,), "model.onnx", dynamo=True, fallback=False)
            """,
            after="""
                import torch

                torch.onnx.export(model, (x,), "model.onnx", dynamo=True)
            """,
        ),
        Example(
            title="fallback=True: dropped, and a finding (a failing export no longer retries)",
            before="""
                from torch.onnx import export

                export(
                    model,
                    (x,),
                    "m.onnx",
                    fallback=True,
                )
            """,
            after="""
                from torch.onnx import export

                export(
                    model,
                    (x,),
                    "m.onnx",
                )
            """,
            findings=1,
        ),
        Example(
            title="look-alike: another exporter's fallback",
            before="""
                import torch
                import mylib

                mylib.export(model, fallback=True)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.onnx.export")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    fallback = kwarg(call, "fallback")
    if fallback is None:
        return None
    value = fallback.value
    if not (isinstance(value, cst.Name) and value.value == "False"):
        ctx.finding(
            "onnx.export(fallback=...) was removed in 2.11: a failing dynamo export no longer retries with the "
            "TorchScript exporter; pass dynamo=False to use that exporter directly if the new one fails for this model"
        )
    ctx.message = "torch.onnx.export: fallback= dropped (removed in 2.11)"
    return with_args(call, [a for a in call.args if a is not fallback])
