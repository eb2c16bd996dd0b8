"""`DataLoader(pin_memory_device=...)` is deprecated since PyTorch 2.9 and ignored: drop it.

## What it does
Removes the `pin_memory_device=` keyword from `torch.utils.data.DataLoader(...)` calls (however `DataLoader` was
imported). `pin_memory=` stays.

## Why
PyTorch 2.9 deprecated the parameter (release notes, pytorch/pytorch#158323): pinning moved into the loader iterator
and always targets the current accelerator. On torch 2.13 a loader built with `pin_memory=True,
pin_memory_device="cuda"` warns "pin_memory_device is deprecated, the current accelerator will be used as the
device, ignore pin_memory_device='cuda'" and pins for `torch.accelerator.current_accelerator()`.

## Fix safety
Safe: from 2.9 on the value is ignored, so dropping it changes nothing but the warning. If your code chose a device
other than the current accelerator, that choice was already lost in 2.9 (select the device with
`torch.accelerator.set_device_index` / `CUDA_VISIBLE_DEVICES` instead).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import fix_commas, kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="pin-memory-device",
    release="2.9",
    since="2.9",
    safety=SAFE,
    kind=DEPRECATION,
    title="DataLoader(..., pin_memory_device=...) → drop the ignored argument",
    evidence=(
        "PyTorch 2.9 release notes, Deprecations (pytorch/pytorch#158323); torch 2.13 warns and ignores it"
        "; since 2.9: from 2.9 the value is ignored (before, it chose the pinning device)"
    ),
    triggers=("pin_memory_device",),
    examples=[
        Example(
            before="""
                import torch

                loader = torch.utils.data.DataLoader(ds, batch_size=8, pin_memory=True, pin_memory_device="cuda")
            """,
            after="""
                import torch

                loader = torch.utils.data.DataLoader(ds, batch_size=8, pin_memory=True)
            """,
        ),
        Example(
            title="from-import, multi-line call",
            before="""
                from torch.utils.data import DataLoader

                loader = DataLoader(
                    ds,
                    pin_memory=True,
                    pin_memory_device=device,
                    num_workers=2,
                )
            """,
            after="""
                from torch.utils.data import DataLoader

                loader = DataLoader(
                    ds,
                    pin_memory=True,
                    num_workers=2,
                )
            """,
        ),
        Example(
            title="alias",
            before="""
                from torch.utils.data import DataLoader as DL

                loader = DL(ds, pin_memory_device="cuda:0")
            """,
            after="""
                from torch.utils.data import DataLoader as DL

                loader = DL(ds)
            """,
        ),
        Example(
            title="another library's DataLoader keeps its argument",
            before="""
                from mylib import DataLoader

                loader = DataLoader(ds, pin_memory_device="cuda")
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    dropped = kwarg(call, "pin_memory_device")
    if dropped is None:
        return None
    ctx.message = "DataLoader: dropped pin_memory_device= (ignored since 2.9)"
    return call.with_changes(args=fix_commas([a for a in call.args if a is not dropped]))
