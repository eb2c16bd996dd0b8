"""`torch.solve`, `torch.symeig`, `torch.matrix_rank`, `torch.eig` and `torch.lstsq` are gone: use `torch.linalg`.

## What it does
Rewrites what maps exactly:

| before | after |
|---|---|
| `torch.solve(B, A).solution` / `torch.solve(B, A)[0]` / `X, _ = torch.solve(B, A)` | `torch.linalg.solve(A, B)` (arguments reversed) |
| `torch.symeig(A).eigenvalues` / `[0]` / `e, _ = torch.symeig(A)` | `torch.linalg.eigvalsh(A, UPLO="U")` |
| `torch.symeig(A, eigenvectors=True)` | `torch.linalg.eigh(A, UPLO="U")` (same `(eigenvalues, eigenvectors)` result) |
| `torch.symeig(A, upper=False, …)` | `UPLO` left at its default `"L"`; `upper=u` → `UPLO="U" if u else "L"` |
| `torch.matrix_rank(A)` / `(A, symmetric=True)` / `(A, 1e-5)` | `torch.linalg.matrix_rank(A)` / `(A, hermitian=True)` / `(A, atol=1e-5, rtol=0.0)` |

and reports the rest with the replacement to write: `torch.eig` (its real `(n, 2)` eigenvalue layout became complex
tensors: `torch.linalg.eigvals(A)`, or `torch.view_as_real(torch.linalg.eigvals(A))` for the old layout, and
`torch.linalg.eig(A)` for vectors), `torch.lstsq` (its solution carried the residuals in extra rows: `X =
torch.linalg.lstsq(A, B).solution`), `torch.solve`/`symeig` whose LU factor or empty eigenvector tensor is used,
and `matrix_rank(A, tol)` with a non-literal tolerance. Tensor methods (`B.solve(A)`) are not rewritten: without
types they cannot be told from look-alikes.

## Why
Deprecated in 1.9 with the `torch.linalg` module, these functions were deleted in 2022 and January 2023
(pytorch/pytorch#70986 solve, #70982 eig, #70980 lstsq, #70981 matrix_rank — reviewed and merged during 2022, the
1.12–1.13 cycles; #70988 symeig, whose XLA counterpart was merged on 2023-01-24 — the 2.0 cycle; umbrella
pytorch/pytorch#69857). The pass is filed under 2.0, the
release after which none of them works. On torch 2.13 each call raises `RuntimeError: This function was deprecated
since version 1.9 and is now removed.` followed by the upgrade rule this pass applies (improved messages:
pytorch/pytorch#105506).

## Fix safety
Review. The argument mapping is the one the error messages give, and the semantic tests check the new calls on
torch 2.13 (`linalg.solve` solves `A X = B`, `eigvalsh(A, UPLO="U")` reads the upper triangle as `symeig`'s default
`upper=True` did, `matrix_rank`'s default tolerance `σ_max·max(m, n)·eps` is the old default). The old functions can
no longer run, so equality with them cannot be re-checked: eigenvector signs from `eigh` may differ from the ones
`symeig` returned (both are valid), so check code that depends on the sign.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, REVIEW, Example, Pass
from torchmigrate.python.helpers import has_star_args, kwarg
from torchmigrate.python.transform import CallContext

from ..v1_9._outputs import FirstOutputTransformer, argument, call_with, first_output_analyser, keep_out, kw, literal_bool, pos

EIG = (
    "torch.eig was removed (RuntimeError since 1.13): eigenvalues are now complex — L = torch.linalg.eigvals(A) "
    "(torch.view_as_real(L) gives the old (n, 2) layout), L, V = torch.linalg.eig(A) for eigenvectors; "
    "use torch.linalg.eigh / eigvalsh for symmetric A"
)
LSTSQ = (
    "torch.lstsq was removed (RuntimeError since 1.13): X = torch.linalg.lstsq(A, B).solution (arguments reversed; "
    "the old solution had max(m, n) rows with residuals below row n — see .residuals)"
)

PASS = Pass(
    id="linalg-removed",
    release="2.0",
    since="1.11",
    safety=REVIEW,
    kind=REMOVAL,
    title="torch.solve/symeig/matrix_rank → torch.linalg.solve/eigvalsh/eigh/matrix_rank; eig/lstsq: findings",
    evidence=(
        "pytorch/pytorch#69857 (#70986, #70982, #70980, #70981, #70988); error messages pytorch/pytorch#105506; "
        "torch 2.13 RuntimeError texts"
        "; since 1.11: linalg.matrix_rank(atol=, rtol=) first ships in 1.11 (torch 1.11.0 wheel, "
        "torch/linalg/__init__.py)"
    ),
    # "eig" and "solve" alone would match "weight" / "resolve" in most files: only call and import forms
    triggers=("symeig", "matrix_rank", "lstsq")
    + tuple(form.format(n) for n in ("eig", "solve") for form in (".{}(", "import {}", " {},", " {}\n", " {})", "({},")),
    review_note="eigenvector signs from linalg.eigh may differ from symeig's",
    examples=[
        Example(
            title="solve: only the solution is used",
            before="""
                import torch

                X = torch.solve(B, A).solution
                Y, _ = torch.solve(B, A)
                Z = torch.solve(b, M)[0]
            """,
            after="""
                import torch

                X = torch.linalg.solve(A, B)
                Y = torch.linalg.solve(A, B)
                Z = torch.linalg.solve(M, b)
            """,
        ),
        Example(
            title="solve whose LU factor is used: finding",
            before="""
                import torch

                X, LU = torch.solve(B, A)
            """,
            findings=1,
        ),
        Example(
            title="symeig: eigenvalues only, eigenvectors, upper flag",
            before="""
                import torch as th

                e = th.symeig(A).eigenvalues
                w, V = th.symeig(A, eigenvectors=True)
                l, _ = th.symeig(A, upper=False)
                m, W = th.symeig(A, True, up)
            """,
            after="""
                import torch as th

                e = th.linalg.eigvalsh(A, UPLO="U")
                w, V = th.linalg.eigh(A, UPLO="U")
                l = th.linalg.eigvalsh(A)
                m, W = th.linalg.eigh(A, UPLO="U" if up else "L")
            """,
        ),
        Example(
            title="matrix_rank: symmetric → hermitian, literal tol → atol; the from-imported name is taken, so `import torch`",
            before="""
                from torch import matrix_rank

                r = matrix_rank(A)
                h = matrix_rank(A, symmetric=True)
                t = matrix_rank(A, 1e-5)
            """,
            after="""
                import torch

                r = torch.linalg.matrix_rank(A)
                h = torch.linalg.matrix_rank(A, hermitian=True)
                t = torch.linalg.matrix_rank(A, atol=1e-5, rtol=0.0)
            """,
        ),
        Example(
            title="eig, lstsq and a variable tolerance: findings",
            before="""
                import torch

                L, V = torch.eig(A, eigenvectors=True)
                X = torch.lstsq(B, A).solution[:n]
                r = torch.matrix_rank(A, tol)
            """,
            findings=3,
        ),
        Example(
            title="torch.linalg functions, methods and user functions are not touched",
            before="""
                import torch

                def solve(b, a):
                    return b

                X = torch.linalg.solve(A, B)
                Y = solve(B, A)
                Z = B.solve(A)
            """,
        ),
    ],
)


def _uplo(upper: cst.Arg | None) -> list[cst.Arg]:
    """symeig's `upper` (default True) as eigh's `UPLO` (default "L")."""
    flag = literal_bool(upper, True)
    if flag is False:
        return []
    if flag is True:
        return [kw("UPLO", cst.SimpleString('"U"'))]
    assert upper is not None
    return [kw("UPLO", cst.IfExp(test=upper.value, body=cst.SimpleString('"U"'), orelse=cst.SimpleString('"L"')))]


def _solve(t: FirstOutputTransformer, original: cst.Call, call: cst.Call) -> cst.BaseExpression | None:
    b, a = argument(call, 0, "input"), argument(call, 1, "A")
    if b is None or a is None or has_star_args(call) or kwarg(call, "out") is not None:
        t.finding(original, "torch.solve was removed: X = torch.linalg.solve(A, B) (arguments reversed)")
        return None
    return call_with(t.ref("torch.linalg.solve", like=original.func), [pos(a.value), pos(b.value)])


def _eigenvalues(t: FirstOutputTransformer, original: cst.Call, call: cst.Call) -> cst.BaseExpression | None:
    a, vectors, upper = argument(call, 0, "input"), argument(call, 1, "eigenvectors"), argument(call, 2, "upper")
    if a is None or has_star_args(call) or kwarg(call, "out") is not None:
        t.finding(original, "torch.symeig was removed: torch.linalg.eigvalsh(A, UPLO='U') / torch.linalg.eigh(A, UPLO='U')")
        return None
    wants_vectors = literal_bool(vectors, False)
    name = "torch.linalg.eigh" if wants_vectors is not False else "torch.linalg.eigvalsh"
    new = call_with(t.ref(name, like=original.func), [pos(a.value), *_uplo(upper)])
    if wants_vectors is not False:  # eigh(...) keeps the (eigenvalues, eigenvectors) structure: select the first
        return cst.Attribute(value=new, attr=cst.Name("eigenvalues"))
    return new


@PASS.uses
class LinalgRemoved(FirstOutputTransformer):
    FIRST = {
        "torch.solve": (
            ("solution",),
            _solve,
            "torch.solve was removed and returned (solution, LU): X = torch.linalg.solve(A, B) (arguments reversed); "
            "for the LU factor use torch.linalg.lu_factor(A)",
        ),
        "torch.symeig": (
            ("eigenvalues",),
            _eigenvalues,
            "torch.symeig was removed: L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L') "
            "(eigvalsh for eigenvalues only; symeig's default was upper=True)",
        ),
    }

    def whole_result(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        if name != "torch.symeig":
            return None
        a, vectors, upper = argument(updated, 0, "input"), argument(updated, 1, "eigenvectors"), argument(updated, 2, "upper")
        if a is None or has_star_args(updated) or kwarg(updated, "out") is not None or literal_bool(vectors, False) is not True:
            return None  # eigenvectors=False returned an empty tensor in place of the vectors: no exact equivalent
        return call_with(self.ref("torch.linalg.eigh", like=original.func), [pos(a.value), *_uplo(upper)])


@PASS.rewrites_calls("torch.matrix_rank")
def matrix_rank(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    a, tol, symmetric = argument(call, 0, "input"), argument(call, 1, "tol"), argument(call, 2, "symmetric")
    if a is None or has_star_args(call):
        return None
    args = [pos(a.value)]
    if tol is not None and not (isinstance(tol.value, cst.Name) and tol.value.value == "None"):
        if not isinstance(tol.value, (cst.Float, cst.Integer)):
            ctx.finding(
                "torch.matrix_rank(A, tol) was removed: torch.linalg.matrix_rank(A, atol=tol, rtol=0.0) when tol is a "
                "number, torch.linalg.matrix_rank(A) when it is None"
            )
            return None
        args += [kw("atol", tol.value), kw("rtol", cst.Float("0.0"))]
    if symmetric is not None and literal_bool(symmetric, False) is not False:
        args.append(kw("hermitian", symmetric.value))
    args = keep_out(call, args)
    ctx.message = "torch.matrix_rank → torch.linalg.matrix_rank"
    return call_with(ctx.ref("torch.linalg.matrix_rank"), args)


@PASS.rewrites_calls("torch.eig")
def eig(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    ctx.finding(EIG)
    return None


@PASS.rewrites_calls("torch.lstsq")
def lstsq(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    ctx.finding(LSTSQ)
    return None


PASS.analyse = first_output_analyser(PASS, LinalgRemoved)
