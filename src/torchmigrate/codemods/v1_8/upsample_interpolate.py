"""`F.upsample`, `F.upsample_nearest` and `F.upsample_bilinear` are deprecated: use `F.interpolate`.

## What it does
- `F.upsample(x, size, scale_factor, mode, align_corners)` → `F.interpolate(...)` with the same arguments (the old
  function forwards them unchanged, in the same order);
- `F.upsample_nearest(x, size, scale_factor)` → `F.interpolate(x, size, scale_factor, mode="nearest")`;
- `F.upsample_bilinear(x, size, scale_factor)` → `F.interpolate(x, size, scale_factor, mode="bilinear",
  align_corners=True)` — the old function always aligned corners; `interpolate` does not by default, so the keyword is
  what keeps the result identical.
All import forms resolve (`import torch.nn.functional as F`, `from torch.nn.functional import upsample_bilinear`,
`th.nn.functional…`); a method or function of your own with the same name is left alone.

## Why
Deprecated since PyTorch 0.4.1 in favour of `interpolate`; on torch 2.13 each old function still warns
(`UserWarning: nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.`) and its body is one
call of `interpolate` with the arguments above (`inspect.getsource`, torch 2.13 `torch/nn/functional.py`). torchmigrate
files changes older than its 1.8 floor under 1.8.

## Fix safety
Safe: the new call is the one the old function made (results checked equal with `torch.equal` on torch 2.13).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import make_kwarg, with_args
from torchmigrate.python.transform import CallContext

_F = "torch.nn.functional"

PASS = Pass(
    id="upsample-interpolate",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="F.upsample / upsample_nearest / upsample_bilinear → F.interpolate (same results)",
    evidence=(
        "deprecated since PyTorch 0.4.1; torch 2.13 torch/nn/functional.py: upsample_nearest returns "
        "interpolate(input, size, scale_factor, mode='nearest'), upsample_bilinear interpolate(..., mode='bilinear', "
        "align_corners=True), upsample interpolate(input, size, scale_factor, mode, align_corners); UserWarning checked"
        "; since 1.8: F.interpolate(align_corners=) in every release the tool knows (torch 1.9.0 wheel, torch/nn/functional.py)"
    ),
    renames={f"{_F}.upsample": f"{_F}.interpolate"},
    examples=[
        Example(
            before="""
                import torch.nn.functional as F

                y = F.upsample(x, scale_factor=2, mode='bilinear', align_corners=False)
                z = F.upsample_nearest(x, scale_factor=2)
                w = F.upsample_bilinear(x, size=(64, 64))
            """,
            after="""
                import torch.nn.functional as F

                y = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
                z = F.interpolate(x, scale_factor=2, mode="nearest")
                w = F.interpolate(x, size=(64, 64), mode="bilinear", align_corners=True)
            """,
        ),
        Example(
            title="from-imports and positional arguments",
            before="""
                from torch.nn.functional import upsample, upsample_bilinear

                a = upsample(x, None, 2, 'nearest')
                b = upsample_bilinear(x, None, 2)
            """,
            after="""
                from torch.nn.functional import interpolate

                a = interpolate(x, None, 2, 'nearest')
                b = interpolate(x, None, 2, mode="bilinear", align_corners=True)
            """,
        ),
        Example(
            title="import torch as th; nested calls",
            before="""
                import torch as th

                y = th.nn.functional.upsample_nearest(th.nn.functional.upsample(x, scale_factor=2), scale_factor=2)
            """,
            after="""
                import torch as th

                y = th.nn.functional.interpolate(th.nn.functional.interpolate(x, scale_factor=2), scale_factor=2, mode="nearest")
            """,
        ),
        Example(
            title="look-alikes: a method, another library's upsample",
            before="""
                import torch.nn.functional as F
                from mylib import upsample_bilinear

                y = self.upsample(x)
                z = upsample_bilinear(x, 2)
                w = F.interpolate(x, scale_factor=2)
            """,
        ),
    ],
)

_MODES = {
    f"{_F}.upsample_nearest": (("mode", '"nearest"'),),
    f"{_F}.upsample_bilinear": (("mode", '"bilinear"'), ("align_corners", "True")),
}


@PASS.rewrites_calls(*_MODES)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    keywords = [make_kwarg(name, cst.parse_expression(value)) for name, value in _MODES[ctx.qualname]]
    old = ctx.qualname.rpartition(".")[2]
    ctx.message = f"{old}(...) → interpolate(..., {', '.join(f'{n}={v}' for n, v in _MODES[ctx.qualname])})"
    return with_args(call, [*call.args, *keywords]).with_changes(func=ctx.ref(f"{_F}.interpolate"))
