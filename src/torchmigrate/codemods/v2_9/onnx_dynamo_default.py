"""`torch.onnx.export` uses the torch.export-based exporter by default since PyTorch 2.9; `dynamo_export` is gone.

## What it does
- `torch.onnx.export(...)` calls that pass an argument only the TorchScript exporter honours (`dynamic_axes`,
  `training`, `operator_export_type`, `do_constant_folding`, `custom_opsets`, `export_modules_as_functions`,
  `autograd_inlining`) and do not choose `dynamo` themselves get `dynamo=False`: they keep the exporter they were
  written for.
- Other `torch.onnx.export(...)` calls without `dynamo=` get a finding: they now go through `torch.export` and need
  the `onnxscript` package; add `dynamo=False` to keep the 2.8 exporter, or keep the new default (recommended).
- `torch.onnx.dynamo_export(model, *args, **kwargs)` → `torch.onnx.export(model, (args,), kwargs={...}, dynamo=True)`.
  A call with `export_options=` or `*`/`**` arguments gets a finding.

## Why
2.9 made `dynamo=True` the default (release notes, BC-breaking, pytorch/pytorch#159646, #162726: "To preserve the
original behavior `torch.onnx.export(..., dynamo=False)`") and removed `torch.onnx.dynamo_export`
(pytorch/pytorch#158130: "Please use `torch.onnx.export` instead"). 2.10 deprecated `dynamic_axes` in favour of
`dynamic_shapes` (pytorch/pytorch#165769). On torch 2.13 the signature is `export(model, args=(), f=None, *, kwargs,
..., dynamo=True, ..., dynamic_axes, training, operator_export_type, do_constant_folding, custom_opsets,
export_modules_as_functions, autograd_inlining)`, the docstring lists the last six as TorchScript-exporter options,
and `torch.onnx` has no `dynamo_export`.

## Fix safety
Review. `dynamo=False` reproduces the 2.8 export exactly, but the legacy exporter warns
(`DeprecationWarning: You are using the legacy TorchScript-based ONNX export`) on torch 2.13: plan the move to
`dynamic_shapes` and the new exporter. `dynamo_export` → `export(..., dynamo=True)` returns an `ONNXProgram` as before;
check code that used `ExportOptions`.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import fix_commas, has_star_args, kwarg, make_kwarg, with_kwarg
from torchmigrate.python.transform import CallContext

TORCHSCRIPT_ONLY = (
    "dynamic_axes",
    "training",
    "operator_export_type",
    "do_constant_folding",
    "custom_opsets",
    "export_modules_as_functions",
    "autograd_inlining",
)

PASS = Pass(
    id="onnx-dynamo-default",
    follows_uses="bound",  # **kwargs dicts' changes (star_keys)
    release="2.9",
    since="2.7",
    safety=REVIEW,
    kind=BEHAVIOUR,
    title="torch.onnx.export(..., dynamic_axes=...) → add dynamo=False; dynamo_export(...) → export(..., dynamo=True)",
    evidence=(
        "PyTorch 2.9 release notes, BC-breaking (pytorch/pytorch#159646, #162726; dynamo_export removed #158130); "
        "2.10 notes (dynamic_axes deprecated, #165769)"
        "; since 2.7: export(dynamo=, kwargs=) exist from 2.5 (torch 2.5.1 wheel, torch/onnx/__init__.py), and "
        "dynamo_export uses the same torch.export-based exporter by default from 2.7 (torch 2.7.1 wheel, "
        "torch/onnx/_flags.py: USE_EXPERIMENTAL_LOGIC default True)"
    ),
    triggers=("onnx",),
    review_note="dynamo=False keeps the 2.8 exporter, which torch 2.13 flags as deprecated: plan the move to dynamic_shapes",
    examples=[
        Example(
            title="dynamic_axes is a TorchScript-exporter option: keep that exporter",
            before="""
                import torch

                torch.onnx.export(model, (x,), "m.onnx", input_names=["x"], dynamic_axes={"x": {0: "batch"}})
            """,
            after="""
                import torch

                torch.onnx.export(model, (x,), "m.onnx", input_names=["x"], dynamic_axes={"x": {0: "batch"}}, dynamo=False)
            """,
        ),
        Example(
            title="from-import, operator_export_type",
            before="""
                from torch.onnx import export as onnx_export

                onnx_export(model, args, f, operator_export_type=OperatorExportTypes.ONNX_ATEN_FALLBACK)
            """,
            after="""
                from torch.onnx import export as onnx_export

                onnx_export(model, args, f, operator_export_type=OperatorExportTypes.ONNX_ATEN_FALLBACK, dynamo=False)
            """,
        ),
        Example(
            title="a plain call changes exporter: finding",
            before="""
                import torch

                torch.onnx.export(model, (x,), "m.onnx", opset_version=17)
            """,
            findings=1,
        ),
        Example(
            title="an explicit choice is kept, also through a **kwargs dict built in view",
            before="""
                import torch

                torch.onnx.export(model, (x,), "m.onnx", dynamic_axes=axes, dynamo=False)


                def export(model, x, legacy):
                    options = {"opset_version": 17, "dynamo": not legacy}
                    torch.onnx.export(model, (x,), "m.onnx", **options)
            """,
        ),
        Example(
            title="dynamo_export with positional and keyword inputs",
            before="""
                import torch

                prog = torch.onnx.dynamo_export(model, x, y, mask=m)
                prog.save("m.onnx")
            """,
            after="""
                import torch

                prog = torch.onnx.export(model, (x, y), kwargs={"mask": m}, dynamo=True)
                prog.save("m.onnx")
            """,
        ),
        Example(
            title="dynamo_export, from-import alias, one input",
            before="""
                from torch.onnx import dynamo_export as dx

                prog = dx(model, x)
            """,
            after="""
                from torch.onnx import export

                prog = export(model, (x,), dynamo=True)
            """,
        ),
        Example(
            title="export_options has no direct equivalent: finding",
            before="""
                import torch

                prog = torch.onnx.dynamo_export(model, x, export_options=opts)
            """,
            findings=1,
        ),
        Example(
            title="torch.export.export and other libraries' export are not touched",
            before="""
                import torch
                import mylib.onnx

                ep = torch.export.export(model, (x,))
                mylib.onnx.export(model, x, dynamic_axes=axes)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.onnx.export", "torch.onnx.utils.export")
