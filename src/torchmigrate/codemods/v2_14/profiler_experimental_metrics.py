"""`_ExperimentalConfig(profiler_metrics=, profiler_measure_per_kernel=)` are ignored from PyTorch 2.14 (gone in 2.15).

## What it does
Drops `profiler_metrics=` and `profiler_measure_per_kernel=` from `torch.profiler._ExperimentalConfig(...)` (also
spelled `torch._C._profiler._ExperimentalConfig`, `torch.autograd.profiler._ExperimentalConfig`). Arguments passed by
position are bound to the 2.13 parameter order first and the rest are written as keywords, because 2.15 removes the two
leading parameters and every later position shifts. A metric list that was not empty (or `profiler_measure_per_kernel`
not `False`) gets a finding as well: 2.14 no longer collects CUPTI metrics at all.

## Why
2.14 made both options no-ops: `profile()` warns "profiler_metrics and profiler_measure_per_kernel are deprecated and
ignored. These options will be removed in a future release." (`FutureWarning`, 2.14.1 `torch/autograd/profiler.py:
260-269`; the `_C/_profiler.pyi` stub keeps them as "Deprecated no-ops"), and 2.15 removed them from the constructor
(2.15.0 `torch/_C/_profiler.pyi:58-72`: the signature starts at `verbose`), where they are a `TypeError`.

## Fix safety
Safe on the target: from 2.14 the values are ignored, so the profile is the same without them. (On 2.13 the metrics
were collected; that is what the finding is about.)
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import bind, fix_commas, make_kwarg
from torchmigrate.python.transform import CallContext

# _ExperimentalConfig.__init__ on torch 2.13 and 2.14 (torch/_C/_profiler.pyi:58-74), in order.
PARAMETERS_2_13 = (
    "profiler_metrics", "profiler_measure_per_kernel", "verbose", "performance_events", "enable_cuda_sync_events",
    "adjust_profiler_step", "disable_external_correlation", "profile_all_threads", "capture_overload_names",
    "record_python_gc_info", "expose_kineto_event_metadata", "custom_profiler_config", "adjust_timestamps", "trace_only",
)
QUALNAMES = (
    "torch._C._profiler._ExperimentalConfig",
    "torch.profiler._ExperimentalConfig",
    "torch.profiler.profiler._ExperimentalConfig",
    "torch.autograd.profiler._ExperimentalConfig",
)


def without_parameters(call: cst.Call, ctx: CallContext, dropped: Sequence[str], why: str) -> tuple[cst.Call, dict[str, cst.Arg]] | None:
    """``call`` with the ``dropped`` parameters removed and positional arguments written as keywords (bound to the
    2.13 order), plus what was dropped; ``None`` when there is nothing to do or ``*args`` / ``**kwargs`` hide it."""
    bound = bind(call, PARAMETERS_2_13)
    positional = any(a.keyword is None for a in call.args)
    gone = {name: arg for name, arg in bound.args.items() if name in dropped}
    if not gone and not (positional and any(name in dropped for name in PARAMETERS_2_13[: len(call.args)])):
        return None
    if bound.star or bound.extra:
        ctx.finding(f"_ExperimentalConfig(*args / **kwargs): {why}; drop {', '.join(dropped)} by hand")
        return None
    args: list[cst.Arg] = []
    for a in call.args:
        if any(a is arg for arg in gone.values()):
            continue
        if a.keyword is None:
            name = next(n for n, arg in bound.args.items() if arg is a)
            a = make_kwarg(name, a.value).with_changes(comma=a.comma)
        args.append(a)
    if args and call.args and any(call.args[-1] is arg for arg in gone.values()):
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=fix_commas(args)), gone


def _default(arg: cst.Arg, name: str) -> bool:
    value = arg.value
    if name == "profiler_metrics":
        return isinstance(value, cst.List) and not value.elements
    return isinstance(value, cst.Name) and value.value == "False"


PASS = Pass(
    id="profiler-experimental-metrics",
    release="2.14",
    since="2.14",
    removed_in="2.15",
    kind=DEPRECATION,
    safety=SAFE,
    title="_ExperimentalConfig(profiler_metrics=..., profiler_measure_per_kernel=...) → dropped (ignored since 2.14)",
    evidence=(
        "torch 2.14.1 torch/autograd/profiler.py:260-269 (FutureWarning, ignored), torch/_C/_profiler.pyi:76-78; "
        "2.15.0 torch/_C/_profiler.pyi:58-72 (removed)"
        "; since 2.14: profiler_metrics / profiler_measure_per_kernel are ignored from 2.14 (torch 2.14.1 "
        "wheel, torch/autograd/profiler.py:260-269); before, dropping them changed what was measured"
    ),
    triggers=("_ExperimentalConfig",),
    examples=[
        Example(
            before="""
                from torch.profiler import _ExperimentalConfig, profile

                config = _ExperimentalConfig(profiler_metrics=[], profiler_measure_per_kernel=False, verbose=True)
                with profile(experimental_config=config):
                    step()
            """,
            after="""
                from torch.profiler import _ExperimentalConfig, profile

                config = _ExperimentalConfig(verbose=True)
                with profile(experimental_config=config):
                    step()
            """,
        ),
        Example(
            title="positional arguments become keywords; collected metrics: finding",
            before="""
                import torch

                config = torch._C._profiler._ExperimentalConfig(["kineto__cuda_core_flops"], True, True)
            """,
            after="""
                import torch

                config = torch._C._profiler._ExperimentalConfig(verbose=True)
            """,
            findings=1,
        ),
        Unchanged(
            """
            from torch.profiler import _ExperimentalConfig

            config = _ExperimentalConfig(verbose=True, profile_all_threads=True)
            """,
            title="nothing deprecated",
        ),
    ],
)

_WHY = "profiler_metrics and profiler_measure_per_kernel are ignored from 2.14 and removed in 2.15"


@PASS.rewrites_calls(*QUALNAMES)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    done = without_parameters(call, ctx, ("profiler_metrics", "profiler_measure_per_kernel"), _WHY)
    if done is None:
        return None
    new, gone = done
    if any(not _default(arg, name) for name, arg in gone.items()):
        ctx.finding(
            "PyTorch 2.14 no longer collects CUPTI metrics (profiler_metrics / profiler_measure_per_kernel are ignored): "
            "measure them with Nsight Compute or CUPTI directly"
        )
    ctx.message = f"_ExperimentalConfig: {', '.join(gone) or 'positional arguments'} dropped ({_WHY})"
    return new
