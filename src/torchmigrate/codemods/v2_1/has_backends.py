"""`torch.has_cuda`, `has_cudnn`, `has_mps`, `has_mkldnn` are deprecated since PyTorch 2.1: ask `torch.backends`.

## What it does
| old | new |
|---|---|
| `torch.has_cuda` | `torch.backends.cuda.is_built()` |
| `torch.has_cudnn` | `torch.backends.cudnn.is_available()` |
| `torch.has_mps` | `torch.backends.mps.is_built()` |
| `torch.has_mkldnn` | `torch.backends.mkldnn.is_available()` |

Through any alias (`import torch as th`, `from torch import has_cuda`); the from-import goes when nothing else uses
it. Other `torch.has_*` flags (`has_mkl`, `has_openmp`, `has_lapack`, …) are not deprecated and stay.

## Why
pytorch/pytorch#103279 (PyTorch 2.1) turned the four flags into a module `__getattr__` that warns
(`UserWarning: 'has_cuda' is deprecated, please use 'torch.backends.cuda.is_built()'`) and returns that function's
result (torch 2.13 `torch/__init__.py`, `_deprecated_attrs`).

## Fix safety
Safe: the deprecated attribute is the call's result. Note that `has_cuda` / `is_built()` says whether this torch was
*built* with CUDA, not whether a GPU is usable (that is `torch.cuda.is_available()`); the rewrite keeps the meaning
the code had. `torch.backends.mps` exists since 1.12, as does `has_mps`.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.transform import PassTransformer

REPLACEMENTS = {
    "torch.has_cuda": "torch.backends.cuda.is_built",
    "torch.has_cudnn": "torch.backends.cudnn.is_available",
    "torch.has_mps": "torch.backends.mps.is_built",
    "torch.has_mkldnn": "torch.backends.mkldnn.is_available",
}

PASS = Pass(
    id="has-backends",
    release="2.1",
    kind=DEPRECATION,
    safety=SAFE,
    since="1.8",  # every replacement exists from the floor on (backends.mps from 1.12, like has_mps itself)
    title="torch.has_cuda / has_cudnn / has_mps / has_mkldnn → torch.backends.*",
    evidence=(
        "pytorch/pytorch#103279 (PyTorch 2.1); torch 2.13 torch/__init__.py _deprecated_attrs and __getattr__; UserWarning checked"
        "; since 1.8: torch.backends.cuda/cudnn/mkldnn is_built/is_available (torch 1.9.0 wheel); backends.mps from 1.12, as torch.has_mps"
    ),
    qualnames=frozenset(REPLACEMENTS),
    examples=[
        Example(
            before="""
                import torch

                device = "cuda" if torch.has_cuda else "cpu"
                use_cudnn = torch.has_cudnn and torch.has_mkldnn
            """,
            after="""
                import torch

                device = "cuda" if torch.backends.cuda.is_built() else "cpu"
                use_cudnn = torch.backends.cudnn.is_available() and torch.backends.mkldnn.is_available()
            """,
        ),
        Example(
            title="import torch as th; from-import",
            before="""
                import torch as th
                from torch import has_mps

                if has_mps or th.has_cuda:
                    pass
            """,
            after="""
                import torch as th

                if th.backends.mps.is_built() or th.backends.cuda.is_built():
                    pass
            """,
        ),
        Example(
            title="look-alikes: flags that are not deprecated, an attribute of your own",
            before="""
                import torch

                a = torch.has_mkl and torch.has_openmp
                b = self.has_cuda
            """,
        ),
    ],
)


class HasBackends(PassTransformer):
    def _replace(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = self.qualname(original)
        new = REPLACEMENTS.get(name or "")
        if new is None or not self.allowed(original):
            return updated
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if isinstance(parent, (cst.ImportAlias, cst.Attribute)) and not (isinstance(parent, cst.Attribute) and parent.value is not original):
            return updated  # an import, or the middle of a longer chain
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign)):
            return updated
        self.edited(original, f"{name} → {new}()")
        self.drop_imports_of(original)
        return cst.Call(func=self.ref(new, like=original))

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._replace(original_node, updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._replace(original_node, updated_node)


PASS.uses(HasBackends)
