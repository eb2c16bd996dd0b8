"""`torch._export.capture_pre_autograd_graph` was removed in PyTorch 2.7: use `torch.export.export(...).module()`.

## What it does
Rewrites `capture_pre_autograd_graph(m, args[, kwargs][, dynamic_shapes])` into
`torch.export.export(m, args[, kwargs][, dynamic_shapes=...]).module()`: the same arguments, and `.module()` turns the
`ExportedProgram` back into the `nn.Module` the old function returned. A fourth positional argument
(`dynamic_shapes`) becomes a keyword, since `export` takes it keyword-only.

## Why
`capture_pre_autograd_graph` was deprecated in 2.4 ("doesn't provide any function guarantee moving forward. Please
switch to use torch.export", pytorch/pytorch#125602) and deleted before 2.7 (pytorch/pytorch#143426). On torch 2.13
`torch._export` has no such attribute. Its last implementations already traced the same pre-dispatch (training) IR
that `torch.export.export` produces.

## Fix safety
Review. The graph is the training IR in both cases, and the returned module, like the old one, rejects `.train()` /
`.eval()`. Check: `export` specializes shapes unless you pass `dynamic_shapes`; the old function ran TorchDynamo
(strict tracing), and `export` is strict by default only up to 2.7 — from 2.8 it traces non-strictly (select the
opt-in `export-strict-default` pass to keep strict tracing). Calls with `*args`/`**kwargs` get a finding instead.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, REVIEW, Example, Pass
from torchmigrate.python.helpers import fix_commas, has_star_args, kwarg, make_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="capture-pre-autograd",
    release="2.7",
    since="2.6",
    safety=REVIEW,
    kind=REMOVAL,
    title="capture_pre_autograd_graph(m, args) → torch.export.export(m, args).module()",
    evidence=(
        "PyTorch 2.7 release notes (removal, pytorch/pytorch#143426); deprecation warning pytorch/pytorch#125602"
        "; since 2.6: export() runs _export_for_training (torch 2.6.0 wheel, torch/export/_trace.py:1969), the tracer "
        "capture_pre_autograd_graph used from 2.5 (torch/_export/__init__.py)"
    ),
    review_note="export() specializes shapes unless dynamic_shapes is given, and traces non-strictly from 2.8 on",
    examples=[
        Example(
            before="""
                import torch
                from torch._export import capture_pre_autograd_graph

                m = capture_pre_autograd_graph(model, (x,))
            """,
            after="""
                import torch

                m = torch.export.export(model, (x,)).module()
            """,
        ),
        Example(
            title="full path, kwargs and dynamic_shapes",
            before="""
                import torch

                gm = torch._export.capture_pre_autograd_graph(model, (x,), {"mask": m}, dynamic_shapes=shapes)
            """,
            after="""
                import torch

                gm = torch.export.export(model, (x,), {"mask": m}, dynamic_shapes=shapes).module()
            """,
        ),
        Example(
            title="positional dynamic_shapes becomes a keyword; alias without `import torch`",
            before="""
                from torch._export import capture_pre_autograd_graph as capture

                gm = capture(model, example_args, None, shapes)
            """,
            after="""
                from torch.export import export

                gm = export(model, example_args, None, dynamic_shapes=shapes).module()
            """,
        ),
        Example(
            title="**kwargs: finding",
            before="""
                import torch

                gm = torch._export.capture_pre_autograd_graph(model, **options)
            """,
            findings=1,
        ),
        Example(
            title="a method of the same name is not touched",
            before="""
                manager = manager.capture_pre_autograd_graph()
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch._export.capture_pre_autograd_graph")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if has_star_args(call):
        ctx.finding(
            "capture_pre_autograd_graph(...) with *args/**kwargs: rewrite it yourself as "
            "torch.export.export(mod, args, kwargs, dynamic_shapes=...).module()"
        )
        return None
    args = list(call.args)
    positional = [a for a in args if a.keyword is None]
    if len(positional) >= 4 and kwarg(call, "dynamic_shapes") is None:
        fourth = positional[3]
        args[args.index(fourth)] = make_kwarg("dynamic_shapes", fourth.value).with_changes(comma=fourth.comma)
    exported = call.with_changes(func=ctx.ref("torch.export.export"), args=fix_commas(args))
    ctx.message = "capture_pre_autograd_graph → torch.export.export(...).module()"
    return cst.Call(func=cst.Attribute(value=exported, attr=cst.Name("module")))
