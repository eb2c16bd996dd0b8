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
    safety=SAFE,
    title="export_for_training(...) → export(...)",
    evidence="PyTorch 2.9 release notes (deprecation, pytorch/pytorch#158203); 2.11 release notes (removal, #171714)",
    triggers=("export_for_training",),
    renames={"torch.export.export_for_training": "torch.export.export"},
    examples=[
        Example(
            before="import torch\n\nep = torch.export.export_for_training(model, (x,))\n",
            after="import torch\n\nep = torch.export.export(model, (x,))\n",
        ),
        Example(
            title="from-import",
            before="from torch.export import export_for_training\n\nep = export_for_training(model, (x,), strict=True)\n",
            after="from torch.export import export\n\nep = export(model, (x,), strict=True)\n",
        ),
        Example(
            title="alias kept",
            before="from torch.export import export_for_training as eft\n\nep = eft(model, (x,))\n",
            after="from torch.export import export as eft\n\nep = eft(model, (x,))\n",
        ),
        Example(
            title="import torch as th",
            before="import torch as th\n\nep = th.export.export_for_training(model, (x,)).run_decompositions()\n",
            after="import torch as th\n\nep = th.export.export(model, (x,)).run_decompositions()\n",
        ),
    ],
)
