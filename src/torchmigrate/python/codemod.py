"""The parts of ``libcst.codemod`` the passes use, loaded only when a pass adds an import.

Importing ``libcst.codemod`` imports libcst's matcher module too (hundreds of generated dataclasses: about 0.2 s, a third
of the tool's start-up), and most runs never need it: most files are settled by the trigger-word scan or the stdlib
ast without libcst running a pass, and most of those libcst does run a pass over end without an edit. So a pass
transformer is given a :class:`PassContext` (the fields of libcst's ``CodemodContext``, defined here), import removals
are scheduled here as libcst's ``RemoveImportsVisitor`` schedules them, and libcst's codemod package is imported on the
first call that adds an import.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, TypeVar, cast

import libcst as cst
from libcst.helpers import get_absolute_module_from_package_for_import, get_full_name_for_node
from libcst.metadata import Assignment, BatchableMetadataProvider, ScopeProvider
from libcst.metadata.base_provider import BaseMetadataProvider

from torchmigrate.core.passes import dotted_prefixes

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
    "resolve_metadata",
]

_T = TypeVar("_T")

ADD_IMPORTS_KEY = "AddImportsVisitor"
"""Where ``AddImportsVisitor`` keeps the imports scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""
REMOVE_IMPORTS_KEY = "RemoveImportsVisitor"
"""Where ``RemoveImportsVisitor`` keeps the removals scheduled in ``context.scratch`` (its ``CONTEXT_KEY``)."""


def resolve_metadata(wrapper: MetadataWrapper, key: type[BaseMetadataProvider[_T]]) -> Mapping[cst.CSTNode, _T]:
    """``wrapper.resolve(key)``, without the visit of the whole tree that libcst's resolver makes for a provider that
    is not batchable: it generates such a provider (``PositionProvider``: a codegen of the module) and then visits the
    tree with an empty batch of visitors, about 40% of ``PositionProvider``'s cost. The mapping is the one libcst
    generates, kept where the wrapper keeps it, so a later ``resolve`` of the same wrapper reuses it."""
    known: MutableMapping[Any, Any] = wrapper._metadata
    if key in known:
        return cast("Mapping[cst.CSTNode, _T]", known[key])
    if issubclass(key, BatchableMetadataProvider) or key.METADATA_DEPENDENCIES or key.gen_cache:
        return wrapper.resolve(key)
    table = known[key] = key()._gen(wrapper)  # what libcst's _resolve_impl stores for it
    return cast("Mapping[cst.CSTNode, _T]", table)


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


# --- import removals without the scope analysis ------------------------------------------------------------------
#
# ``_ImportsOf`` asks libcst's scope analysis (the costliest metadata: a third of the libcst time of torch's own
# sources went to the removals of five files) which imports bind each name inside the node. When no import inside a
# function or class binds any of those names, the only imports that can answer are the module's own, which every
# scope chain ends in: the schedule follows from a walk of the module's statements. That needs the names libcst gives
# a scope to be known without it, which holds for plain expressions (below): every name but an attribute's ``attr``
# and a keyword argument's name. Anything else falls back to libcst (``tests/python/test_imports.py`` compares both).

_PLAIN_PARTS = (
    cst.Name, cst.Attribute, cst.Call, cst.Arg, cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice,
    cst.Tuple, cst.List, cst.Element, cst.StarredElement, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
    cst.ConcatenatedString, cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
    cst.ComparisonTarget, cst.BaseBinaryOp, cst.BaseUnaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.Ellipsis,
    cst.Comma, cst.Dot, cst.Colon, cst.AssignEqual, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
    cst.RightSquareBracket, cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.EmptyLine,
    cst.Newline, cst.Comment,
)
# libcst's scope visitor skips the first argument of a call to these (by qualified name; any alias counts here).
_TYPING_CALLS = frozenset({"NewType", "TypeVar"})

ImportStatement = cst.Import | cst.ImportFrom


@dataclass
class ModuleImports:
    """The import statements of a module by the names libcst's scope analysis records for them (``import a.b``:
    ``a.b`` and ``a``): ``own``, those of the module's own scope; ``nested``, the names imports inside functions and
    classes record; ``typing_aliases``, local names bound to ``typing.NewType`` / ``TypeVar``."""

    own: dict[str, list[ImportStatement]] = field(default_factory=dict)
    nested: set[str] = field(default_factory=set)
    typing_aliases: set[str] = field(default_factory=set)


