"""`_ExperimentalConfig(adjust_profiler_step=...)` is deprecated and ignored from PyTorch 2.15: drop it.

## What it does
Drops `adjust_profiler_step=` from `torch.profiler._ExperimentalConfig(...)` (any of its spellings). Arguments passed
by position are written as keywords first (bound to the 2.13/2.14 order), since 2.15 also removed the two leading
parameters (see `profiler-experimental-metrics`). A value other than `False` gets a finding: the step markers are no
longer adjusted.

## Why
2.15's `profile()` warns "adjust_profiler_step is deprecated and ignored. It will be removed in a future release."
(`FutureWarning`, 2.15.0 `torch/autograd/profiler.py:262-268`); the stub keeps it only as a "Deprecated no-op"
(2.15.0 `torch/_C/_profiler.pyi:74-75`).

## Fix safety
Safe on the target: from 2.15 the value is ignored, so the profile is the same without it.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.codemods.v2_14.profiler_experimental_metrics import QUALNAMES, without_parameters
from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="profiler-adjust-step",
    release="2.15",
    since="2.15",
    kind=DEPRECATION,
    safety=SAFE,
    title="_ExperimentalConfig(adjust_profiler_step=...) → dropped (ignored since 2.15)",
    evidence=(
        "torch 2.15.0 torch/autograd/profiler.py:262-268 (FutureWarning, ignored), torch/_C/_profiler.pyi:74-75"
        "; since 2.15: adjust_profiler_step is ignored from 2.15 (torch 2.15.0 wheel, "
        "torch/autograd/profiler.py:262-268); before, dropping it changed the step numbering"
    ),
    triggers=("adjust_profiler_step",),
    examples=[
        Example(
            before="""
                import torch

                config = torch.profiler._ExperimentalConfig(verbose=True, adjust_profiler_step=False)
            """,
            after="""
                import torch

                config = torch.profiler._ExperimentalConfig(verbose=True)
            """,
        ),
        Example(
            title="adjust_profiler_step=True: dropped, with a finding",
            before="""
                from torch.profiler import _ExperimentalConfig as XC

                config = XC(
                    adjust_profiler_step=True,
                    profile_all_threads=True,
                )
            """,
            after="""
                from torch.profiler import _ExperimentalConfig as XC

                config = XC(
                    profile_all_threads=True,
                )
            """,
            findings=1,
        ),
        Unchanged(
            """
            from torch.profiler import _ExperimentalConfig

            config = _ExperimentalConfig(verbose=True)
            """,
        ),
    ],
)


@PASS.rewrites_calls(*QUALNAMES)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    why = "adjust_profiler_step is ignored from 2.15"
    done = without_parameters(call, ctx, ("adjust_profiler_step",), why)
    if done is None:
        return None
    new, gone = done
    value = gone.get("adjust_profiler_step")
    if value is not None and not (isinstance(value.value, cst.Name) and value.value.value == "False"):
        ctx.finding("adjust_profiler_step is ignored from 2.15: profiler step markers are no longer adjusted")
    ctx.message = f"_ExperimentalConfig: adjust_profiler_step dropped ({why})"
    return new
