"""`lp_pool*d` / `nn.LPPool*d` with `norm_type=0` raise `ValueError` from PyTorch 2.14 (finding).

## What it does
Reports `F.lp_pool1d/2d/3d(x, 0, ...)` and `nn.LPPool1d/2d/3d(0, ...)` (positional or `norm_type=`) with a literal
zero. Nothing is rewritten: there is no zero-norm pooling to migrate to.

## Why
A zero `norm_type` never worked: on 2.13 the pooling computes `x.pow(0)` and then `.pow(1.0 / norm_type)`, a
`ZeroDivisionError: float division by zero` (checked on torch 2.13.0, functional and module forms). 2.14 checks the
value up front and raises `ValueError: norm_type must be a non-zero value` — in the module's constructor, no longer at
the first forward (2.14.1 `torch/nn/functional.py:1142,1191,1236`, `torch/nn/modules/pooling.py:1113-1114`).

## Fix safety
Finding only. Code that built such a module and never called it starts failing when it is built.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import arg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="lp-pool-norm-zero",
    release="2.14",
    since="1.8",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="lp_pool*d / nn.LPPool*d(norm_type=0) raise ValueError (finding)",
    evidence=(
        "torch 2.14.1 torch/nn/functional.py:1142,1191,1236, torch/nn/modules/pooling.py:1113-1114; 2.13.0 ZeroDivisionError checked"
        "; finding only: emits no new form"
    ),
    examples=[
        Example(
            before="""
                import torch.nn as nn
                import torch.nn.functional as F

                pool = nn.LPPool2d(0, kernel_size=2)
                y = F.lp_pool1d(x, norm_type=0.0, kernel_size=3)
            """,
            findings=2,
        ),
        Unchanged(
            """
            import torch

            pool = torch.nn.LPPool2d(2, kernel_size=2)
            y = torch.nn.functional.lp_pool3d(x, p, 2)
            """,
            title="non-zero or unknown norms",
        ),
    ],
)

_FUNCTIONS = [f"torch.nn.functional.lp_pool{n}d" for n in (1, 2, 3)]
_MODULES = [f"torch.nn.{m}" for m in ("LPPool1d", "LPPool2d", "LPPool3d")]


def _zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.evaluated_value) == 0.0


@PASS.rewrites_calls(*_FUNCTIONS, *_MODULES)
def report(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    norm = arg(call, 1 if ctx.qualname in _FUNCTIONS else 0, "norm_type")
    if norm is not None and _zero(norm.value):
        ctx.finding(
            f"{ctx.qualname.rpartition('.')[2]} with norm_type=0 always failed (ZeroDivisionError) and raises ValueError "
            "from 2.14, for modules already when built: use a non-zero norm"
        )
    return None
