"""Import bookkeeping after a pass: adding the imports new code needs, dropping the ones it no longer uses.

Both respect suppressed import lines (``protected``: the code of import statements a ``# migrate: ignore`` covers).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from typing import TypeVar

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from torchmigrate.python.helpers import code_of, dotted_name
from torchmigrate.python.precheck import ast_chain, ast_parse

__all__ = ["AddImports", "ScheduledImport", "drop_unused_imports"]


class AddImports(AddImportsVisitor):
    """libcst's ``AddImportsVisitor`` that adds a new statement instead of merging into a suppressed import line."""

    def __init__(self, context: CodemodContext, protected: Iterable[str] = ()) -> None:
        super().__init__(context)
        self.protected = frozenset(protected)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if self.protected and code_of(original_node) in self.protected:
            return updated_node
        return super().leave_ImportFrom(original_node, updated_node)


ScheduledImport = tuple[str, "str | None", "str | None"]
_ImportNode = TypeVar("_ImportNode", cst.Import, cst.ImportFrom)


def drop_unused_imports(module: cst.Module, scheduled: Iterable[ScheduledImport], protected: Iterable[str] = ()) -> cst.Module:
    """Remove the scheduled imports (``(module, obj, asname)``, as libcst's ``RemoveImportsVisitor`` takes them) that the
    new code no longer uses. Never an import on a suppressed line (``protected``).

    Cheaper than ``RemoveImportsVisitor``, which runs a scope analysis of its own: this looks at the new code with the
    stdlib ``ast`` and keeps an import whenever its name is loaded anywhere in the file, or appears in a string
    (``__all__``, string annotations) — so it may keep an import libcst would drop, never the reverse.
    """
    try:
        tree = ast_parse(module.code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return module  # keep every import: the caller's verification reports the broken text
    loaded: set[str] = set()
    chains: set[str] = set()
    words: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            loaded.add(node.id)
        elif isinstance(node, ast.Attribute):
            chain = ast_chain(node)
            if chain is not None:
                chains.add(chain)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(re.findall(r"[A-Za-z_][\w.]*", node.value))

    def unused(module_name: str, obj: str | None, asname: str | None) -> bool:
        if obj is None and asname is None and "." in module_name:  # `import a.b`: used through `a.b...` chains
            used = any(c == module_name or c.startswith(module_name + ".") for c in chains)
            return not used and module_name not in words
        bound = asname or obj or module_name
        return bound not in loaded and bound not in words

    drop = {(m_, o, a) for m_, o, a in scheduled if unused(m_, o, a)}
    if not drop:
        return module
    return module.visit(_DropImports(drop, frozenset(protected)))


class _DropImports(cst.CSTTransformer):
    def __init__(self, drop: set[ScheduledImport], protected: frozenset[str]) -> None:
        super().__init__()
        self.drop = drop
        self.protected = protected

    def _keep(self, names: Sequence[cst.ImportAlias], module: str | None) -> list[cst.ImportAlias]:
        kept = []
        for alias in names:
            name = dotted_name(alias.name) or ""
            asname = dotted_name(alias.asname.name) if alias.asname else None
            key = (name, None, asname) if module is None else (module, name, asname)
            if key not in self.drop:
                kept.append(alias)
        return kept

    @staticmethod
    def _apply(updated: _ImportNode, total: int, kept: list[cst.ImportAlias]) -> _ImportNode | cst.RemovalSentinel:
        if len(kept) == total:
            return updated
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import | cst.RemovalSentinel:
        if self.protected and code_of(original_node) in self.protected:
            return updated_node
        return self._apply(updated_node, len(updated_node.names), self._keep(updated_node.names, None))

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if updated_node.relative or updated_node.module is None or isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        if self.protected and code_of(original_node) in self.protected:
            return updated_node
        module = dotted_name(updated_node.module) or ""
        return self._apply(updated_node, len(updated_node.names), self._keep(updated_node.names, module))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if not updated_node.body:  # a function whose only statement was the import
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node
