"""LR schedulers lost their `verbose` parameter in PyTorch 2.7: drop `verbose=`.

## What it does
Removes the `verbose=` keyword from calls to the `torch.optim.lr_scheduler` classes (`StepLR`, `MultiStepLR`,
`ReduceLROnPlateau`, `OneCycleLR`, `CosineAnnealingLR`, `LambdaLR`, … and the `LRScheduler` / `_LRScheduler` bases),
whatever alias they are imported under. When the value was not a literal `False` (or the old `"deprecated"`
default), the edit comes with a finding: the scheduler used to print the learning rate at each step; print
`scheduler.get_last_lr()` yourself if you still want that. A `verbose` passed positionally (one positional argument
more than the 2.13 signature takes) gets a finding. Subclasses of your own that forward `verbose` to
`super().__init__` cannot be resolved statically and are not touched.

## Why
`verbose` and `print_lr()` were deprecated in 2.2 and removed in 2.7 (pytorch/pytorch#147301, BC-breaking note:
"`LRScheduler.print_lr()` along with the `verbose` kwarg to the LRScheduler constructor has been deprecated since
release 2.2"). On torch 2.13 passing it is a `TypeError: StepLR.__init__() got an unexpected keyword argument 'verbose'`.

## Fix safety
Safe: the code cannot run on 2.7+ with the keyword, and without it the scheduler computes the same learning rates; the
only thing lost is the printed message, which the finding points out when it was switched on.
"""

from __future__ import annotations

import ast

import libcst as cst

from torchmigrate.core.passes import SAFE, Example, Pass
from torchmigrate.python.helpers import fix_commas, kwarg
from torchmigrate.python.transform import CallContext

# Positional parameters of each scheduler's __init__ on torch 2.13 (without self): one more positional argument than
# this was the old trailing `verbose`.
POSITIONAL = {
    "ChainedScheduler": 2,
    "ConstantLR": 4,
    "CosineAnnealingLR": 4,
    "CosineAnnealingWarmRestarts": 5,
    "CyclicLR": 13,
    "ExponentialLR": 3,
    "LambdaLR": 3,
    "LinearLR": 5,
    "MultiStepLR": 4,
    "MultiplicativeLR": 3,
    "OneCycleLR": 14,
    "PolynomialLR": 4,
    "ReduceLROnPlateau": 9,
    "SequentialLR": 4,
    "StepLR": 4,
    "LRScheduler": 2,
    "_LRScheduler": 2,
}
_MODULE = "torch.optim.lr_scheduler"


def _may_pass_verbose(call: ast.Call) -> bool:
    """Precheck: only a call with ``verbose=`` or more plain positional arguments than the scheduler takes today can
    need this pass (as in :func:`rewrite`: ``*args`` / ``**kwargs`` are left alone, they may or may not hold it)."""
    if any(keyword.arg == "verbose" for keyword in call.keywords):
        return True
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    positional = sum(1 for a in call.args if not isinstance(a, ast.Starred))
    return positional > POSITIONAL.get(name, min(POSITIONAL.values()))


PASS = Pass(
    call_filter=_may_pass_verbose,
    id="lr-verbose",
    release="2.7",
    since="1.8",
    safety=SAFE,
    title="LR scheduler(..., verbose=...) → drop verbose (removed in 2.7)",
    evidence=(
        "PyTorch 2.7 release notes (BC-breaking, pytorch/pytorch#147301); TypeError checked on torch 2.13"
        "; since 1.8: a scheduler call without verbose= runs on every release (the keyword was optional)"
    ),
    triggers=("lr_scheduler",),
    examples=[
        Example(
            before="""
                import torch

                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5, verbose=False)
            """,
            after="""
                import torch

                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
            """,
        ),
        Example(
            title="alias; verbose=True also gets a finding (the printing is gone)",
            before="""
                from torch.optim import lr_scheduler as ls

                s = ls.ReduceLROnPlateau(opt, mode='min', verbose=True, patience=3)
            """,
            after="""
                from torch.optim import lr_scheduler as ls

                s = ls.ReduceLROnPlateau(opt, mode='min', patience=3)
            """,
            findings=1,
        ),
        Example(
            title="from-import, multi-line call",
            before="""
                from torch.optim.lr_scheduler import OneCycleLR

                s = OneCycleLR(
                    opt,
                    max_lr=0.1,
                    total_steps=100,
                    verbose=False,
                )
            """,
            after="""
                from torch.optim.lr_scheduler import OneCycleLR

                s = OneCycleLR(
                    opt,
                    max_lr=0.1,
                    total_steps=100,
                )
            """,
        ),
        Example(
            title="positional verbose: finding",
            before="""
                import torch

                s = torch.optim.lr_scheduler.ExponentialLR(opt, 0.9, -1, True)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: another library's scheduler, other functions' verbose",
            before="""
                import transformers

                s = transformers.StepLR(opt, verbose=True)
                print(x, verbose=True)
            """,
        ),
    ],
)


@PASS.rewrites_calls(*(f"{_MODULE}.{name}" for name in POSITIONAL))
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    name = ctx.qualname.rpartition(".")[2]
    verbose = kwarg(call, "verbose")
    if verbose is None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > POSITIONAL[name]:
            ctx.finding(f"{name}(...): the last positional argument was `verbose`, removed in PyTorch 2.7: delete it")
        return None
    value = verbose.value
    quiet = (isinstance(value, cst.Name) and value.value == "False") or (
        isinstance(value, cst.SimpleString) and value.evaluated_value == "deprecated"
    )
    if not quiet:
        ctx.finding(
            f"{name}(verbose=...) printed the learning rate at each step; that option is gone in PyTorch 2.7: "
            "print scheduler.get_last_lr() after scheduler.step() if you still want it"
        )
    ctx.message = f"{name}: verbose= dropped (removed in PyTorch 2.7)"
    args = [a for a in call.args if a is not verbose]
    if args and call.args[-1] is verbose:
        args[-1] = args[-1].with_changes(comma=verbose.comma)  # keep the closing bracket where it was
    return call.with_changes(args=fix_commas(args))
