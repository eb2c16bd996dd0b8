"""`torch.testing.assert_allclose` is deprecated since PyTorch 1.12: use `torch.testing.assert_close`.

## What it does
`assert_allclose(actual, expected, rtol, atol, equal_nan, msg)` →
`assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True, check_dtype=False)`: positional arguments become
keywords (`assert_close` takes only `actual, expected` positionally), and the two flags that differ from
`assert_close`'s defaults are written out. An explicit `equal_nan=` is kept; `msg=` is kept (`msg=""` meant no message).
A number, list or tuple literal given as `actual` or `expected` is wrapped in `torch.as_tensor(...)`, because
`assert_allclose` converted its inputs to tensors and `assert_close` refuses to compare a tensor with a number or list.

## Why
Deprecated in 1.12 (pytorch/pytorch#61844, the upgrade guide); torch 2.13 warns "`torch.testing.assert_allclose()` is
deprecated since 1.12 and will be removed in a future release. Please use `torch.testing.assert_close()` instead.".

## Fix safety
Review. With both `rtol` and `atol` given the check is the same one (on torch 2.13 `assert_allclose` calls
`assert_close(..., equal_nan=equal_nan, check_device=True, check_dtype=False, check_stride=False)`). Without them,
`assert_allclose` used its own per-dtype defaults (float32: `rtol=1e-4, atol=1e-5`; float64: `1e-5, 1e-8`; float16:
`1e-3, 1e-3`) while `assert_close` uses `1.3e-6, 1e-5` / `1e-7, 1e-7` / `1e-3, 1e-5`: a float32 test comparing values
that differ by more than ~1e-6 relative can now fail — pass the old tolerances explicitly where that matters. Inputs
that are variables holding numbers, lists or NumPy arrays next to a tensor are not converted: `assert_close` raises a
TypeError for them. A call with only one of `rtol` / `atol` raised a ValueError already: finding.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import bind, fix_commas, make_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="assert-allclose",
    release="1.12",
    since="1.10",
    kind=DEPRECATION,
    safety=REVIEW,
    title="torch.testing.assert_allclose → assert_close(..., equal_nan=True, check_dtype=False)",
    evidence=(
        "PyTorch 1.12 release notes (deprecation; upgrade guide pytorch/pytorch#61844); implementation checked on torch 2.13"
        "; since 1.10: assert_close's check_stride defaults to False from 1.10 (torch 1.10.2 wheel, "
        "torch/testing/_asserts.py:704; 1.9 checked strides)"
    ),
    review_note=(
        "without rtol/atol, assert_close's default tolerances are tighter than assert_allclose's for float32 "
        "(rtol 1.3e-6 instead of 1e-4): pass rtol=1e-4, atol=1e-5 where a test needs the old slack"
    ),
    examples=[
        Example(
            title="positional tolerances",
            before="""
                import torch

                torch.testing.assert_allclose(out, ref, 1e-3, 1e-5)
            """,
            after="""
                import torch

                torch.testing.assert_close(out, ref, rtol=1e-3, atol=1e-5, equal_nan=True, check_dtype=False)
            """,
        ),
        Example(
            title="from-import, no tolerances, explicit equal_nan kept",
            before="""
                from torch.testing import assert_allclose

                assert_allclose(a, b, equal_nan=False)
            """,
            after="""
                from torch.testing import assert_close

                assert_close(a, b, equal_nan=False, check_dtype=False)
            """,
        ),
        Example(
            title="a literal expected value becomes a tensor; empty msg dropped",
            before="""
                import torch as th

                th.testing.assert_allclose(loss, 0.5, msg='')
            """,
            after="""
                import torch as th

                th.testing.assert_close(loss, th.as_tensor(0.5), equal_nan=True, check_dtype=False)
            """,
        ),
        Example(
            title="only rtol: finding (this raised ValueError already)",
            before="""
                import torch

                torch.testing.assert_allclose(a, b, rtol=1e-3)
            """,
            findings=1,
        ),
        Example(
            title="look-alike: numpy's assert_allclose",
            before="""
                import numpy as np

                np.testing.assert_allclose(a, b)
            """,
        ),
    ],
)

_PARAMS = ("actual", "expected", "rtol", "atol", "equal_nan", "msg")


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _is_literal(node.expression)
    return isinstance(node, (cst.Integer, cst.Float, cst.List, cst.Tuple))


@PASS.rewrites_calls("torch.testing.assert_allclose")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if any(a.star for a in call.args):
        ctx.finding("assert_allclose(*args/**kwargs): rewrite to torch.testing.assert_close(...) by hand")
        return None
    bound = bind(call, _PARAMS)
    if not bound.exact or not {"actual", "expected"} <= bound.args.keys():
        return None
    values: dict[str, cst.BaseExpression] = {name: a.value for name, a in bound.args.items()}
    if ("rtol" in values) != ("atol" in values):
        ctx.finding("assert_allclose with only one of rtol/atol raises ValueError: give both (or neither) to assert_close")
        return None
    args: list[cst.Arg] = []
    for name in ("actual", "expected"):
        value = values[name]
        if _is_literal(value):
            value = cst.Call(func=ctx.ref("torch.as_tensor"), args=[cst.Arg(value)])
        args.append(cst.Arg(value))
    for name in ("rtol", "atol"):
        if name in values:
            args.append(make_kwarg(name, values[name]))
    args.append(make_kwarg("equal_nan", values.get("equal_nan", cst.Name("True"))))
    args.append(make_kwarg("check_dtype", cst.Name("False")))
    msg = values.get("msg")
    if msg is not None and not (isinstance(msg, cst.SimpleString) and msg.evaluated_value == ""):
        args.append(make_kwarg("msg", msg))
    ctx.message = "assert_allclose → assert_close(..., equal_nan=True, check_dtype=False)"
    if "rtol" not in bound:
        ctx.message += "; default tolerances now assert_close's (tighter for float32)"
    return call.with_changes(func=ctx.ref("torch.testing.assert_close"), args=fix_commas(args))
