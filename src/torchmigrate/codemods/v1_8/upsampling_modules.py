"""`nn.UpsamplingNearest2d` / `nn.UpsamplingBilinear2d` are deprecated in favour of `nn.Upsample`.

## What it does
- `nn.UpsamplingNearest2d(size, scale_factor)` → `nn.Upsample(size, scale_factor, mode="nearest")`;
- `nn.UpsamplingBilinear2d(size, scale_factor)` → `nn.Upsample(size, scale_factor, mode="bilinear",
  align_corners=True)`.
Only constructor calls change: a subclass of the old classes, an `isinstance` check or another use of the class as a
value is left alone.

## Why
Both classes are documented as deprecated ("This class is deprecated in favor of `interpolate()`"); on torch 2.13
each is a subclass of `nn.Upsample` whose `__init__` is `super().__init__(size, scale_factor, mode="nearest")`,
respectively `(..., mode="bilinear", align_corners=True)` (torch/nn/modules/upsampling.py). They do not warn at
run time. torchmigrate files changes older than its 1.8 floor under 1.8.

## Fix safety
Review: the output is identical (`torch.equal` on torch 2.13) and neither class has parameters or buffers, so
state dicts do not change; but the module's class does — `repr(model)` prints `Upsample(...)`, and code that checks
`isinstance(m, nn.UpsamplingBilinear2d)` or `type(m).__name__` no longer matches the new module.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import make_kwarg, with_args
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="upsampling-modules",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=REVIEW,
    title="nn.UpsamplingNearest2d / UpsamplingBilinear2d → nn.Upsample(..., mode=...)",
    evidence=(
        "torch 2.13 torch/nn/modules/upsampling.py: both classes documented as deprecated; their __init__ calls "
        "Upsample.__init__(size, scale_factor, mode='nearest') / (mode='bilinear', align_corners=True); outputs "
        "checked equal"
        "; since 1.8: nn.Upsample(align_corners=) in every release the tool knows (torch 1.9.0 wheel, torch/nn/modules/upsampling.py)"
    ),
    review_note="the module's class changes (repr, isinstance checks); outputs and state dicts are the same",
    examples=[
        Example(
            before="""
                import torch.nn as nn

                up = nn.UpsamplingBilinear2d(scale_factor=2)
                up2 = nn.UpsamplingNearest2d(size=(32, 32))
            """,
            after="""
                import torch.nn as nn

                up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
                up2 = nn.Upsample(size=(32, 32), mode="nearest")
            """,
        ),
        Example(
            title="from-import, positional arguments, inside nn.Sequential",
            before="""
                from torch.nn import Conv2d, Sequential, UpsamplingNearest2d

                net = Sequential(UpsamplingNearest2d(None, 2), Conv2d(3, 3, 1))
            """,
            after="""
                from torch.nn import Upsample, Conv2d, Sequential

                net = Sequential(Upsample(None, 2, mode="nearest"), Conv2d(3, 3, 1))
            """,
        ),
        Example(
            title="a subclass and an isinstance check are left alone; so is a class of your own",
            before="""
                import torch
                from mylib import UpsamplingBilinear2d as Up


                class MyUp(torch.nn.UpsamplingBilinear2d):
                    pass


                ok = isinstance(m, torch.nn.UpsamplingNearest2d)
                u = Up(scale_factor=2)
            """,
        ),
    ],
)

_MODES = {
    "UpsamplingNearest2d": (("mode", '"nearest"'),),
    "UpsamplingBilinear2d": (("mode", '"bilinear"'), ("align_corners", "True")),
}


@PASS.rewrites_calls(*(f"torch.nn.{name}" for name in _MODES), *(f"torch.nn.modules.upsampling.{name}" for name in _MODES))
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = ctx.qualname.rpartition(".")[2]
    keywords = [make_kwarg(name, cst.parse_expression(value)) for name, value in _MODES[old]]
    ctx.message = f"nn.{old}(...) → nn.Upsample(..., {', '.join(f'{n}={v}' for n, v in _MODES[old])})"
    return with_args(call, [*call.args, *keywords]).with_changes(func=ctx.ref("torch.nn.Upsample"))
