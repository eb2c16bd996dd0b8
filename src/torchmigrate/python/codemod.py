"""The parts of ``libcst.codemod`` the passes use, loaded only when libcst runs a pass over a file.

Importing ``libcst.codemod`` imports libcst's matcher module too (hundreds of generated dataclasses: about 0.2 s, a third
of the tool's start-up), and most runs never need it: most files are settled by the trigger-word scan or the stdlib
ast without libcst running a pass. So the passes schedule imports through these functions, and the engine builds its
:class:`~libcst.codemod.CodemodContext` here, both importing libcst's codemod package on first use.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import libcst as cst

if TYPE_CHECKING:
    from libcst.codemod import CodemodContext
    from libcst.metadata import MetadataWrapper

__all__ = [
    "ADD_IMPORTS_KEY",
    "REMOVE_IMPORTS_KEY",
    "add_needed_import",
    "new_context",
    "preload",
    "remove_imports_of",
    "remove_unused_import_by_node",
]

ADD_IMPORTS_KEY = "AddImportsVisitor"
"""Where ``AddImportsVisitor`` keeps the imports scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""
REMOVE_IMPORTS_KEY = "RemoveImportsVisitor"
"""Where ``RemoveImportsVisitor`` keeps the removals scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""


def preload() -> None:
    """Import libcst's codemod package and visitors now (before worker processes fork, so that they share it)."""
    import libcst.codemod.visitors  # noqa: F401


def new_context(wrapper: MetadataWrapper) -> CodemodContext:
    from libcst.codemod import CodemodContext

    return CodemodContext(wrapper=wrapper)


def add_needed_import(
    context: CodemodContext, module: str, obj: str | None = None, asname: str | None = None, relative: int = 0
) -> None:
    """``AddImportsVisitor.add_needed_import``: the engine adds the import after the pass."""
    from libcst.codemod.visitors import AddImportsVisitor

    AddImportsVisitor.add_needed_import(context, module, obj, asname, relative)


def remove_unused_import_by_node(context: CodemodContext, node: cst.CSTNode) -> None:
    """``RemoveImportsVisitor.remove_unused_import_by_node``: an import statement's names, removed if unused."""
    from libcst.codemod.visitors import RemoveImportsVisitor

    RemoveImportsVisitor.remove_unused_import_by_node(context, node)


def remove_imports_of(context: CodemodContext, node: cst.CSTNode) -> None:
    """Schedule the removal of the imports that ``node`` references (what ``remove_unused_import_by_node`` does for
    a node that is not an import statement), on the plain visitor machinery."""
    node.visit(_removed_node_visitor()(context))


@cache
def _removed_node_visitor() -> type[Any]:
    from libcst._metadata_dependent import MetadataDependent
    from libcst.codemod.visitors._remove_imports import RemovedNodeVisitor

    class _RemovedNodeVisitor(RemovedNodeVisitor):
        """libcst's ``RemovedNodeVisitor`` without its matcher-decorator set-up (a member inspection per use) and
        per-node matcher checks: it uses no matcher decorators."""

        def __init__(self, context: CodemodContext) -> None:
            MetadataDependent.__init__(self)
            self.context = context
            self._extra_visit_funcs: dict[Any, Any] = {}
            self._extra_leave_funcs: dict[Any, Any] = {}
            self._matchers: dict[Any, Any] = {}

        def on_visit(self, node: cst.CSTNode) -> bool:
            return cst.CSTVisitor.on_visit(self, node)

        def on_leave(self, original_node: cst.CSTNode) -> None:
            cst.CSTVisitor.on_leave(self, original_node)

        def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
            cst.CSTVisitor.on_visit_attribute(self, node, attribute)

        def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
            cst.CSTVisitor.on_leave_attribute(self, original_node, attribute)

    return _RemovedNodeVisitor
