"""`torch.cholesky` and `torch.qr` (and the Tensor methods) were removed in PyTorch 2.14: use `torch.linalg`.

## What it does
| before | after |
|---|---|
| `A.cholesky()` / `A.cholesky(upper=True)` (`A` visibly a Tensor) | `torch.linalg.cholesky(A)` / `torch.linalg.cholesky(A, upper=True)` |
| `A.qr()` / `A.qr(some=False)` / `A.qr(flag)` (`A` visibly a Tensor) | `torch.linalg.qr(A)` / `torch.linalg.qr(A, "complete")` / `torch.linalg.qr(A, "reduced" if flag else "complete")` |
| `torch.cholesky(A, ...)`, `torch.qr(A, ...)` | as `linalg-deprecated` (1.9) rewrites them |

A receiver is *visibly* a Tensor when it is a torch factory call (`torch.randn(...)`), arithmetic on one, a name every
assignment of which is one, or a parameter annotated `torch.Tensor`. Other `.cholesky()` / `.qr()` calls in files that
use torch get a finding (the receiver may be a tensor: on 2.14 the method raises `RuntimeError`); calls on imported
modules (`scipy.linalg.cholesky`, `np.linalg.qr`) are left alone. `torch.ops.aten.cholesky` / `aten.qr` (the operators
are gone; use `aten.linalg_cholesky` / `aten.linalg_qr`), `torch.return_types.qr` and `torch.cholesky` / `torch.qr`
used as values (`fn = torch.qr`) get findings.

## Why
Deprecated since 1.9 in favour of `torch.linalg` (pytorch/pytorch#57725); removed in 2.14 (pytorch/pytorch#186817,
#186815): `torch.cholesky` and `torch.qr` are now stubs that raise `RuntimeError: This function was deprecated since
version 1.9 and is now removed` (2.14.1 `torch/_linalg_utils.py:74` and `:164`, imported as `torch.cholesky` /
`torch.qr` at `torch/__init__.py:2808,2812`), `Tensor.cholesky` / `Tensor.qr` call those stubs
(`torch/_tensor.py:902,922`), `TensorBase.cholesky` / `.qr` are gone from `torch/_C/__init__.pyi` (2.13: `:3494`,
`:7569`) and so are `torch.return_types.qr` (2.13 `torch/return_types.pyi:513`) and the `aten::cholesky` / `aten::qr`
operators. The function forms are rewritten by `linalg-deprecated`, whose rewriters this pass reuses, so selecting
this pass alone still migrates every form 2.14 removed.

## Fix safety
Safe: `torch.linalg.cholesky(A, upper=u)` and `torch.linalg.qr(A, mode)` give bit-identical results to the old
methods on torch 2.13 (checked by the semantic tests, batched and unbatched); the methods were thin aliases of the
functions. The emitted forms exist since 1.10 (`linalg.cholesky(upper=)`).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.codemods.v1_9.linalg_deprecated import cholesky as cholesky_call
from torchmigrate.codemods.v1_9.linalg_deprecated import qr as qr_call
from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import chain_root
from torchmigrate.python.tensors import imports_torch, is_tensor
from torchmigrate.python.transform import CallContext, PassTransformer

PASS = Pass(
    id="cholesky-qr-removed",
    release="2.14",
    since="1.10",
    kind=REMOVAL,
    safety=SAFE,
    title="Tensor.cholesky() / Tensor.qr() (and torch.cholesky / torch.qr) → torch.linalg.cholesky / torch.linalg.qr",
    evidence=(
        "torch 2.14.1 wheel: torch/_linalg_utils.py:74,164 (RuntimeError stubs), torch/__init__.py:2808,2812, "
        "torch/_tensor.py:902,922; 2.13 torch/_C/__init__.pyi:3494,7569 gone; pytorch/pytorch#186817, #186815"
        "; since 1.10: torch.linalg.cholesky(A, upper=) (torch 1.10.2 wheel, torch/linalg/__init__.py:18); "
        "torch.linalg.qr(A, mode) from 1.9 (torch 1.9.0 wheel, torch/linalg/__init__.py:2074)"
    ),
    triggers=("cholesky", ".qr(", "import qr", "qr,", " qr\n", "return_types.qr", "aten.qr", " qr)", "(qr,", "= qr"),
    examples=[
        Example(
            title="methods on visible tensors",
            before="""
                import torch

                A = torch.randn(5, 4, dtype=torch.float64)
                S = A.mT @ A + 4 * torch.eye(4, dtype=torch.float64)
                L = S.cholesky()
                U = S.cholesky(upper=True)
                Q, R = A.qr()
                Qc, Rc = A.qr(some=False)
                Qf, Rf = torch.randn(3, 3).qr(reduced)
            """,
            after="""
                import torch

                A = torch.randn(5, 4, dtype=torch.float64)
                S = A.mT @ A + 4 * torch.eye(4, dtype=torch.float64)
                L = torch.linalg.cholesky(S)
                U = torch.linalg.cholesky(S, upper=True)
                Q, R = torch.linalg.qr(A)
                Qc, Rc = torch.linalg.qr(A, "complete")
                Qf, Rf = torch.linalg.qr(torch.randn(3, 3), "reduced" if reduced else "complete")
            """,
        ),
        Example(
            title="annotated parameters; import torch as th; from torch import Tensor",
            before="""
                import torch as th
                from torch import Tensor

                def factor(M: th.Tensor, N: Tensor):
                    return M.cholesky(True), N.qr(False)
            """,
            after="""
                import torch as th
                from torch import Tensor

                def factor(M: th.Tensor, N: Tensor):
                    return th.linalg.cholesky(M, upper=True), th.linalg.qr(N, "complete")
            """,
        ),
        Example(
            title="the function forms, also when this pass runs alone",
            before="""
                from torch import cholesky, qr

                L = cholesky(A)
                Q, R = qr(A, some=False)
            """,
            after="""
                import torch

                L = torch.linalg.cholesky(A)
                Q, R = torch.linalg.qr(A, "complete")
            """,
        ),
        Example(
            title="a receiver that may be a tensor, aten operators, return_types: findings",
            before="""
                import torch

                def whiten(cov):
                    return cov.cholesky()

                out = torch.ops.aten.qr.default(A, True)
                kind = torch.return_types.qr
                decompose = torch.cholesky
            """,
            findings=4,
        ),
        Unchanged(
            """
            import numpy as np
            import scipy.linalg
            import torch

            L = scipy.linalg.cholesky(a)
            q, r = np.linalg.qr(a)
            x = torch.linalg.qr(t)
            """,
            title="other libraries' functions and torch.linalg are not touched",
        ),
        Unchanged(
            """
            class Op:
                def cholesky(self):
                    return self

            op = Op()
            op.cholesky()
            """,
            title="a file without torch: no finding for look-alike methods",
        ),
    ],
)

PASS.call_rewriters["torch.cholesky"] = cholesky_call
PASS.call_rewriters["torch.qr"] = qr_call

_METHODS = {"cholesky": ("torch.cholesky", ("upper",)), "qr": ("torch.qr", ("some",))}
_GONE = {
    "torch.ops.aten.cholesky": "the aten::cholesky operator is gone in 2.14: use torch.ops.aten.linalg_cholesky",
    "torch.ops.aten.qr": "the aten::qr operator is gone in 2.14: use torch.ops.aten.linalg_qr (mode='reduced'/'complete')",
    "torch.return_types.qr": "torch.return_types.qr is gone in 2.14: torch.linalg.qr returns torch.return_types.linalg_qr",
    "torch.cholesky": "torch.cholesky is removed in 2.14 (it raises RuntimeError): use torch.linalg.cholesky",
    "torch.qr": "torch.qr is removed in 2.14 (it raises RuntimeError): use torch.linalg.qr(A, mode=...)",
}


def _fits(call: cst.Call, keyword: str) -> bool:
    """The call has the old method's shape: at most one positional argument, or only the old keyword."""
    positional = [a for a in call.args if a.keyword is None]
    keywords = [a for a in call.args if a.keyword is not None]
    return not any(a.star for a in call.args) and len(positional) <= 1 and all(
        a.keyword is not None and a.keyword.value == keyword for a in keywords
    ) and len(positional) + len(keywords) <= 1


