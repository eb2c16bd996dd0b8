"""`torch.export.export_for_inference` was removed in PyTorch 2.8.

## What it does
Rewrites `export_for_inference(mod, args, kwargs, ..., decomp_table=T)` into
`export_for_training(mod, args, kwargs, ..., strict=True).run_decompositions(decomp_table=T)`
(`.run_decompositions()` when no table, or `None`, was given).

## Why
`export_for_inference` existed in 2.6 and 2.7 only; 2.8 removed it (pytorch/pytorch#149078) and the same program is
obtained by exporting for training and running the decompositions. `export_for_training` itself is deprecated in 2.9
and removed in 2.11: with `--to 2.11` or later the `export-for-training` pass turns the result into `torch.export.export`.

## Fix safety
Safe. `export_for_inference` exported strictly (`strict=True` by default) while 2.8 made the default `strict=False`
(pytorch/pytorch#148790), so the rewrite passes `strict=True` unless the call chose `strict` itself.
A call that passes `**kwargs` cannot be rewritten (`decomp_table` may hide in it) and gets a finding instead.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import SAFE, Example, Pass
from torchmigrate.python.helpers import fix_commas, has_star_args, kwarg, make_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="export-for-inference",
    release="2.8",
    since="2.6",
    safety=SAFE,
    title="export_for_inference(...) → export_for_training(..., strict=True).run_decompositions(...)",
    evidence=(
        "PyTorch 2.8 release notes (removal: pytorch/pytorch#149078; strict default: pytorch/pytorch#148790)"
        "; since 2.6: the emitted form is export_for_inference's own body in 2.6 (torch 2.6.0 wheel, "
        "torch/export/__init__.py:178)"
    ),
    examples=[
        Example(
            title="decomposition table",
            before="""
                import torch

                ep = torch.export.export_for_inference(model, (x,), decomp_table=table)
            """,
            after="""
                import torch

                ep = torch.export.export_for_training(model, (x,), strict=True).run_decompositions(decomp_table=table)
            """,
        ),
        Example(
            title="alias, no table",
            before="""
                from torch.export import export_for_inference as efi

                ep = efi(model, (x,))
            """,
            after="""
                from torch.export import export_for_training

                ep = export_for_training(model, (x,), strict=True).run_decompositions()
            """,
        ),
        Example(
            title="import torch as th, explicit strict and kwargs kept",
            before="""
                import torch as th

                ep = th.export.export_for_inference(m, args, {'y': y}, strict=False, decomp_table=None)
            """,
            after="""
                import torch as th

                ep = th.export.export_for_training(m, args, {'y': y}, strict=False).run_decompositions()
            """,
        ),
        Example(
            title="**kwargs may hide decomp_table: finding",
            before="""
                import torch

                ep = torch.export.export_for_inference(m, args, **opts)
            """,
            findings=1,
        ),
        Example(
            title="a user function of the same name is not touched",
            before="""
                def export_for_inference(m, a):
                    return m

                ep = export_for_inference(model, (x,))
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.export.export_for_inference")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if has_star_args(call):
        ctx.finding(
            "export_for_inference(...) with **kwargs cannot be rewritten safely (decomp_table may be among them): "
            "call torch.export.export_for_training(..., strict=True).run_decompositions(decomp_table=...) yourself"
        )
        return None
    table = kwarg(call, "decomp_table")
    args = [a for a in call.args if a is not table]
    if kwarg(call, "strict") is None:
        args.append(make_kwarg("strict", cst.Name("True")))
    exported = call.with_changes(func=ctx.ref("torch.export.export_for_training"), args=fix_commas(args))
    decomp_args: list[cst.Arg] = []
    if table is not None and not (isinstance(table.value, cst.Name) and table.value.value == "None"):
        decomp_args.append(make_kwarg("decomp_table", table.value))
    ctx.message = "export_for_inference → export_for_training(strict=True).run_decompositions()"
    return cst.Call(func=cst.Attribute(value=exported, attr=cst.Name("run_decompositions")), args=decomp_args)
