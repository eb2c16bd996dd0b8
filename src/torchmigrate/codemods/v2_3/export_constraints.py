"""`torch.export.export(constraints=...)` and `torch.export.dynamic_dim` were removed in PyTorch 2.3: use `dynamic_shapes=`.

## What it does
Reports (no edit) `torch.export.export(..., constraints=...)` calls and every call of `torch.export.dynamic_dim(...)`
(any import form), with the `dynamic_shapes=` / `Dim` spelling to use.

## Why
2.3 replaced the constraints API with `dynamic_shapes` (pytorch/pytorch#120860): the 2.2 wheel's
`torch/export/__init__.py` still defines `dynamic_dim` and documents `export(fn, args, constraints=[dynamic_dim(t, 0)])`,
the 2.3 wheel has neither. On torch 2.13 `export(...)` has no `constraints` parameter (`TypeError`) and
`torch.export.dynamic_dim` does not exist.

## Fix safety
Finding only: constraints are a list of predicates over tensors (`dynamic_dim(x, 0) >= 2`), `dynamic_shapes` a
structure that mirrors the arguments (`{"x": {0: Dim("batch", min=2)}}`); translating one into the other needs the
argument names and how the constraints relate.
"""

from __future__ import annotations

import ast

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


PASS = Pass(
    id="export-constraints",
    since="1.8",
    release="2.3",
    kind=REMOVAL,
    safety=SAFE,
    title="torch.export.export(constraints=) / dynamic_dim (removed in 2.3) → dynamic_shapes= with Dim (finding)",
    evidence=(
        "pytorch/pytorch#120860 (PyTorch 2.3); the 2.2 wheel defines dynamic_dim and export(constraints=), the 2.3 wheel neither; checked on torch 2.13"
        "; finding only: emits no new form"
    ),
    # every site spells one of these (a word rarer than `export`, which also names the module)
    triggers=("constraints", "dynamic_dim"),
    call_filter=lambda call: _callee(call) == "dynamic_dim" or any(k.arg in (None, "constraints") for k in call.keywords),
    examples=[
        Example(
            before="""
                import torch
                from torch.export import dynamic_dim, export

                ep = export(model, (x,), constraints=[dynamic_dim(x, 0) >= 2])
            """,
            findings=2,
        ),
        Example(
            title="import torch as th",
            before="""
                import torch as th

                ep = th.export.export(m, (a, b), constraints=cons)
            """,
            findings=1,
        ),
        Example(
            title="dynamic_shapes already; another library's export",
            before="""
                from torch.export import Dim, export
                from mylib import export as my_export

                ep = export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})
                my_export(model, constraints=c)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.export.export")
def report_constraints(call: cst.Call, ctx: CallContext) -> None:
    if kwarg(ctx.original, "constraints") is not None:
        ctx.finding(
            'export(constraints=...) was removed in 2.3: pass dynamic_shapes= instead, e.g. {"x": {0: Dim("batch", min=2)}} '
            "for dynamic_dim(x, 0) >= 2 (torch.export.Dim)"
        )
    return None


@PASS.rewrites_calls("torch.export.dynamic_dim")
def report_dynamic_dim(call: cst.Call, ctx: CallContext) -> None:
    ctx.finding('torch.export.dynamic_dim was removed in 2.3: describe the dimension with torch.export.Dim("name", min=..., max=...) in dynamic_shapes=')
    return None