@PASS.uses
class CholeskyQrRemoved(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self._uses_torch = imports_torch(node)
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        func = original_node.func
        if result is not updated_node or not isinstance(func, cst.Attribute) or func.attr.value not in _METHODS:
            return result
        if not isinstance(updated_node.func, cst.Attribute) or not self.allowed(original_node):
            return result
        old, (keyword,) = _METHODS[func.attr.value]
        if not _fits(original_node, keyword):
            return result  # another method's shape
        if not is_tensor(self, func.value):
            root = chain_root(func.value)
            if self.qualname(func) is not None or (root is not None and self.qualname(root) is not None):
                return result  # a module's function (scipy.linalg.cholesky, np.linalg.qr)
            if self._uses_torch:
                self.finding(
                    original_node,
                    f"Tensor.{func.attr.value}() is removed in 2.14 (it raises RuntimeError): if this is a tensor, write "
                    f"torch.linalg.{func.attr.value}({'x, upper=...' if keyword == 'upper' else 'x, mode=...'})",
                )
            return result
        receiver = updated_node.func.value
        as_function = cst.Call(func=cst.Name("_"), args=[cst.Arg(receiver.with_changes(lpar=[], rpar=[])), *updated_node.args])
        ctx = CallContext(self, original_node, old)
        rewrite = cholesky_call if func.attr.value == "cholesky" else qr_call
        new = rewrite(as_function, ctx)
        if new is None:
            return result
        self.edited(original_node, f"Tensor.{func.attr.value}() → torch.linalg.{func.attr.value}() (removed in 2.14)")
        return new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._gone(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._gone(node)

    def _gone(self, node: cst.Attribute | cst.Name) -> None:
        name = self.qualname(node)
        if name not in _GONE:
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.ImportAlias, cst.ImportFrom)):
            return  # the import goes with the rewritten uses
        if name in ("torch.cholesky", "torch.qr"):
            if isinstance(parent, cst.Call) and parent.func is node:
                return  # a call: rewritten
            if isinstance(parent, cst.Attribute) or (
                isinstance(node, cst.Name) and not isinstance(parent, (cst.Arg, cst.Assign, cst.Element))
            ):
                return  # part of a longer name, or a name that is not used as a value
        self.finding(node, _GONE[name])
