"""`torch.export.export_for_training` was removed in PyTorch 2.11: use `torch.export.export`.

## What it does
Renames `torch.export.export_for_training` to `torch.export.export`, in calls and imports
(`from torch.export import export_for_training` → `from torch.export import export`).

## Why
`export_for_training` was deprecated in 2.9 (pytorch/pytorch#158203), when `torch.export.export` began to produce the
same training IR, and removed in 2.11 (pytorch/pytorch#171714).

## Fix safety
Safe: since 2.9 both functions take the same arguments (`mod, args, kwargs, *, dynamic_shapes, strict,
preserve_module_call_signature`) and return the same `ExportedProgram`.
"""

from __future__ import annotations

from torchmigrate.core.passes import SAFE, Example, Pass

PASS = Pass(
    id="export-for-training",
    release="2.11",
    since="2.6",
    safety=SAFE,
    title="export_for_training(...) → export(...)",
    evidence=(
        "PyTorch 2.9 release notes (deprecation, pytorch/pytorch#158203); 2.11 release notes (removal, #171714)"
        "; since 2.6: export() and export_for_training() both run _export_for_training (torch 2.6.0 wheel, "
        "torch/export/_trace.py:1969, torch/_utils_internal.py:156)"
    ),
    renames={"torch.export.export_for_training": "torch.export.export"},
    examples=[
        Example(
            before="""
                import torch

                ep = torch.export.export_for_training(model, (x,))
            """,
            after="""
                import torch

                ep = torch.export.export(model, (x,))
            """,
        ),
        Example(
            title="from-import",
            before="""
                from torch.export import export_for_training

                ep = export_for_training(model, (x,), strict=True)
            """,
            after="""
                from torch.export import export

                ep = export(model, (x,), strict=True)
            """,
        ),
        Example(
            title="alias kept",
            before="""
                from torch.export import export_for_training as eft

                ep = eft(model, (x,))
            """,
            after="""
                from torch.export import export as eft

                ep = eft(model, (x,))
            """,
        ),
        Example(
            title="import torch as th",
            before="""
                import torch as th

                ep = th.export.export_for_training(model, (x,)).run_decompositions()
            """,
            after="""
                import torch as th

                ep = th.export.export(model, (x,)).run_decompositions()
            """,
        ),
    ],
)
