"""`torch.export.export` stopped being strict by default in PyTorch 2.8: opt in to pass `strict=True` and keep it.

## What it does
Adds `strict=True` to `torch.export.export(...)` and `torch.export.export_for_training(...)` calls that do not choose
`strict` themselves, so code written for 2.7 or earlier keeps tracing with TorchDynamo as it did. Calls that already
say `strict=...`, or pass `**kwargs` (which may carry it), are left alone.

This pass is **opt-in** (`--select export-strict-default`).

## Why
2.8 switched the default of `export` and `export_for_training` from `strict=True` to `strict=False`
(release notes, BC-breaking: "Switched default to strict=False", pytorch/pytorch#148790, #150941); "To revert to the
old default behavior, please explicitly pass `strict=True`."

It is opt-in rather than default because the new default is the one upstream wants: non-strict tracing is the
recommended mode, accepts more Python, and for a model that exported under strict mode it normally gives the same
graph. Adding `strict=True` to every `export(...)` call of a code base would pin it to the legacy tracer and would
also flag code that was already written for 2.8+ (a file gives no sign of which default its author expected — the
bundled example's `modern.py` is such a case). The passes that rewrite removed export APIs (`export-for-inference`,
2.8) already pass `strict=True` themselves, so they do not depend on this one; and since this pass only adds the
keyword when it is absent, running it after them never adds it twice (`--to 2.12` then turns
`export_for_training(..., strict=True)` into `export(..., strict=True)`).

## Fix safety
Review: `strict=True` restores the pre-2.8 tracer exactly; strict mode is also slower and rejects some code
non-strict mode handles. Select it when your graphs must stay what 2.7 produced.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import has_star_args, kwarg, with_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="export-strict-default",
    release="2.8",
    since="2.2",
    safety=REVIEW,
    kind=BEHAVIOUR,
    title="torch.export.export(m, args) → export(m, args, strict=True) (keep the pre-2.8 default)",
    evidence=(
        "PyTorch 2.8 release notes, BC-breaking (pytorch/pytorch#148790, #150941)"
        "; since 2.2: export(strict=) (torch 2.2.2 wheel, torch/export/__init__.py)"
    ),
    opt_in=True,
    review_note="strict=True keeps the TorchDynamo tracer of 2.7; drop it to adopt the non-strict default",
    examples=[
        Example(
            before="""
                import torch

                ep = torch.export.export(model, (x,))
            """,
            after="""
                import torch

                ep = torch.export.export(model, (x,), strict=True)
            """,
        ),
        Example(
            title="from-import, alias and export_for_training",
            before="""
                from torch.export import export as tx, export_for_training

                a = tx(model, (x,), dynamic_shapes=shapes)
                b = export_for_training(model, (x,))
            """,
            after="""
                from torch.export import export as tx, export_for_training

                a = tx(model, (x,), dynamic_shapes=shapes, strict=True)
                b = export_for_training(model, (x,), strict=True)
            """,
        ),
        Example(
            title="an explicit choice is kept",
            before="""
                import torch

                ep = torch.export.export(model, (x,), strict=False)
            """,
        ),
        Example(
            title="**kwargs may carry strict",
            before="""
                import torch

                ep = torch.export.export(model, (x,), **opts)
            """,
        ),
        Example(
            title="torch.onnx.export and user functions named export are not touched",
            before="""
                import torch

                torch.onnx.export(model, (x,), 'm.onnx')

                def export(m):
                    return m

                export(model)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.export.export", "torch.export.export_for_training")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if kwarg(call, "strict") is not None or has_star_args(call):
        return None
    ctx.message = "export(...): strict=True keeps the pre-2.8 default"
    return with_kwarg(call, "strict", "True")
