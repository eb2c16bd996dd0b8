"""`F.softmax(x)` / `nn.Softmax()` without `dim` are deprecated: the implicit dimension depends on the input's rank.

## What it does
Reports (no edit) `F.softmax`, `F.log_softmax`, `F.softmin` calls without a `dim` (or with `dim=None`), and
`nn.Softmax()`, `nn.LogSoftmax()`, `nn.Softmin()` built without one.

## Why
Deprecated since PyTorch 0.3; torch 2.13 warns `UserWarning: Implicit dimension choice for softmax has been
deprecated. Change the call to include dim=X as an argument.` and picks `dim=0` for 0-, 1- and 3-D inputs, `dim=1`
otherwise (`torch.nn.functional._get_softmax_dim`). torchmigrate files changes older than its 1.8 floor under 1.8.

## Fix safety
Finding only: the implicit choice depends on the rank of the tensor at run time, which the code does not show. For a
batch of logits `(N, C)` it is `dim=1`; for `(C, H, W)` images it is `dim=0` — often not what was meant.
"""

from __future__ import annotations

import ast

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, has_star_args
from torchmigrate.python.transform import CallContext

FUNCTIONS = ("softmax", "log_softmax", "softmin")
MODULES = ("Softmax", "LogSoftmax", "Softmin")


def _may_lack_dim(call: ast.Call) -> bool:
    """The precheck's look (stdlib ``ast``): a call that gives ``dim=`` (not ``None``) or two positional arguments
    cannot need the pass, so a file whose calls all do so is never parsed by libcst."""
    for keyword in call.keywords:
        if keyword.arg == "dim":
            return isinstance(keyword.value, ast.Constant) and keyword.value.value is None
    if len(call.args) < 2 or any(isinstance(a, ast.Starred) for a in call.args):
        return True
    return isinstance(call.args[1], ast.Constant) and call.args[1].value is None  # F.softmax(x, None)

PASS = Pass(
    id="softmax-implicit-dim",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="F.softmax / log_softmax / softmin and nn.Softmax & co. without dim (finding)",
    evidence=(
        "torch 2.13 torch/nn/functional.py _get_softmax_dim (UserWarning; 0 for ndim 0, 1, 3, else 1)"
        "; finding only: emits no new form"
    ),
    call_filter=_may_lack_dim,
    examples=[
        Example(
            before="""
                import torch.nn as nn
                import torch.nn.functional as F

                p = F.softmax(logits)
                head = nn.Sequential(nn.Linear(8, 4), nn.LogSoftmax())
            """,
            findings=2,
        ),
        Example(
            title="dim=None is no dimension either",
            before="""
                import torch.nn.functional as F

                p = F.softmax(logits, None)
                q = F.log_softmax(logits, dim=None)
            """,
            findings=2,
        ),
        Example(
            title="a dimension given, by keyword or position: fine",
            before="""
                import torch
                import torch.nn.functional as F

                p = F.softmax(logits, dim=-1)
                q = F.log_softmax(logits, 1)
                r = torch.nn.Softmax(dim=1)
                s = torch.softmax(logits, -1)
            """,
        ),
    ],
)


@PASS.rewrites_calls(*(f"torch.nn.functional.{name}" for name in FUNCTIONS), *(f"torch.nn.{name}" for name in MODULES))
def report(call: cst.Call, ctx: CallContext) -> None:
    name = ctx.qualname.rpartition(".")[2]
    module = name in MODULES
    bound = bind(ctx.original, ("dim",) if module else ("input", "dim"))
    if has_star_args(ctx.original):
        return None
    dim = bound.value("dim")
    if dim is None or (isinstance(dim, cst.Name) and dim.value == "None"):
        what = f"nn.{name}()" if module else f"F.{name}(x)"
        ctx.finding(
            f"{what} without dim is deprecated: the dimension is chosen from the input's rank at run time (0 for 0-, 1- "
            "and 3-D inputs, else 1); pass dim= explicitly"
        )
    return None
