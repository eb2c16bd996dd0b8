"""The parts of ``libcst.codemod`` the passes use, loaded only when a pass adds an import.

Importing ``libcst.codemod`` imports libcst's matcher module too (hundreds of generated dataclasses: about 0.2 s, a third
of the tool's start-up), and most runs never need it: most files are settled by the trigger-word scan or the stdlib
ast without libcst running a pass, and most of those libcst does run a pass over end without an edit. So a pass
transformer is given a :class:`PassContext` (the fields of libcst's ``CodemodContext``, defined here), import removals
are scheduled here as libcst's ``RemoveImportsVisitor`` schedules them, and libcst's codemod package is imported on the
first call that adds an import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.helpers import get_absolute_module_from_package_for_import, get_full_name_for_node
from libcst.metadata import Assignment, ScopeProvider

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


def codemod_context(context: PassContext) -> CodemodContext:
    """libcst's ``CodemodContext`` for ``context``: the same scratch dictionary (what libcst's import visitors schedule
    lands in ``context``), warnings and wrapper."""
    from libcst.codemod import CodemodContext

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
    context: PassContext,
    module: str,
    obj: str | None = None,
    asname: str | None = None,
    relative: int = 0,
) -> None:
    """``AddImportsVisitor.add_needed_import``: the engine adds the import after the pass."""
    from libcst.codemod.visitors import AddImportsVisitor

    AddImportsVisitor.add_needed_import(codemod_context(context), module, obj, asname, relative)


def remove_unused_import_by_node(context: PassContext, node: cst.CSTNode) -> None:
    """Schedule the removal of the imports ``node`` references, as libcst's
    ``RemoveImportsVisitor.remove_unused_import_by_node`` does (the engine drops those the new code no longer uses):
    every name of an import statement, else the imports that bind the names and attributes inside ``node``. Without
    libcst's codemod package (its matchers cost about 0.2 s to import); the same schedule (a test compares them)."""
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        _schedule_statement(context, node, None)
    else:
        node.visit(_ImportsOf(context))


def _schedule_removal(context: PassContext, module: str, obj: str | None, asname: str | None) -> None:
    scheduled = context.scratch.get(REMOVE_IMPORTS_KEY, [])
    if not isinstance(scheduled, list):
        raise TypeError(f"context.scratch[{REMOVE_IMPORTS_KEY!r}] is not a list")
    scheduled.append((module, obj, asname))
    context.scratch[REMOVE_IMPORTS_KEY] = scheduled


def _schedule_statement(
    context: PassContext, statement: cst.Import | cst.ImportFrom, local_name: str | None
) -> None:
    """Schedule the names ``statement`` imports: all of them, or (``local_name``) those binding ``local_name`` or a
    prefix of it (``torch`` for ``torch.cuda.amp``)."""
    module: str | None = None
    if isinstance(statement, cst.ImportFrom):
        if isinstance(statement.names, cst.ImportStar):
            return  # a star import is never removed
        module = get_absolute_module_from_package_for_import(context.full_package_name, statement)
        if module is None:
            raise ValueError("Cannot look up absolute module from relative import!")
    assert not isinstance(statement.names, cst.ImportStar)
    for alias in statement.names:
        bound = alias.evaluated_name if alias.evaluated_alias is None else alias.evaluated_alias
        if local_name is not None and local_name != bound and not local_name.startswith(f"{bound}."):
            continue
        if module is None:
            _schedule_removal(context, alias.evaluated_name, None, alias.evaluated_alias)
        else:
            _schedule_removal(context, module, alias.evaluated_name, alias.evaluated_alias)


class _ImportsOf(cst.CSTVisitor):
    """For each name and attribute inside a node: the imports binding it in its scope or an enclosing one."""

    def __init__(self, context: PassContext) -> None:
        super().__init__()
        self.context = context

    def _schedule(self, node: cst.Name | cst.Attribute) -> None:
        local_name = get_full_name_for_node(node)
        if local_name is None:
            return
        wrapper = self.context.wrapper
        if wrapper is None:
            raise ValueError("Cannot look up import, metadata is not computed for node!")
        scope = wrapper.resolve(ScopeProvider).get(node)
        if scope is None:
            return  # no scope: nothing to remove
        while True:
            for assignment in scope.assignments[node] or set():
                if isinstance(assignment, Assignment) and isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
                    _schedule_statement(self.context, assignment.node, local_name)
            if scope is scope.parent:
                break
            scope = scope.parent

    def visit_Name(self, node: cst.Name) -> None:
        self._schedule(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._schedule(node)
