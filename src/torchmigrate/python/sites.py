"""Sites: where a pass acts in a file, found with the stdlib ``ast`` before libcst runs.

A pass may declare ``detect=fn``: ``fn(AstFile) -> Iterable[Site]`` lists the places it would edit and the findings
it would report, as its libcst transformer would (same line, column and message). The engine then

- gives the file to libcst for that pass only when a site needs an *edit*;
- takes the pass's findings from the ast alone when the pass declares ``findings_from_ast=True`` and no earlier pass
  can have changed the text first (otherwise libcst reports them, on the text as that pass sees it).

:class:`AstFile` gives a detector what a ``PassTransformer`` has: import-based qualified names
(:class:`~torchmigrate.python.names.AstNames`, libcst's rules), positions in characters, the statement a node
belongs to, and a walk that skips version-guarded code exactly as the transformers do. ``tests/python/test_sites.py``
runs every pass example (and real files) with and without detectors and requires identical results.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from torchmigrate.python.guards import GUARD_EXCEPTIONS, VERSION_TEST
from torchmigrate.python.names import AstNames
from torchmigrate.python.precheck import statement_start

__all__ = ["EDIT", "FINDING", "AstFile", "Site"]

EDIT, FINDING = "edit", "finding"
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Site:
    """One place a pass acts: an edit it would make, or a finding it would report (with its message)."""

    kind: str
    line: int
    col: int  # 1-based, in characters (as a Finding's)
    statement: int  # the first line of the statement that holds it: a suppression comment covers that logical line
    message: str = ""


class AstFile:
    """One parsed file, as a detector sees it."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree

    @cached_property
    def names(self) -> AstNames:
        return AstNames(self.tree)

    @cached_property
    def _lines(self) -> list[str]:
        return self.text.splitlines(keepends=True)

    @cached_property
    def _parents(self) -> dict[int, ast.AST]:
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        return parents

    def qualname(self, node: ast.expr) -> str | None:
        """The single import-based qualified name of ``node``, as ``PassTransformer.qualname`` gives it."""
        return self.names.qualname(node)

    def source(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(line, 1-based column in characters) of ``node``'s start, as libcst's ``PositionProvider`` has it."""
        line: int = node.lineno  # type: ignore[attr-defined]
        offset: int = node.col_offset  # type: ignore[attr-defined]
        if line <= len(self._lines):
            text = self._lines[line - 1]
            if not text.isascii():
                offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return line, offset + 1

    def statement(self, node: ast.AST) -> ast.stmt:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self._parents.get(id(current))
        return current if current is not None else node  # type: ignore[return-value]

    def site(self, kind: str, node: ast.AST, message: str = "") -> Site:
        line, col = self.position(node)
        return Site(kind, line, col, statement_start(self.statement(node)), message)

    def edit(self, node: ast.AST) -> Site:
        return self.site(EDIT, node)

    def finding(self, node: ast.AST, message: str) -> Site:
        return self.site(FINDING, node, message)

    def is_version_guard(self, node: ast.AST) -> bool:
        """``torchmigrate.python.guards.is_version_guard`` on the ast: the same test on the same source text."""
        if isinstance(node, (ast.If, ast.IfExp)):
            return bool(VERSION_TEST.search(self.source(node.test)))
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                if handler.type is not None and set(_WORD.findall(self.source(handler.type))) & GUARD_EXCEPTIONS:
                    return True
        return False

    def walk(self, root: ast.AST | None = None) -> Iterator[ast.AST]:
        """Every node in source order (pre-order), skipping version-guarded code whole, as transformers do."""
        stack: list[ast.AST] = [root if root is not None else self.tree]
        while stack:
            node = stack.pop()
            if self.is_version_guard(node):
                continue
            yield node
            stack.extend(reversed(list(_children_in_source_order(node))))


def _children_in_source_order(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield from node.decorator_list  # written (and visited by libcst) before the definition
        for child in ast.iter_child_nodes(node):
            if child not in node.decorator_list:
                yield child
        return
    yield from ast.iter_child_nodes(node)
