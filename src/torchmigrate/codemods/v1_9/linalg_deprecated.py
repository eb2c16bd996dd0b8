"""The deprecated `torch.cholesky/qr/lu/lu_solve/triangular_solve/chain_matmul/ger/range` → `torch.linalg` & co.

## What it does
| before | after |
|---|---|
| `torch.cholesky(A)` / `torch.cholesky(A, upper=u)` | `torch.linalg.cholesky(A)` / `torch.linalg.cholesky(A, upper=u)` |
| `torch.qr(A)` / `torch.qr(A, some=False)` / `torch.qr(A, s)` | `torch.linalg.qr(A)` / `torch.linalg.qr(A, "complete")` / `torch.linalg.qr(A, "reduced" if s else "complete")` |
| `torch.lu(A, pivot=p)` / `torch.lu(A, get_infos=True)` | `torch.linalg.lu_factor_ex(A, pivot=p)[:2]` / `torch.linalg.lu_factor_ex(A)` |
| `torch.lu_solve(B, LU, piv)` | `torch.linalg.lu_solve(LU, piv, B)` (arguments reversed) |
| `torch.triangular_solve(B, A, upper, transpose, unitriangular).solution` (or `[0]`, or `X, _ = …`) | `torch.linalg.solve_triangular(A, B, upper=upper, unitriangular=…)`; with `transpose=True`: `solve_triangular(A.mT, B, upper=not upper)` |
| `torch.chain_matmul(a, b, c)` | `torch.linalg.multi_dot([a, b, c])` |
| `torch.ger(a, b)` | `torch.outer(a, b)` |
| `torch.range(0, 5)` / `torch.range(1, 10, 3)` (integer literals) | `torch.arange(0.0, 6.0)` / `torch.arange(1.0, 11.0, 3)` |

Findings (with the replacement to write) for what cannot be mapped exactly: `torch.range` with non-integer or
non-literal bounds (`arange` excludes the end, so the new end depends on the values: `torch.range(0, 1, 0.1)` has 11
elements, `torch.arange(0, 1.1, 0.1)` may have 11 or 12), `triangular_solve` whose second output is used,
`lu(..., get_infos=<expression>)`, `out=` where the new function has a different output structure, and
`chain_matmul` with a single or starred argument (`multi_dot` needs at least two tensors). Tensor methods
(`A.cholesky()`, `a.ger(b)`) are not rewritten: without types a method call cannot be told from a look-alike.

## Why
These functions are deprecated in favour of `torch.linalg`: `torch.cholesky` and its siblings in the 1.9 deprecation
series that came with `torch.linalg` (pytorch/pytorch#57725, #57549), `triangular_solve`, `lu` and `lu_solve` later
(`triangular_solve` by 1.11); `ger` and `range` are documented deprecated aliases. On torch 2.13 each
call except `ger` warns `UserWarning: torch.X is deprecated in favor of torch.linalg.Y and will be removed in a future
PyTorch release`, with the upgrade rule this pass applies (see the `torch.cholesky` / `torch.qr` / `torch.lu` /
`torch.lu_solve` / `torch.triangular_solve` / `torch.chain_matmul` warnings and `torch.range`'s).

2.14 removed `torch.cholesky` and `torch.qr` (they raise `RuntimeError`); `cholesky-qr-removed` (2.14) reuses this
pass's rewriters for them and also migrates the Tensor methods (`A.cholesky()`, `A.qr()`) where `A` is visibly a tensor.

The pass is filed under 1.9, when the deprecations began, but some replacements are younger
(`linalg.cholesky(upper=)` in 1.10, pytorch/pytorch#62434; `torch.linalg.solve_triangular`, `lu_factor_ex` and `.mT`
by 1.11): migrating *to* 1.9 or 1.10 is not
supported for those rows; every `--to` from 2.0 on is.

## Fix safety
Safe: every rewrite gives bit-identical results on torch 2.13 (checked by the semantic tests, including batched,
upper/lower, transposed and unit-triangular cases). Two details keep that exact: `torch.lu` becomes
`lu_factor_ex(...)[:2]` rather than `lu_factor(...)` because `lu_factor` raises on singular matrices where
`torch.lu` did not; and `torch.range` with integer bounds returns the default float dtype, which float literals give
`arange` too.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import has_star_args, kwarg
from torchmigrate.python.transform import CallContext

from ._outputs import (
    FirstOutputTransformer,
    argument,
    call_with,
    first_output_analyser,
    keep_out,
    kw,
    literal_bool,
    negated,
    parenthesized,
    pos,
)

PASS = Pass(
    id="linalg-deprecated",
    release="1.9",
    since="1.13",
    safety=SAFE,
    kind=DEPRECATION,
    title="torch.cholesky/qr/lu/lu_solve/triangular_solve/chain_matmul/ger/range → torch.linalg.* / outer / arange",
    evidence=(
        "torch.linalg deprecation series of 1.9 (pytorch/pytorch#57549; torch.cholesky: #57725), triangular_solve "
        "deprecated by 1.11; the upgrade rules in torch 2.13's UserWarnings"
        "; since 1.13: torch.linalg.lu_solve first ships in 1.13 (torch 1.13.1 wheel, torch/linalg/__init__.py), "
        "lu_factor_ex and solve_triangular in 1.11"
    ),
    # short names (lu, qr, ger, range) only as attribute calls or imports: plain "range" would match every file
    triggers=("cholesky", "lu_solve", "triangular_solve", "chain_matmul")
    + tuple(
        form.format(n) for n in ("lu", "qr", "ger", "range") for form in (".{}(", "import {}", " {},", " {}\n", " {})", "({},")
    ),
    examples=[
        Example(
            title="cholesky (upper) and qr (complete)",
            before="""
                import torch

                U = torch.cholesky(A, upper=True)
                L = torch.cholesky(A)
                Q, R = torch.qr(A, some=False)
            """,
            after="""
                import torch

                U = torch.linalg.cholesky(A, upper=True)
                L = torch.linalg.cholesky(A)
                Q, R = torch.linalg.qr(A, "complete")
            """,
        ),
        Example(
            title="qr with a variable flag; import torch as th",
            before="""
                import torch as th

                q, r = th.qr(A, reduced)
            """,
            after="""
                import torch as th

                q, r = th.linalg.qr(A, "reduced" if reduced else "complete")
            """,
        ),
        Example(
            title="lu and lu_solve (arguments reversed)",
            before="""
                import torch

                LU, piv = torch.lu(A)
                LU2, piv2, info = torch.lu(A, pivot=True, get_infos=True)
                X = torch.lu_solve(B, LU, piv)
            """,
            after="""
                import torch

                LU, piv = torch.linalg.lu_factor_ex(A)[:2]
                LU2, piv2, info = torch.linalg.lu_factor_ex(A, pivot=True)
                X = torch.linalg.lu_solve(LU, piv, B)
            """,
        ),
        Example(
            title="triangular_solve: only the solution is used",
            before="""
                import torch

                X = torch.triangular_solve(B, A).solution
                Y, _ = torch.triangular_solve(B, L, upper=False)
                Z = torch.triangular_solve(B, A, True, True, unitriangular=True)[0]
            """,
            after="""
                import torch

                X = torch.linalg.solve_triangular(A, B, upper=True)
                Y = torch.linalg.solve_triangular(L, B, upper=False)
                Z = torch.linalg.solve_triangular(A.mT, B, upper=False, unitriangular=True)
            """,
        ),
        Example(
            title="triangular_solve whose copy of A is used: finding",
            before="""
                import torch

                X, M = torch.triangular_solve(B, A)
            """,
            findings=1,
        ),
        Example(
            title="chain_matmul, ger, from-imports",
            before="""
                from torch import chain_matmul, ger

                P = chain_matmul(a, b, c)
                O = ger(u, v)
            """,
            after="""
                from torch import outer
                from torch.linalg import multi_dot

                P = multi_dot([a, b, c])
                O = outer(u, v)
            """,
        ),
        Example(
            title="range with integer literals (end inclusive, default float dtype)",
            before="""
                import torch

                r = torch.range(0, 5)
                s = torch.range(1, 10, 3, dtype=torch.int64)
                t = torch.range(5, -5, -2)
            """,
            after="""
                import torch

                r = torch.arange(0.0, 6.0)
                s = torch.arange(1, 11, 3, dtype=torch.int64)
                t = torch.arange(5.0, -6.0, -2)
            """,
        ),
        Example(
            title="range with float or variable bounds: finding",
            before="""
                import torch

                a = torch.range(0, 1, 0.1)
                b = torch.range(0, n - 1)
            """,
            findings=2,
        ),
        Example(
            title="builtin range, methods and user functions are not touched",
            before="""
                def qr(x):
                    return x

                for i in range(3):
                    L = A.cholesky()
                    q = qr(A)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.cholesky")
