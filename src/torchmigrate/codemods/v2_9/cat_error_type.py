"""`torch.cat` raises `ValueError` / `IndexError` instead of `RuntimeError` for some bad inputs since PyTorch 2.9.

## What it does
Reports (no edit) an `except RuntimeError` handler of a `try` statement whose body calls `torch.cat` (or
`torch.concat` / `torch.concatenate`, any import form), when no handler of that statement also catches `ValueError`,
`IndexError` or a broader class.

## Why
2.9 changed the error types of `torch.cat`'s argument checks (release notes, BC-breaking, pytorch/pytorch#158249). On
torch 2.13 an empty list raises `ValueError: torch.cat(): expected a non-empty list of Tensors` (it was a
`RuntimeError` through 2.8: the same message appears as `RuntimeError` in user reports of 2023-2025) and an
out-of-range `dim` an `IndexError`; shape mismatches are still `RuntimeError`. A handler written for the old type no
longer catches them.

## Fix safety
Finding only: add `ValueError` (and `IndexError`) to the handler if it is meant to catch these, e.g. `except
(RuntimeError, ValueError):`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.helpers import handler_names
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

CAT = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
_COVERS = {"ValueError", "IndexError", "Exception", "BaseException"}

PASS = Pass(
    id="cat-error-type",
    since="1.8",
    release="2.9",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="except RuntimeError around torch.cat misses its ValueError / IndexError since 2.9 (finding)",
    evidence=(
        "PyTorch 2.9 release notes, BC-breaking (pytorch/pytorch#158249); ValueError / IndexError checked on torch 2.13"
        "; finding only: emits no new form"
    ),
    qualnames=CAT,
    triggers=("RuntimeError",),  # with qualnames: a file must spell RuntimeError and reference torch.cat
    examples=[
        Example(
            before="""
                import torch

                try:
                    batch = torch.cat(chunks)
                except RuntimeError:
                    batch = None
            """,
            findings=1,
        ),
        Example(
            title="handlers that catch the new types too, a body without torch.cat",
            before="""
                import torch

                try:
                    batch = torch.cat(chunks, dim=0)
                except (RuntimeError, ValueError):
                    batch = None

                try:
                    y = torch.stack(chunks)
                except RuntimeError:
                    y = None
            """,
        ),
    ],
)


class _Cats(cst.CSTVisitor):
    def __init__(self, owner: PassTransformer) -> None:
        self.owner = owner
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        if self.owner.qualname(node.func) in CAT:
            self.found = True
        return not self.found

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


MESSAGE = (
    "since 2.9 torch.cat raises ValueError for an empty list and IndexError for a bad dim (RuntimeError "
    "before): this handler no longer catches them; add ValueError/IndexError if it should"
)
# an `except` clause that may name RuntimeError (on its line, after a line continuation, or in a bracketed tuple)
# (led by the literal `except`, which the regex engine finds fast; the lookbehind puts the word boundary before it)
_HANDLER = re.compile(r"except(?<=\bexcept)(?:\b(?:[^\n]|\\\n)*\bRuntimeError\b|\s*\()")


def detect(file: AstFile) -> Iterator[Site]:
    """The handlers the transformer reports, found with the stdlib ast (its findings, exactly)."""
    if not _HANDLER.search(file.text):
        return  # no `except` clause names RuntimeError
    for node in file.walk():
        if not isinstance(node, ast.Try):
            continue
        names = [file.handler_names(h) for h in node.handlers]
        if set().union(*names) & (_COVERS | {"*"}):
            continue
        runtime = next((h for h, caught in zip(node.handlers, names, strict=True) if "RuntimeError" in caught), None)
        if runtime is not None and any(file.runs_a_call(statement, CAT.__contains__) for statement in node.body):
            yield file.finding(runtime, MESSAGE)


PASS.analyse = analyser(PASS.id, detect, exact=True)


@PASS.uses
class CatErrorType(PassTransformer):
    def visit_Try(self, node: cst.Try) -> None:
        caught = set().union(*(handler_names(h) for h in node.handlers)) if node.handlers else set()
        if caught & (_COVERS | {"*"}):
            return
        runtime = next((h for h in node.handlers if "RuntimeError" in handler_names(h)), None)
        if runtime is None:
            return
        cats = _Cats(self)
        node.body.visit(cats)
        if cats.found:
            self.finding(runtime, MESSAGE)
