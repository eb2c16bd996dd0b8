"""`torch.fx._symbolic_trace.is_fx_tracing()` is also true under `torch.export`: use `is_fx_symbolic_tracing()`.

## What it does
Renames `is_fx_tracing` to `is_fx_symbolic_tracing` (module `torch.fx._symbolic_trace`), in calls and imports.

## Why
2.9 added `is_fx_symbolic_tracing` (release notes, FX new features, pytorch/pytorch#161385). On torch 2.13 a call
to `is_fx_tracing()` logs once: "is_fx_tracing will return true for both fx.symbolic_trace and torch.export. Please
use is_fx_tracing_symbolic_tracing() for specifically fx.symbolic_trace or torch.compiler.is_compiling() for
specifically torch.export/compile." Code guarded by `is_fx_tracing()` is nearly always written for
`torch.fx.symbolic_trace` (skip an assertion or data-dependent branch that FX proxies cannot trace).

## Fix safety
Review: `is_fx_symbolic_tracing()` is `is_fx_tracing() and not torch.compiler.is_compiling()` (torch 2.13 source), so
the two differ only while `torch.export` / `torch.compile` trace. If the guarded branch must also be skipped there,
write `is_fx_symbolic_tracing() or torch.compiler.is_compiling()`.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass

PASS = Pass(
    id="fx-is-fx-tracing",
    release="2.9",
    since="2.9",
    safety=REVIEW,
    kind=DEPRECATION,
    title="torch.fx._symbolic_trace.is_fx_tracing() → is_fx_symbolic_tracing()",
    evidence=(
        "PyTorch 2.9 release notes, FX (pytorch/pytorch#161385); torch 2.13 logs a warning from is_fx_tracing"
        "; since 2.9: is_fx_symbolic_tracing (torch 2.9.1 wheel, torch/fx/_symbolic_trace.py)"
    ),
    review_note="is_fx_symbolic_tracing() is False under torch.export/compile, where is_fx_tracing() was True",
    renames={"torch.fx._symbolic_trace.is_fx_tracing": "torch.fx._symbolic_trace.is_fx_symbolic_tracing"},
    examples=[
        Example(
            before="""
                from torch.fx._symbolic_trace import is_fx_tracing

                def forward(self, x):
                    if not is_fx_tracing():
                        assert x.shape[0] > 0
                    return x
            """,
            after="""
                from torch.fx._symbolic_trace import is_fx_symbolic_tracing

                def forward(self, x):
                    if not is_fx_symbolic_tracing():
                        assert x.shape[0] > 0
                    return x
            """,
        ),
        Example(
            title="attribute access",
            before="""
                import torch

                if torch.fx._symbolic_trace.is_fx_tracing():
                    pass
            """,
            after="""
                import torch

                if torch.fx._symbolic_trace.is_fx_symbolic_tracing():
                    pass
            """,
        ),
        Example(
            title="a project helper of the same name is not touched",
            before="""
                from mylib.utils import is_fx_tracing

                flag = is_fx_tracing()
            """,
        ),
    ],
)
