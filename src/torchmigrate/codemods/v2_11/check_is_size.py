"""`torch._check_is_size(i)` is deprecated (FutureWarning): use `torch._check(i >= 0)`.

## What it does
- `torch._check_is_size(i)` → `torch._check(i >= 0)`
- `torch._check_is_size(i, message)` → `torch._check(i >= 0, message)`
- `torch._check_is_size(i, max=m)` → a finding: write `torch._check(i >= 0)` and `torch._check(i <= m)`.

## Why
`_check_is_size` was deprecated together with `guard_size_oblivious` (pytorch/pytorch#167198, relanded as #169400,
merged December 2025; downstream projects first met the warning on 2.11). On torch 2.13 it warns
`FutureWarning: _check_is_size will be removed in a future PyTorch release along with guard_size_oblivious. Use
_check(i >= 0) instead.` Its body is `_check(i >= 0, message)` followed by `_advise_is_size(i)`, a hint for the
size-oblivious reasoning that PyTorch itself no longer uses.

## Fix safety
Review: the check itself is identical; only the size-oblivious hint for unbacked symbols goes away, which matters
only for code still relying on `guard_size_oblivious` under `torch.compile` / `torch.export`.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import fix_commas, kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="check-is-size",
    release="2.11",
    since="2.1",
    safety=REVIEW,
    kind=DEPRECATION,
    title="torch._check_is_size(i) → torch._check(i >= 0)",
    evidence=(
        "pytorch/pytorch#167198 / #169400 (FutureWarning, first seen on 2.11); torch 2.13 warning text"
        "; since 2.1: torch._check (torch 2.1.2 wheel, torch/__init__.py)"
    ),
    review_note="drops the size-oblivious hint (_advise_is_size) that only guard_size_oblivious used",
    examples=[
        Example(
            before="""
                import torch

                n = t.item()
                torch._check_is_size(n)
                out = x.narrow(0, 0, n)
            """,
            after="""
                import torch

                n = t.item()
                torch._check(n >= 0)
                out = x.narrow(0, 0, n)
            """,
        ),
        Example(
            title="message kept; compound expression",
            before="""
                import torch as th

                th._check_is_size(a - b, lambda: 'negative')
            """,
            after="""
                import torch as th

                th._check(a - b >= 0, lambda: 'negative')
            """,
        ),
        Example(
            title="a conditional expression is parenthesised",
            before="""
                import torch

                torch._check_is_size(a if flag else b)
            """,
            after="""
                import torch

                torch._check((a if flag else b) >= 0)
            """,
        ),
        Example(
            title="max= needs two checks: finding",
            before="""
                import torch

                torch._check_is_size(i, max=n - 1)
            """,
            findings=1,
        ),
    ],
)

_NEEDS_PARENS = (cst.IfExp, cst.Lambda, cst.BooleanOperation, cst.Comparison, cst.UnaryOperation, cst.NamedExpr)


@PASS.rewrites_calls("torch._check_is_size")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None]
    if kwarg(call, "max") is not None or any(a.star for a in call.args) or not positional:
        ctx.finding(
            "torch._check_is_size(i, max=m) is deprecated: write torch._check(i >= 0) and torch._check(i <= m)"
            if kwarg(call, "max") is not None
            else "torch._check_is_size(...) is deprecated: use torch._check(i >= 0[, message])"
        )
        return None
    value = positional[0].value
    if isinstance(value, _NEEDS_PARENS) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    check = cst.Comparison(
        left=value,
        comparisons=[
            cst.ComparisonTarget(
                operator=cst.GreaterThanEqual(
                    whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")
                ),
                comparator=cst.Integer("0"),
            )
        ],
    )
    args = [positional[0].with_changes(value=check), *(a for a in call.args if a is not positional[0])]
    message = kwarg(call, "message")
    if message is not None:
        args[args.index(message)] = message.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
    ctx.message = "_check_is_size(i) → _check(i >= 0)"
    return call.with_changes(func=ctx.ref("torch._check"), args=fix_commas(args))
