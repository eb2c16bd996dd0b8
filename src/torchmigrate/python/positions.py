"""libcst's ``PositionProvider`` answers, one top-level statement at a time.

libcst computes positions with a codegen of the whole module that records every node's range: on a file a pass edits
in two places that is most of the pass's metadata cost, and the engine asks for it again after every rewrite. A pass
asks for the positions of the nodes it edits or reports, nearly always inside the top-level statement it is visiting.
:class:`StatementPositions` generates that statement alone, from line 1, and moves its ranges to the statement's line
in the file, which the stdlib ``ast`` of the module's text gives: a top-level statement starts at column 0, and its
syntactic start (after its leading comment lines; the ``def`` or ``class`` line after decorators; the first of
``a; b``) is the ``lineno`` of its ``ast`` statement. Anything else (a node in no statement asked for, a module
whose statements do not pair with the ``ast``'s) is answered by libcst's own provider, computed once.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import cast

import libcst as cst
from libcst._position import CodePosition, CodeRange
from libcst.metadata import PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

__all__ = ["StatementPositions"]


class StatementPositions(Mapping[cst.CSTNode, CodeRange]):
    """``PositionProvider``'s table for ``module``, the tree of a text whose stdlib ``ast`` is ``tree``, made per
    top-level statement on demand (:meth:`prepare`); a node outside the prepared statements makes the whole table."""

    def __init__(self, module: cst.Module, tree: ast.Module) -> None:
        self.module = module
        self.tree = tree
        self._computed: dict[cst.CSTNode, CodeRange] = {}
        self._lines: dict[int, int] | None = None  # id(top-level statement) → its ast line
        self._done: set[int] = set()
        self._whole = False
        self.statements = 0  # statements generated alone (for tests and measurements)

    def _statement_lines(self) -> dict[int, int]:
        if self._lines is None:
            lines: dict[int, int] = {}
            body = self.tree.body
            index = 0
            for statement in self.module.body:
                if index >= len(body):
                    lines = {}
                    break
                lines[id(statement)] = body[index].lineno
                index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            if index != len(body):
                lines = {}  # the trees do not pair: every answer comes from libcst's provider
            self._lines = lines
        return self._lines

    def prepare(self, statement: cst.CSTNode) -> None:
        """Make the positions of the nodes of ``statement``, when it is a top-level statement of the module."""
        key = id(statement)
        if self._whole or key in self._done:
            return
        line = self._statement_lines().get(key)
        if line is None:
            return
        self._done.add(key)
        holder = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent, default_newline=self.module.default_newline, provider=holder
        )
        statement._codegen(state)
        table = cast("dict[cst.CSTNode, CodeRange]", holder._computed)
        start = table.get(statement)
        if start is None or start.start.column != 0:
            return
        shift = line - start.start.line
        computed = self._computed
        for node, where in table.items():
            begin, end = where.start, where.end
            computed[node] = CodeRange(CodePosition(begin.line + shift, begin.column), CodePosition(end.line + shift, end.column))
        self.statements += 1

    def _make_whole(self) -> None:
        if not self._whole:
            self._whole = True
            holder = PositionProvider()
            state = PositionProvidingCodegenState(
                default_indent=self.module.default_indent, default_newline=self.module.default_newline, provider=holder
            )
            self.module._codegen(state)
            self._computed = cast("dict[cst.CSTNode, CodeRange]", holder._computed)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._computed.get(node)
        if found is None:
            self._make_whole()
            return self._computed[node]
        return found

    def __iter__(self) -> Iterator[cst.CSTNode]:
        self._make_whole()
        return iter(self._computed)

    def __len__(self) -> int:
        self._make_whole()
        return len(self._computed)

    def __contains__(self, node: object) -> bool:
        if node in self._computed:
            return True
        self._make_whole()
        return node in self._computed
