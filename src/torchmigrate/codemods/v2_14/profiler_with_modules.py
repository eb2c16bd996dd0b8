"""Profiling with `with_modules=True` is deprecated in PyTorch 2.14 (finding).

## What it does
Reports `torch.profiler.profile(..., with_modules=...)` and `torch.autograd.profiler.profile(..., with_modules=...)`
when the value is not a literal `False`. There is no exact replacement, so nothing is rewritten: `with_modules` only
recorded TorchScript module hierarchies; `with_stack=True` records `nn.Module` events for eager models.

## Why
2.14's autograd profiler (which `torch.profiler.profile` builds on) warns "with_modules is deprecated and will be
removed in a future release. It only collects data for TorchScript models, which are themselves deprecated, and does
nothing in eager mode. Use with_stack=True, which records nn.Module events for eager models." (`FutureWarning`,
2.14.1 `torch/autograd/profiler.py:270-278`).

## Fix safety
Finding only: `with_stack=True` records something else (Python stacks) at another cost, so switching is a decision.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="profiler-with-modules",
    release="2.14",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="profile(with_modules=True) is deprecated (TorchScript only): use with_stack=True (finding)",
    evidence=(
        "torch 2.14.1 torch/autograd/profiler.py:270-278 (FutureWarning)"
        "; finding only: emits no new form"
    ),
    triggers=("with_modules",),
    call_filter=lambda call: any(k.arg == "with_modules" for k in call.keywords),
    examples=[
        Example(
            before="""
                import torch

                with torch.profiler.profile(with_modules=True, record_shapes=True) as prof:
                    step()
                with torch.autograd.profiler.profile(with_modules=flag):
                    step()
            """,
            findings=2,
        ),
        Unchanged(
            """
            from torch.profiler import profile

            with profile(with_modules=False, with_stack=True):
                step()
            """,
            title="with_modules=False warns nothing",
        ),
    ],
)


@PASS.rewrites_calls("torch.profiler.profile", "torch.profiler.profiler.profile", "torch.autograd.profiler.profile")
def report(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    arg = kwarg(call, "with_modules")
    if arg is not None and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
        ctx.finding(
            "with_modules is deprecated from 2.14: it only recorded TorchScript module hierarchies and does nothing in "
            "eager mode; drop it, or use with_stack=True to record nn.Module events"
        )
    return None