def module_imports(module: cst.Module) -> ModuleImports:
    """A walk of ``module``'s statements: the children of every node but expressions (no expression holds an import),
    the body of a statement line read directly."""
    found = ModuleImports()
    pending: list[tuple[cst.CSTNode, bool]] = [(module, True)]
    while pending:
        node, own = pending.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    _record_import(found, small, own)
            continue
        inner = own and not isinstance(node, (cst.FunctionDef, cst.ClassDef))
        pending.extend((child, inner) for child in node.children if not isinstance(child, cst.BaseExpression))
    return found


def _record_import(found: ModuleImports, statement: ImportStatement, own: bool) -> None:
    if isinstance(statement.names, cst.ImportStar):
        return  # libcst records nothing for a star import
    source = get_full_name_for_node(statement.module) if isinstance(statement, cst.ImportFrom) and statement.module else None
    for alias in statement.names:
        target = alias.asname.name if alias.asname is not None else alias.name
        if not isinstance(target, (cst.Name, cst.Attribute)):
            continue
        names = _dotted_names(target)
        if source in ("typing", "typing_extensions") and alias.evaluated_name in _TYPING_CALLS:
            found.typing_aliases.update(names)
        for name in names:
            if own:
                found.own.setdefault(name, []).append(statement)
            else:
                found.nested.add(name)


def _dotted_names(node: cst.Name | cst.Attribute) -> list[str]:
    """``a.b.c``, ``a.b``, ``a``: the names libcst records for an imported dotted name."""
    full = get_full_name_for_node(node) or ""
    return [full, *reversed(list(dotted_prefixes(full)))]


def schedule_from_module_imports(
    context: PassContext, node: cst.CSTNode, ancestors: Sequence[cst.CSTNode], imports: ModuleImports
) -> bool:
    """Schedule what :func:`remove_unused_import_by_node` would for ``node`` — a node of the tree being visited,
    below ``ancestors`` (the module first) — without the scope analysis, when that is certain to give the same
    schedule; ``False`` (nothing scheduled) when it is not: ``node`` is not a plain expression, it lies where libcst
    gives no scope (in an import statement, an attribute's name, a keyword argument's name, ``typing.NewType``'s first
    argument), or an import inside a function or class binds one of its names."""
    path = [*ancestors, node]
    for parent, child in pairwise(path):
        if isinstance(parent, _UNSCOPED_CONTEXTS) or _unscoped_child(parent, child):
            return False
        if isinstance(parent, cst.Call) and _typing_call(parent, imports):
            return False
    names: list[str] = []
    pending: list[cst.CSTNode] = [node]
    while pending:
        current = pending.pop()
        if not isinstance(current, _PLAIN_PARTS) or (isinstance(current, cst.Call) and _typing_call(current, imports)):
            return False
        if isinstance(current, (cst.Name, cst.Attribute)):
            full = get_full_name_for_node(current)
            if full is not None:
                if full in imports.nested:
                    return False
                names.append(full)
        pending.extend(child for child in current.children if not _unscoped_child(current, child))
    for full in names:
        for statement in imports.own.get(full, ()):
            _schedule_statement(context, statement, full)
    return True


# Where libcst gives the names below no scope, or visits them its own way: import statements, ``global`` /
# ``nonlocal``, and (left to libcst, to be safe) type parameters and ``type`` aliases.
_UNSCOPED_CONTEXTS = (cst.Import, cst.ImportFrom, cst.ImportAlias, cst.Global, cst.Nonlocal, cst.NameItem) + tuple(
    getattr(cst, name) for name in ("TypeAlias", "TypeParam", "TypeVar", "TypeVarTuple", "ParamSpec") if hasattr(cst, name)
)


def _unscoped_child(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether libcst's scope visitor leaves ``child`` of ``parent`` unvisited (no scope, so nothing to schedule):
    an attribute's name, a keyword argument's name."""
    if isinstance(parent, cst.Attribute):
        return child is parent.attr
    if isinstance(parent, cst.Arg):
        return child is parent.keyword
    return False


def _typing_call(call: cst.Call, imports: ModuleImports) -> bool:
    full = get_full_name_for_node(call.func)
    return full is not None and (full.rpartition(".")[2] in _TYPING_CALLS or full in imports.typing_aliases)


def scope_resolved(wrapper: MetadataWrapper | None) -> bool:
    """Whether libcst's scope analysis of ``wrapper``'s module is already done (then asking it costs nothing)."""
    return wrapper is not None and ScopeProvider in wrapper._metadata
