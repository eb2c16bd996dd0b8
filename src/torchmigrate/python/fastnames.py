"""Qualified names for libcst nodes without libcst's scope analysis, where the answer cannot depend on the scope.

``PassTransformer.qualname`` asks libcst's ``QualifiedNameProvider``, which needs ``ScopeProvider``: together about
45× an ``ast.parse`` of the file, resolved for every file that reaches libcst. Most questions do not need it:

- a name whose first component no import binds anywhere in the file (``self.norm``, ``x.load``, ``model``) has no
  import-based qualified name: ``None``;
- for a name whose first component an import binds somewhere (``torch``, ``nn``, ``F``),
  :class:`~torchmigrate.python.names.AstNames` (libcst's rules on the stdlib ast) gives the answer at each place the
  same expression occurs in the file, and when all those answers agree, that is the answer at every one of them
  (the names at binding sites — parameters, definitions, ``as`` targets, patterns — are not expressions: the caller
  asks libcst about them).

Anything else (a name rebound somewhere, answers that differ — a read before the import —, an expression that does not
occur in the ast as such) is :data:`UNKNOWN`: the caller asks libcst. ``tests/python/test_fastnames.py`` compares
the answers with libcst's on every pass example and on real files.
"""

from __future__ import annotations

import ast
from typing import Final

import libcst as cst

from torchmigrate.python.names import AstNames, full_name
from torchmigrate.python.precheck import all_nodes

__all__ = ["UNKNOWN", "FastNames"]


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()
_AMBIGUOUS: Final = _Unknown()
_EXPRESSIONS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


class FastNames:
    """The scope-free answers of one file's text (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        imported: set[str] = set()  # first components any import binds, in any scope
        other: set[str] = set()  # ... bound any other way (an assignment, a definition, a parameter, ...)
        for node in all_nodes(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                straight = isinstance(node, ast.Import)
                for alias in node.names:
                    if alias.name != "*":
                        imported.add(alias.asname or (alias.name.partition(".")[0] if straight else alias.name))
            else:
                other.update(_bound_names(node))
        self._imported = frozenset(imported)
        # Where the same expression gets the same answer at every place it occurs, no scope can change it (a nested
        # import or an assignment that binds it differently makes the answers differ). A name that is also bound
        # otherwise is answered too: the binding sites themselves (parameters, definitions) are not expressions, and
        # the caller asks libcst about those.
        fast = imported
        answers: dict[str, object] = {}
        if fast:
            names = AstNames(tree)
            for node in all_nodes(tree):
                if isinstance(node, _EXPRESSIONS):
                    name = full_name(node)
                    if name is None or name.partition(".")[0] not in fast:
                        continue
                    answer = names.qualname(node)
                    seen = answers.get(name, UNKNOWN)
                    if seen is UNKNOWN:
                        answers[name] = answer
                    elif seen != answer:
                        answers[name] = _AMBIGUOUS
            names.release()
        self._answers = answers

    def lookup(self, node: cst.CSTNode, binding: bool = False) -> str | None | _Unknown:
        """The single import-based qualified name of ``node`` as libcst would give it, ``None``, or :data:`UNKNOWN`.
        ``binding``: ``node`` is the name at a binding site (a parameter, a definition, an ``as`` target, a pattern)."""
        if not isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return UNKNOWN
        name = _cst_full_name(node)
        if name is None:
            return None  # no full name: libcst has no qualified name for it either
        if name.partition(".")[0] not in self._imported:
            return None
        if binding:
            return UNKNOWN  # not an expression the answers cover
        answer = self._answers.get(name, UNKNOWN)
        if answer is _AMBIGUOUS:
            return UNKNOWN
        return answer  # type: ignore[return-value]


def _cst_full_name(node: cst.CSTNode) -> str | None:
    """:func:`torchmigrate.python.names.full_name` on a libcst node (``None`` where a part has no name)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _cst_full_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    if isinstance(node, cst.Call):
        return _cst_full_name(node.func)
    if isinstance(node, cst.Subscript):
        return _cst_full_name(node.value)
    return None


def _bound_names(node: ast.AST) -> list[str]:
    """The names ``node`` itself binds (not its imports): targets, definitions, parameters, handlers, patterns."""
    if isinstance(node, ast.Name):
        return [node.id] if not isinstance(node.ctx, ast.Load) else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, ast.ExceptHandler):
        return [node.name] if node.name else []
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    name = getattr(node, "name", None)  # type parameters (3.12)
    return [name] if isinstance(name, str) and type(node).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple") else []