def rewrite_export(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if kwarg(call, "dynamo") is not None:
        return None
    if has_star_args(call):
        if ctx.star_keys().sets("dynamo"):
            return None  # the **kwargs dict built above chooses the exporter
        ctx.finding(
            "torch.onnx.export(...) with *args/**kwargs: since 2.9 dynamo=True is the default; pass dynamo=False "
            "explicitly if these arguments carry TorchScript-exporter options (dynamic_axes, operator_export_type, ...)"
        )
        return None
    legacy = [name for name in TORCHSCRIPT_ONLY if kwarg(call, name) is not None]
    if not legacy:
        ctx.finding(
            "since 2.9 torch.onnx.export uses the torch.export-based exporter by default (needs onnxscript); "
            "add dynamo=False to keep the TorchScript exporter of 2.8, or adopt the new default"
        )
        return None
    ctx.message = f"torch.onnx.export: dynamo=False keeps the TorchScript exporter ({', '.join(legacy)})"
    return with_kwarg(call, "dynamo", "False")


@PASS.rewrites_calls("torch.onnx.dynamo_export")
def rewrite_dynamo_export(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if has_star_args(call) or not positional or kwarg(call, "export_options") is not None:
        ctx.finding(
            "torch.onnx.dynamo_export was removed in 2.9: call torch.onnx.export(model, args_tuple, kwargs=..., "
            "dynamo=True) (ExportOptions(dynamic_shapes=True) → dynamic_shapes=...)"
        )
        return None
    model, inputs = positional[0], positional[1:]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [cst.Element(a.value, comma=comma) for a in inputs]
    if len(elements) == 1:
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    elif elements:
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    args = [model.with_changes(comma=cst.MaybeSentinel.DEFAULT), cst.Arg(cst.Tuple(elements))]
    keywords = [a for a in call.args if a.keyword is not None]
    if keywords:
        entries = [
            cst.DictElement(cst.SimpleString(f'"{a.keyword.value}"'), a.value, comma=comma)
            for a in keywords
            if a.keyword is not None
        ]
        entries[-1] = entries[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        args.append(make_kwarg("kwargs", cst.Dict(entries)))
    args.append(make_kwarg("dynamo", cst.Name("True")))
    ctx.message = "torch.onnx.dynamo_export(...) → torch.onnx.export(..., dynamo=True)"
    return cst.Call(func=ctx.ref("torch.onnx.export"), args=fix_commas(args))
