"""Selecting the MAGMA linear-algebra backend is deprecated in PyTorch 2.11.

## What it does
Deletes statements that only select MAGMA:
`torch.backends.cuda.preferred_linalg_library("magma")` (also `backend="magma"`). A call whose return value is used
gets a finding instead.

## Why
2.11 deprecated the MAGMA backend (pytorch/pytorch#172823): selecting it, or reading back a MAGMA preference, warns,
and `svd`, `solve_triangular`, `triangular_solve` and `lstsq` ignore it and always use cuSOLVER/cuBLAS
(#172824, #174109, #174779). cuSOLVER is the default, so removing the call is what the release notes ask for.

## Fix safety
Review: the few CUDA operators that still honoured the MAGMA preference in 2.11 now run on cuSOLVER, which can differ
in the last bits and in speed. Nothing changes on CPU-only builds, where selecting MAGMA raised an error anyway.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import arg
from torchmigrate.python.sites import analyser, calls_to
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="magma-preference",
    release="2.11",
    since="2.11",
    kind=DEPRECATION,
    safety=REVIEW,
    title='preferred_linalg_library("magma") → removed (cuSOLVER is the default)',
    evidence=(
        "PyTorch 2.11 release notes, Deprecations / Linear Algebra (pytorch/pytorch#172823)"
        "; since 2.11: before 2.11 the deleted call selected MAGMA where operators honoured it"
    ),
    triggers=("preferred_linalg_library",),
    review_note="Operators that still used MAGMA on CUDA now use cuSOLVER/cuBLAS: compare results if you depended on MAGMA.",
    examples=[
        Example(
            before="""
                import torch

                torch.backends.cuda.preferred_linalg_library("magma")
                x = torch.linalg.svd(a)
            """,
            after="""
                import torch

                x = torch.linalg.svd(a)
            """,
        ),
        Example(
            title="only statement in a block, keyword argument, alias",
            before="""
                import torch.backends.cuda as tbc

                def setup():
                    tbc.preferred_linalg_library(backend="magma")
                    tbc.matmul.allow_tf32 = True
            """,
            after="""
                import torch.backends.cuda as tbc

                def setup():
                    tbc.matmul.allow_tf32 = True
            """,
        ),
        Example(
            title="only statement in a block; the import it used goes too",
            before="""
                import torch
                import torch.backends.cuda as tbc

                def setup():
                    tbc.preferred_linalg_library("MAGMA")

                setup()
            """,
            after="""
                import torch

                def setup():
                    pass

                setup()
            """,
        ),
        Example(
            title="another backend is left alone",
            before="""
                import torch

                torch.backends.cuda.preferred_linalg_library("cusolver")
            """,
        ),
        Example(
            title="return value used: finding",
            before="""
                import torch

                old = torch.backends.cuda.preferred_linalg_library("magma")
            """,
            findings=1,
        ),
    ],
)

_QUALNAME = "torch.backends.cuda.preferred_linalg_library"


def _selects_magma(transformer: PassTransformer, call: cst.Call) -> bool:
    if transformer.qualname(call.func) != _QUALNAME:
        return False
    backend = arg(call, 0, "backend")
    return (
        backend is not None and isinstance(backend.value, cst.SimpleString) and backend.value.evaluated_value.lower() == "magma"
    )


@PASS.uses
class RemoveMagmaPreference(PassTransformer):
    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if len(original_node.body) != 1 or not self.allowed(original_node):
            return updated_node
        statement = original_node.body[0]
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
            if _selects_magma(self, statement.value):
                self.edited(original_node, 'removed preferred_linalg_library("magma") (deprecated in 2.11)')
                return self.remove_statement(original_node, updated_node)
        return updated_node

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(self.get_metadata(ParentNodeProvider, node, None), cst.Expr):
            return
        if _selects_magma(self, node):
            self.finding(
                node,
                'preferred_linalg_library("magma") is deprecated since 2.11 and its result is used here: '
                "drop the MAGMA selection (cuSOLVER is the default) and whatever depends on its return value",
            )


def _may_select_magma(call: ast.Call) -> bool:
    """A bound from the stdlib ast for ``_selects_magma`` on a call of the function: its backend argument (the first
    positional one, else ``backend=``) is the string ``"magma"`` in any case, or ``*`` / ``**`` may hide it."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    value = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "backend"), None)
    return isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.lower() == "magma"


# Both the edit and the finding are made at a call of the function that selects MAGMA: a file without one (torch's
# `common_utils.py` reads and restores the preference with a variable) is settled without libcst.
PASS.analyse = analyser(PASS.id, calls_to(frozenset({_QUALNAME}), _may_select_magma))
