"""`torch.cross(a, b)` without `dim` is deprecated since PyTorch 2.2: pass `dim` (or use `torch.linalg.cross`).

## What it does
Reports (no edit) `torch.cross(a, b)` calls without a `dim` (or with `dim=None`), and `a.cross(b)` method calls
without one in files that import torch.

## Why
pytorch/pytorch#108760 (PyTorch 2.2) deprecated the default: torch 2.13 warns `UserWarning: Using torch.cross without
specifying the dim arg is deprecated. Please either pass the dim explicitly or simply use torch.linalg.cross. The
default value of dim will change to agree with that of linalg.cross in a future release.` Without `dim`,
`torch.cross` uses the *first* dimension of size 3; `torch.linalg.cross` defaults to the *last*.

## Fix safety
Finding only: the dimension the old default picks depends on the shapes at run time. Replacing the call with
`torch.linalg.cross(a, b)` changes the result whenever an earlier dimension also has size 3 (a `(3, 3)` input:
checked on torch 2.13); pass the dimension you mean, e.g. `dim=-1` for `(..., 3)` vectors.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, dotted_name, has_star_args, kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

MESSAGE = (
    "{what} without dim is deprecated since 2.2: it crosses along the first dimension of size 3 (torch.linalg.cross "
    "uses the last); pass dim= explicitly, e.g. dim=-1 for (..., 3) vectors"
)

PASS = Pass(
    id="cross-implicit-dim",
    sliceable=False,  # whether torch is imported (anywhere, function-local imports too) before the call decides
    since="1.8",
    release="2.2",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.cross(a, b) / a.cross(b) without dim (finding)",
    evidence=(
        "pytorch/pytorch#108760 (PyTorch 2.2); UserWarning and the linalg.cross difference checked on torch 2.13"
        "; finding only: emits no new form"
    ),
    triggers=("cross(",),  # a call; the word alone is in every cross_attention / CrossEntropyLoss file
    examples=[
        Example(
            before="""
                import torch

                n = torch.cross(u, v)
                m = (b - a).cross(c - a)
            """,
            findings=2,
        ),
        Example(
            title="a dimension given, linalg.cross, numpy: fine",
            before="""
                import numpy as np
                import torch

                n = torch.cross(u, v, dim=-1)
                m = u.cross(v, 1)
                k = torch.linalg.cross(u, v)
                z = np.cross(a, b)
            """,
        ),
        Example(
            title="a file without torch: another library's cross",
            before="""
                from sympy.vector import CoordSys3D

                w = v1.cross(v2)
            """,
        ),
    ],
)


@PASS.uses
class CrossImplicitDim(PassTransformer):
    def visit_Module(self, node: cst.Module) -> None:
        self.uses_torch = False  # set by the file's imports (kept whole in a slice)

    def visit_Import(self, node: cst.Import) -> None:
        self.uses_torch |= any((dotted_name(a.name) or "").split(".")[0] == "torch" for a in node.names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None and not node.relative else None
        self.uses_torch |= (module or "").split(".")[0] == "torch"

    def visit_Call(self, node: cst.Call) -> None:
        if has_star_args(node):
            return
        func = node.func
        if self.qualname(func) == "torch.cross":
            dim = bind(node, ("input", "other", "dim")).value("dim")
            what = "torch.cross(a, b)"
        elif isinstance(func, cst.Attribute) and func.attr.value == "cross" and self.uses_torch and self.qualname(func) is None:
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) != 1 and kwarg(node, "other") is None:
                return
            dim = bind(node, ("other", "dim")).value("dim")
            what = "a.cross(b)"
        else:
            return
        if dim is None or (isinstance(dim, cst.Name) and dim.value == "None"):
            self.finding(node, MESSAGE.format(what=what))


def _bound(call: ast.Call, params: tuple[str, ...], name: str) -> ast.expr | None:
    """``bind(call, params).value(name)`` for a call without ``*`` / ``**`` arguments."""
    positional = dict(zip(params, call.args, strict=False))
    if name in positional:
        return positional[name]
    return next((k.value for k in call.keywords if k.arg == name and k.arg not in positional), None)


def detect(file: AstFile) -> Iterator[Site]:
    """The transformer's findings from the stdlib ast, in its visiting order (a method-form ``a.cross(b)`` counts once
    an import of torch was visited before it, guarded imports not)."""
    uses_torch = False
    findings: list[Site] = []
    doubtful_import = cross_call = False
    for node in file.walk():
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.Import):
                uses_torch |= any(a.name.split(".")[0] == "torch" for a in node.names)
            else:
                uses_torch |= not node.level and (node.module or "").split(".")[0] == "torch"
            doubtful_import |= file.in_uncertain(node.lineno)
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = file.callee(node)
        spelled = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        cross_call |= spelled == "cross" or name == "torch.cross"
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue
        if name == "torch.cross":
            dim = _bound(node, ("input", "other", "dim"), "dim")
            what = "torch.cross(a, b)"
        elif isinstance(func, ast.Attribute) and func.attr == "cross" and uses_torch and name is None:
            if len(node.args) != 1 and not any(k.arg == "other" for k in node.keywords):
                continue
            dim = _bound(node, ("other", "dim"), "dim")
            what = "a.cross(b)"
        else:
            continue
        if dim is None or (isinstance(dim, ast.Constant) and dim.value is None):
            findings.append(file.finding(node, MESSAGE.format(what=what)))
    if doubtful_import and cross_call and file.tree.body:
        # an import in a statement the transformer may skip as a guard: whether torch is imported, and what the
        # file's names mean, may differ there, so it decides (a finding inside such a statement is left to it by
        # the analyser)
        yield file.edit(file.tree.body[0])
        return
    yield from findings


PASS.analyse = analyser(PASS.id, detect, exact=True)
