"""Opt-in: `torch.optim.Adagrad` gained a fused implementation (`fused=True`); use it.

## What it does
Adds `fused=True` to `torch.optim.Adagrad(...)` calls that do not choose an implementation. Calls that pass `fused`,
`foreach=True`, `differentiable=True` or `**kwargs` are left alone (fused cannot be combined with the first two).
Runs only when selected: `migrate --to 2.12 --select adagrad-fused`.

## Why
The fused implementation (one kernel for the whole update) is an opportunity, not a requirement: the 2.12 release made
it available for Adagrad (checked on torch 2.13.0: `fused` is a parameter and a CPU step runs). Nothing is deprecated,
so this pass is never part of a default run.

## Fix safety
Review: fused kernels need floating-point parameters on a supported device (CPU or CUDA here) and can differ from the
for-loop implementation in the last bits of floating-point rounding.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import OPPORTUNITY, REVIEW, Example, Pass
from torchmigrate.python.helpers import has_star_args, kwarg, with_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="adagrad-fused",
    release="2.12",
    since="2.12",
    kind=OPPORTUNITY,
    safety=REVIEW,
    title="torch.optim.Adagrad(...) → Adagrad(..., fused=True)",
    evidence=(
        "PyTorch 2.12 release blog (fused Adagrad); `fused` parameter checked on torch 2.13.0"
        "; since 2.12: fused Adagrad on CUDA (torch 2.11.0 wheel, torch/optim/adagrad.py:135 still refuses CUDA); CPU "
        "from 2.5"
    ),
    opt_in=True,
    review_note="Fused Adagrad needs floating-point parameters on CPU or CUDA; results may differ in the last bits.",
    examples=[
        Example(
            before="""
                import torch

                opt = torch.optim.Adagrad(model.parameters(), lr=0.01)
            """,
            after="""
                import torch

                opt = torch.optim.Adagrad(model.parameters(), lr=0.01, fused=True)
            """,
        ),
        Example(
            title="from-import",
            before="""
                from torch.optim import Adagrad

                opt = Adagrad(params)
            """,
            after="""
                from torch.optim import Adagrad

                opt = Adagrad(params, fused=True)
            """,
        ),
        Example(
            title="an implementation already chosen",
            before="""
                import torch

                opt = torch.optim.Adagrad(params, foreach=True)
                opt2 = torch.optim.Adagrad(params, fused=False)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.optim.Adagrad", "torch.optim.adagrad.Adagrad")
def add_fused(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if has_star_args(call) or kwarg(call, "fused") is not None:
        return None
    for name in ("foreach", "differentiable"):
        chosen = kwarg(call, name)
        if chosen is not None and not (isinstance(chosen.value, cst.Name) and chosen.value.value in ("False", "None")):
            return None
    ctx.message = "Adagrad: fused=True"
    return with_kwarg(call, "fused", "True")