def cholesky(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    a, upper = argument(call, 0, "input"), argument(call, 1, "upper")
    if a is None or has_star_args(call):
        return None
    args = [pos(a.value)]
    if upper is not None and literal_bool(upper, False) is not False:
        args.append(kw("upper", upper.value))
    args = keep_out(call, args)
    ctx.message = "torch.cholesky → torch.linalg.cholesky"
    return call_with(ctx.ref("torch.linalg.cholesky"), args)


@PASS.rewrites_calls("torch.qr")
def qr(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    a, some = argument(call, 0, "input"), argument(call, 1, "some")
    if a is None or has_star_args(call):
        return None
    args = [pos(a.value)]
    flag = literal_bool(some, True)
    if flag is False:
        args.append(pos(cst.SimpleString('"complete"')))
    elif flag is None and some is not None:
        args.append(pos(cst.IfExp(test=some.value, body=cst.SimpleString('"reduced"'), orelse=cst.SimpleString('"complete"'))))
    args = keep_out(call, args)
    ctx.message = "torch.qr → torch.linalg.qr"
    return call_with(ctx.ref("torch.linalg.qr"), args)


@PASS.rewrites_calls("torch.lu")
def lu(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    a, pivot, infos = argument(call, 0, "A"), argument(call, 1, "pivot"), argument(call, 2, "get_infos")
    if a is None or has_star_args(call) or kwarg(call, "out") is not None:
        ctx.finding("torch.lu(..., out=...) / *args: use torch.linalg.lu_factor_ex(A, pivot=...) (returns LU, pivots, info)")
        return None
    get_infos = literal_bool(infos, False)
    if get_infos is None:
        ctx.finding(
            "torch.lu(A, get_infos=<expression>): use torch.linalg.lu_factor_ex(A) and keep [:2] when infos are not wanted"
        )
        return None
    args = [pos(a.value)]
    if pivot is not None:
        args.append(kw("pivot", pivot.value))
    new: cst.BaseExpression = call_with(ctx.ref("torch.linalg.lu_factor_ex"), args)
    if not get_infos:
        new = cst.Subscript(value=new, slice=[cst.SubscriptElement(cst.Slice(lower=None, upper=cst.Integer("2")))])
    ctx.message = "torch.lu → torch.linalg.lu_factor_ex (exact, does not raise on singular input)"
    return new


@PASS.rewrites_calls("torch.lu_solve")
def lu_solve(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    b, lu_data, pivots = argument(call, 0, "input"), argument(call, 1, "LU_data"), argument(call, 2, "LU_pivots")
    if b is None or lu_data is None or pivots is None or has_star_args(call):
        return None
    args = [pos(lu_data.value), pos(pivots.value), pos(b.value)]
    args = keep_out(call, args)
    ctx.message = "torch.lu_solve(B, LU, piv) → torch.linalg.lu_solve(LU, piv, B)"
    return call_with(ctx.ref("torch.linalg.lu_solve"), args)


@PASS.rewrites_calls("torch.chain_matmul")
def chain_matmul(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    matrices = [a for a in call.args if a.keyword is None]
    if len(matrices) < 2 or any(a.star for a in call.args):
        ctx.finding(
            "torch.chain_matmul with fewer than two (or starred) matrices: torch.linalg.multi_dot(list) needs two or more"
        )
        return None
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [cst.Element(a.value, comma=comma) for a in matrices]
    elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    args = [pos(cst.List(elements))]
    args = keep_out(call, args)
    ctx.message = "torch.chain_matmul(a, b, ...) → torch.linalg.multi_dot([a, b, ...])"
    return call_with(ctx.ref("torch.linalg.multi_dot"), args)


@PASS.rewrites_calls("torch.ger")
def ger(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    ctx.message = "torch.ger → torch.outer"
    return call.with_changes(func=ctx.ref("torch.outer"))


def _int_literal(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def _number(value: int, as_float: bool) -> cst.BaseExpression:
    text = f"{abs(value)}.0" if as_float else str(abs(value))
    literal: cst.BaseExpression = cst.Float(text) if as_float else cst.Integer(text)
    return cst.UnaryOperation(operator=cst.Minus(), expression=literal) if value < 0 else literal


@PASS.rewrites_calls("torch.range")
def range_(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    start, end, step = argument(call, 0, "start"), argument(call, 1, "end"), argument(call, 2, "step")
    bounds = [start, end] + ([step] if step is not None else [])
    values = [_int_literal(a.value) if a is not None else None for a in bounds]
    if (
        start is None
        or end is None
        or has_star_args(call)
        or any(v is None for v in values)
        or (step is not None and values[2] == 0)
    ):
        ctx.finding(
            "torch.range includes its end: rewrite as torch.arange(start, end + step, step) only if that is exact for "
            "your values (floating-point steps may add an element), and note torch.range returns the default float dtype"
        )
        return None
    s, e = values[0], values[1]
    assert s is not None and e is not None
    st = values[2] if step is not None else 1
    assert st is not None
    as_float = kwarg(call, "dtype") is None  # torch.range gives the default float dtype; float literals keep that
    args = [pos(_number(s, as_float)), pos(_number(e + (1 if st > 0 else -1), as_float))]
    if step is not None:
        args.append(pos(step.value))
    args += [a for a in call.args if a.keyword is not None and a.keyword.value not in ("start", "end", "step")]
    ctx.message = "torch.range(s, e) → torch.arange(s, e ± 1) (same values and dtype)"
    return call_with(ctx.ref("torch.arange"), args)


def _solve_triangular(t: FirstOutputTransformer, original: cst.Call, call: cst.Call) -> cst.BaseExpression | None:
    b, a = argument(call, 0, "input"), argument(call, 1, "A")
    upper, transpose, unit = argument(call, 2, "upper"), argument(call, 3, "transpose"), argument(call, 4, "unitriangular")
    if b is None or a is None or has_star_args(call) or kwarg(call, "out") is not None:
        t.finding(
            original, "torch.triangular_solve(...): use torch.linalg.solve_triangular(A, B, upper=...) (arguments reversed)"
        )
        return None
    upper_value: cst.BaseExpression = upper.value if upper is not None else cst.Name("True")
    matrix = a.value
    transposed = literal_bool(transpose, False)
    if transposed is None:
        t.finding(
            original,
            "torch.triangular_solve(..., transpose=<expression>): use solve_triangular(A.mT if t else A, B, upper=(not upper) if t else upper)",
        )
        return None
    if transposed:
        matrix = cst.Attribute(value=parenthesized(matrix), attr=cst.Name("mT"))
        upper_value = negated(upper_value)
    args = [pos(matrix), pos(b.value), kw("upper", upper_value)]
    if unit is not None and literal_bool(unit, False) is not False:
        args.append(kw("unitriangular", unit.value))
    return call_with(t.ref("torch.linalg.solve_triangular", like=original.func), args)


@PASS.uses
class LinalgDeprecated(FirstOutputTransformer):
    FIRST = {
        "torch.triangular_solve": (
            ("solution",),
            _solve_triangular,
            "torch.triangular_solve returns (solution, copy of A): when only the solution is needed write "
            "X = torch.linalg.solve_triangular(A, B, upper=...) (arguments reversed; A.clone() gives the copy)",
        ),
    }


PASS.analyse = first_output_analyser(PASS, LinalgDeprecated)
