"""`definitely_true` / `definitely_false` were removed from `torch.fx.experimental.symbolic_shapes` in PyTorch 2.8.

## What it does
- `definitely_true(x)` → `guard_or_false(x)`
- `definitely_false(x)` → `not guard_or_true(x)` (parenthesised where the context needs it)

and rewrites the imports (`from torch.fx.experimental.symbolic_shapes import definitely_true` →
`... import guard_or_false`).

## Why
2.8 consolidated the two families (release notes, BC-breaking "`guard_or_x` and `definitely_x` have been
consolidated", pytorch/pytorch#152463): "We removed `definitely_true` / `definitely_false` and associated APIs,
replacing them with `guard_or_true` / `guard_or_false`". The release note gives exactly this mapping. On torch 2.13
the module has `guard_or_false`, `guard_or_true`, `statically_known_true/false` and no `definitely_*`.

## Fix safety
Review. On torch 2.13 `guard_or_false(x)` evaluates `x` (guarding on backed symbols) and returns `False` when that
would raise a data-dependent error; `not guard_or_true(x)` is `True` only when `x` is known to be false. The release
note calls this "similar functionality" that "can be used to achieve the same effect", so check code that relied on
the exact guards the old functions installed. A use of `definitely_false` other than a call (passed as a function)
is not rewritten.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, REVIEW, Example, Pass
from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.transform import CallContext

MODULE = "torch.fx.experimental.symbolic_shapes"

PASS = Pass(
    id="fx-definitely",
    release="2.8",
    since="2.8",
    safety=REVIEW,
    kind=REMOVAL,
    title="definitely_true(x) → guard_or_false(x); definitely_false(x) → not guard_or_true(x)",
    evidence=(
        "PyTorch 2.8 release notes, BC-breaking (pytorch/pytorch#152463)"
        "; since 2.8: guard_or_false/guard_or_true (torch 2.8.0 wheel, torch/fx/experimental/symbolic_shapes.py)"
    ),
    review_note="guard_or_* is the documented replacement; check code relying on the exact guards added",
    examples=[
        Example(
            title="the release note's example",
            before="""
                from torch.fx.experimental.symbolic_shapes import definitely_false, definitely_true

                if definitely_true(x):
                    pass

                if definitely_false(y):
                    pass
            """,
            after="""
                from torch.fx.experimental.symbolic_shapes import guard_or_false, guard_or_true

                if guard_or_false(x):
                    pass

                if not guard_or_true(y):
                    pass
            """,
        ),
        Example(
            title="module alias; `not` is parenthesised inside a comparison",
            before="""
                import torch.fx.experimental.symbolic_shapes as ss

                same = ss.definitely_false(a == b) == flag
                ok = ss.definitely_true(n > 0) and ready
            """,
            after="""
                import torch.fx.experimental.symbolic_shapes as ss

                same = (not ss.guard_or_true(a == b)) == flag
                ok = ss.guard_or_false(n > 0) and ready
            """,
        ),
        Example(
            title="a local helper of the same name is not touched",
            before="""
                def definitely_true(x):
                    return bool(x)

                flag = definitely_true(y)
            """,
        ),
    ],
)

_NO_PARENS = (
    cst.If,
    cst.While,
    cst.Assert,
    cst.Return,
    cst.Assign,
    cst.AnnAssign,
    cst.Arg,
    cst.BooleanOperation,
    cst.UnaryOperation,
    cst.Expr,
    cst.IfExp,
    cst.Element,
)


def _ref(ctx: CallContext, name: str) -> cst.BaseExpression:
    """A from-import for a bare-name callee (keep the file's style), else the file's own module alias."""
    if isinstance(ctx.original.func, cst.Name) and name not in ctx.transformer.global_names():
        add_needed_import(ctx.transformer.context, MODULE, name)
        return cst.Name(name)
    return ctx.ref(f"{MODULE}.{name}")


@PASS.rewrites_calls(f"{MODULE}.definitely_true")
def rewrite_true(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    ctx.message = "definitely_true → guard_or_false"
    return call.with_changes(func=_ref(ctx, "guard_or_false"))


@PASS.rewrites_calls(f"{MODULE}.definitely_false")
def rewrite_false(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    ctx.message = "definitely_false(x) → not guard_or_true(x)"
    negated: cst.BaseExpression = cst.UnaryOperation(
        operator=cst.Not(), expression=call.with_changes(func=_ref(ctx, "guard_or_true"))
    )
    if not isinstance(ctx.parent(), _NO_PARENS):
        negated = negated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return negated
