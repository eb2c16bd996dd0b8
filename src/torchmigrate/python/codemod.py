"""The parts of ``libcst.codemod`` the passes use, loaded only when a pass schedules an import change.

Importing ``libcst.codemod`` imports libcst's matcher module too (hundreds of generated dataclasses: about 0.2 s, a third
of the tool's start-up), and most runs never need it: most files are settled by the trigger-word scan or the stdlib
ast without libcst running a pass, and most of those libcst does run a pass over end without an edit. So a pass
transformer is given a :class:`PassContext` (the fields of libcst's ``CodemodContext``, defined here), and libcst's
codemod package is imported on the first call that schedules or applies an import change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    "PassContext",
    "codemod_context",
    "new_context",
    "remove_imports_of",
    "remove_unused_import_by_node",
]

ADD_IMPORTS_KEY = "AddImportsVisitor"
"""Where ``AddImportsVisitor`` keeps the imports scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""
REMOVE_IMPORTS_KEY = "RemoveImportsVisitor"
"""Where ``RemoveImportsVisitor`` keeps the removals scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""


@dataclass(frozen=True)
class PassContext:
    """The fields of libcst's ``CodemodContext`` (which :func:`codemod_context` makes from this one, sharing its
    scratch dictionary, when libcst's import visitors need it), without importing ``libcst.codemod``."""

    warnings: list[str] = field(default_factory=list)
    scratch: dict[str, Any] = field(default_factory=dict)
    filename: str | None = None
    full_module_name: str | None = None
    full_package_name: str | None = None
    wrapper: MetadataWrapper | None = None
    metadata_manager: Any = None

    @property
    def module(self) -> cst.Module | None:
        """The module being transformed (``CodemodContext.module``)."""
        return None if self.wrapper is None else self.wrapper.module


def new_context(wrapper: MetadataWrapper) -> PassContext:
    return PassContext(wrapper=wrapper)


def codemod_context(context: PassContext | CodemodContext) -> CodemodContext:
    """libcst's ``CodemodContext`` for ``context``: the same scratch dictionary (what libcst's import visitors schedule
    lands in ``context``), warnings and wrapper."""
    from libcst.codemod import CodemodContext

    if isinstance(context, CodemodContext):
        return context
    return CodemodContext(
        warnings=context.warnings,
        scratch=context.scratch,
        filename=context.filename,
        full_module_name=context.full_module_name,
        full_package_name=context.full_package_name,
        wrapper=context.wrapper,
        metadata_manager=context.metadata_manager,
    )


def add_needed_import(
    context: PassContext | CodemodContext,
    module: str,
    obj: str | None = None,
    asname: str | None = None,
    relative: int = 0,
) -> None:
    """``AddImportsVisitor.add_needed_import``: the engine adds the import after the pass."""
    from libcst.codemod.visitors import AddImportsVisitor

    AddImportsVisitor.add_needed_import(codemod_context(context), module, obj, asname, relative)


def remove_unused_import_by_node(context: PassContext | CodemodContext, node: cst.CSTNode) -> None:
    """``RemoveImportsVisitor.remove_unused_import_by_node``: an import statement's names, removed if unused."""
    from libcst.codemod.visitors import RemoveImportsVisitor

    RemoveImportsVisitor.remove_unused_import_by_node(codemod_context(context), node)


def remove_imports_of(context: PassContext | CodemodContext, node: cst.CSTNode) -> None:
    """Schedule the removal of the imports that ``node`` references (what ``remove_unused_import_by_node`` does for
    a node that is not an import statement), on the plain visitor machinery."""
    node.visit(_removed_node_visitor()(codemod_context(context)))


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
