"""`torch.stft(..., return_complex=False)` is deprecated: take the complex result and `torch.view_as_real` it.

## What it does
`torch.stft(x, n_fft, ..., return_complex=False)` → `torch.view_as_real(torch.stft(x, n_fft, ..., return_complex=True))`,
which is the same real tensor with a trailing dimension of size 2. The method form `x.stft(..., return_complex=False)`
gets a finding (the receiver is not visibly a tensor).

## Why
1.8 made `return_complex` required for real inputs and deprecated `return_complex=False` (the 1.13 wheel's
`torch/functional.py` docstring); torch 2.13 warns `UserWarning: stft with return_complex=False is deprecated. In a
future pytorch release, stft will return complex tensors for all inputs, and return_complex=False will raise an error.`

## Fix safety
Safe: `torch.equal` holds between the two results on torch 2.13 (`view_as_real` exists since 1.6). Only the literal
`False` is rewritten; a `return_complex` chosen at run time is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="stft-return-complex",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.stft(return_complex=False) → torch.view_as_real(torch.stft(return_complex=True))",
    evidence=(
        "deprecated in PyTorch 1.8 (1.13 wheel torch/functional.py stft docstring); UserWarning and torch.equal checked on torch 2.13"
        "; since 1.8: stft(return_complex=) and view_as_real (torch 1.9.0 wheel, torch/functional.py:351)"
    ),
    triggers=("return_complex",),
    examples=[
        Example(
            before="""
                import torch

                spec = torch.stft(wave, n_fft=512, hop_length=128, window=win, return_complex=False)
            """,
            after="""
                import torch

                spec = torch.view_as_real(torch.stft(wave, n_fft=512, hop_length=128, window=win, return_complex=True))
            """,
        ),
        Example(
            title="import torch as th; the method form is a finding",
            before="""
                import torch as th

                a = th.stft(x, 256, return_complex=False)
                b = x.stft(256, return_complex=False)
            """,
            after="""
                import torch as th

                a = th.view_as_real(th.stft(x, 256, return_complex=True))
                b = x.stft(256, return_complex=False)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: return_complex=True already, librosa",
            before="""
                import librosa
                import torch

                s = torch.stft(x, 256, return_complex=True)
                l = librosa.stft(y, n_fft=256)
            """,
        ),
    ],
)


def _is_false(arg: cst.Arg | None) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False"


@PASS.uses
class StftReturnComplex(PassTransformer):
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        flag = kwarg(updated_node, "return_complex")
        if not _is_false(flag) or not self.allowed(original_node):
            return updated_node
        func = original_node.func
        if self.qualname(func) == "torch.stft":
            assert flag is not None
            inner = updated_node.with_changes(
                args=[a.with_changes(value=cst.Name("True")) if a is flag else a for a in updated_node.args]
            )
            self.edited(original_node, "stft(return_complex=False) → view_as_real(stft(return_complex=True))")
            return cst.Call(func=self.ref("torch.view_as_real", like=func), args=[cst.Arg(inner)])
        if isinstance(func, cst.Attribute) and func.attr.value == "stft" and self.qualname(func) is None:
            self.finding(original_node, _METHOD)
        return updated_node


_METHOD = (
    "x.stft(return_complex=False) is deprecated: if x is a tensor, write "
    "torch.view_as_real(x.stft(..., return_complex=True)) (the same values)"
)


def detect(file: AstFile) -> Iterator[Site]:
    """The transformer's sites from the stdlib ast: a call with a literal ``return_complex=False`` is an edit when its
    callee is ``torch.stft``, the method-form finding when it is an attribute ``.stft`` that names no import."""
    for node in file.walk():
        if not (
            isinstance(node, ast.Call)
            and any(
                k.arg == "return_complex" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in node.keywords
            )
        ):
            continue
        func = node.func
        name = file.callee(node)
        if name == "torch.stft":
            yield file.edit(node)
        elif isinstance(func, ast.Attribute) and func.attr == "stft" and name is None:
            yield file.finding(node, _METHOD)


PASS.analyse = analyser(PASS.id, detect, exact=True)
