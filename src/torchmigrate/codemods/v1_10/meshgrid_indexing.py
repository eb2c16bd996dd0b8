"""`torch.meshgrid` without `indexing=` warns since PyTorch 1.10: pass `indexing="ij"`, its default.

## What it does
Adds `indexing="ij"` to `torch.meshgrid(a, b)`, `torch.meshgrid([a, b])` and `torch.meshgrid(*tensors)` calls that
do not pass `indexing=`, in every import form (`import torch as th`, `from torch import meshgrid`). A call that
already passes `indexing=` is left alone; a call with `**kwargs` (which may hold `indexing`) gets a finding.

## Why
PyTorch 1.10 added the `indexing` parameter (`"ij"`, the old behaviour and still the default, or `"xy"`, NumPy's
default) and made calls without it warn `UserWarning: torch.meshgrid: in an upcoming release, it will be required to
pass the indexing argument.` (pytorch/pytorch#50276). On torch 2.13 `torch.functional._meshgrid` still forwards
`indexing` only when it is given, and `_VF.meshgrid` warns when it is not. Torchvision made the same edit
(pytorch/vision#4645).

## Fix safety
Safe: `"ij"` is what a call without `indexing=` computes, on every release that has the parameter (checked on
torch 2.13: the grids are `torch.equal`). The parameter does not exist before 1.10, so the edit is made only for code
that needs 1.10 or later (`since`). Do not "fix" the result to `"xy"`: that transposes the first two grids.
"""

from __future__ import annotations

import ast

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg, with_kwarg
from torchmigrate.python.transform import CallContext


def _needs_indexing(call: ast.Call) -> bool:
    return not any(k.arg == "indexing" for k in call.keywords)


PASS = Pass(
    id="meshgrid-indexing",
    release="1.10",
    since="1.10",
    kind=DEPRECATION,
    safety=SAFE,
    title='torch.meshgrid(a, b) → torch.meshgrid(a, b, indexing="ij")',
    evidence=(
        "PyTorch 1.10 (indexing= added, the call without it warns; pytorch/pytorch#50276); torch 2.13.0 "
        "torch/functional.py _meshgrid; pytorch/vision#4645 made the same edit; "
        "since 1.10: meshgrid(indexing=) (torch 1.10.2 wheel, torch/functional.py:333; absent from 1.9.0)"
    ),
    call_filter=_needs_indexing,
    examples=[
        Example(
            title="two vectors, and the list form",
            before="""
                import torch

                ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w))
                grid = torch.stack(torch.meshgrid([a, b]), dim=-1)
            """,
            after="""
                import torch

                ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
                grid = torch.stack(torch.meshgrid([a, b], indexing="ij"), dim=-1)
            """,
        ),
        Example(
            title="import torch as th; starred tensors; a call over several lines",
            before="""
                import torch as th

                grids = th.meshgrid(*coords)
                ref_y, ref_x = th.meshgrid(
                    th.linspace(0.5, h - 0.5, h),
                    th.linspace(0.5, w - 0.5, w),
                )
            """,
            after="""
                import torch as th

                grids = th.meshgrid(*coords, indexing="ij")
                ref_y, ref_x = th.meshgrid(
                    th.linspace(0.5, h - 0.5, h),
                    th.linspace(0.5, w - 0.5, w),
                    indexing="ij",
                )
            """,
        ),
        Example(
            title="from torch import meshgrid",
            before="""
                from torch import meshgrid

                i, j = meshgrid(rows, cols)
            """,
            after="""
                from torch import meshgrid

                i, j = meshgrid(rows, cols, indexing="ij")
            """,
        ),
        Example(
            title="**kwargs may hold indexing: finding",
            before="""
                import torch

                grids = torch.meshgrid(a, b, **options)
            """,
            findings=1,
        ),
        Unchanged(
            """
            import numpy as np
            import torch

            gx, gy = torch.meshgrid(a, b, indexing="xy")
            nx, ny = np.meshgrid(u, v)

            def meshgrid(*t):
                return t

            p = meshgrid(a, b)
            q = self._meshgrid(x, y)
            """,
            title="indexing already given; numpy, a function and a method of the same name",
        ),
    ],
)


@PASS.rewrites_calls("torch.meshgrid", "torch.functional.meshgrid")
def add_indexing(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if kwarg(call, "indexing") is not None:
        return None
    if any(a.star == "**" for a in call.args):
        ctx.finding('torch.meshgrid(..., **kwargs): pass indexing="ij" (the default) unless the keywords already hold it')
        return None
    ctx.message = 'torch.meshgrid: added indexing="ij" (the default, which 1.10+ warns about leaving implicit)'
    return with_kwarg(call, "indexing", cst.SimpleString('"ij"'))
