"""Import-based qualified names from the stdlib ``ast``: what libcst's scope analysis would say, at a fraction of its cost.

Passes decide in libcst with ``PassTransformer.qualname`` (libcst's ``QualifiedNameProvider``: the names imports
bind, scope by scope). Finding a pass's *sites* before libcst runs needs the same answers from the stdlib ``ast``, so
this module follows libcst's rules (``libcst.metadata.scope_provider``), not Python's:

- scopes: the module, each function and lambda, each class (invisible to the functions inside it), each
  comprehension (its first iterable is evaluated outside it); ``global`` / ``nonlocal`` redirect a name;
- every binding of a name in a scope counts (an ``if``/``else`` import pair binds two), but a *name* read before any
  binding in its own scope resolves in the enclosing scope, by the same assignment counter libcst keeps;
- ``import a.b.c`` binds ``a``, ``a.b`` and ``a.b.c``; an attribute chain resolves through the longest bound prefix;
- a name bound by two different imports has no single qualified name, and neither has a name only the file binds.

``tests/python/test_names.py`` compares :meth:`AstNames.qualname` with libcst's answer on every name and attribute
of every pass example and of real files.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field

from torchmigrate.python.precheck import child_nodes

__all__ = ["AstNames"]

IMPORT, LOCAL, BUILTIN = "import", "local", "builtin"


@dataclass(eq=False)
class _Binding:
    name: str
    scope: _Scope
    index: int
    node: ast.AST  # the import statement, or the node that binds the name
    alias: ast.alias | None = None  # for imports: the alias that binds it

    def qualified(self, full_name: str) -> set[tuple[str, str]]:
        if self.alias is None:
            prefix = self.scope.prefix
            return {(f"{prefix}.{full_name}" if prefix else full_name, LOCAL)}
        return _import_names(self.node, full_name)


def _import_names(node: ast.AST, full_name: str) -> set[tuple[str, str]]:
    """libcst's ``ImportAssignment.get_qualified_names_for``: the first alias of the statement that ``full_name``
    starts with decides."""
    module = ""
    if isinstance(node, ast.ImportFrom):
        module = "." * node.level + (node.module or "")
    results: set[tuple[str, str]] = set()
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    for alias in node.names:
        if alias.name == "*":
            continue
        parts = alias.name.split(".")
        for cut in range(len(parts), 0, -1):
            real_name = ".".join(parts[:cut])
            as_name = real_name
            if module and module.endswith("."):
                real_name = f"{module}{real_name}"
            elif module:
                real_name = f"{module}.{real_name}"
            if alias.asname:
                as_name = alias.asname
            if full_name.startswith(as_name):
                remaining = full_name.split(as_name, 1)[1]
                if remaining and not remaining.startswith("."):
                    continue
                remaining = remaining.lstrip(".")
                results.add((f"{real_name}.{remaining}" if remaining else real_name, IMPORT))
                break
    return results


class _Scope:
    """One of libcst's scopes (builtin, global, function, class, comprehension), with its resolution rules."""

    def __init__(self, parent: _Scope | None, kind: str, name: str | None = None) -> None:
        self.parent: _Scope = parent if parent is not None else self
        self.kind = kind
        self.bindings: dict[str, list[_Binding]] = {}
        self.overwrites: dict[str, _Scope] = {}
        self.count = 0  # libcst's _assignment_count
        self.globals: _Scope = self if kind in ("global", "builtin") else self.parent.globals
        if kind in ("global", "builtin"):
            self.prefix = ""
        elif kind == "function":
            self.prefix = ".".join(filter(None, [self.parent.prefix, name, "<locals>"]))
        elif kind == "class":
            self.prefix = ".".join(filter(None, [self.parent.prefix, name]))
        else:
            self.prefix = ".".join(filter(None, [self.parent.prefix, "<comprehension>"]))

    def _visible_from_children(self) -> bool:
        return self.kind != "class"

    def next_visible_parent(self, first: _Scope | None = None) -> _Scope:
        parent = first if first is not None else self.parent
        while not parent._visible_from_children():
            parent = parent.parent
        return parent

    def contains(self, name: str) -> bool:
        """libcst's ``name in scope``."""
        if self.kind == "builtin":
            return hasattr(builtins, name)
        if self.kind != "global" and name in self.overwrites:
            return self.overwrites[name].contains(name)
        if name in self.bindings:
            return bool(self.bindings[name])
        return self.next_visible_parent().contains(name)

    def resolve(self, name: str, from_scope: _Scope) -> list[_Binding]:
        """libcst's ``_resolve_scope_for_access``."""
        if self.kind == "builtin":
            if name not in self.bindings and hasattr(builtins, name):
                self.bindings[name] = [_Binding(name, self, -1, self._builtin_node)]
            return self.bindings.get(name, [])
        if self.kind != "global" and name in self.overwrites:
            return self.next_visible_parent(self.overwrites[name]).resolve(name, from_scope)
        if name in self.bindings:
            return self.bindings[name]
        return self.next_visible_parent().resolve(name, from_scope)

    _builtin_node = ast.Pass()

    def target(self, name: str) -> _Scope:
        """libcst's ``_find_assignment_target``: where a binding of ``name`` written in this scope lands."""
        if self.kind not in ("global", "builtin") and name in self.overwrites:
            return self.next_visible_parent(self.overwrites[name]).target(name)
        return self

    def bind(self, name: str, node: ast.AST, alias: ast.alias | None = None) -> None:
        scope = self.target(name)
        scope.bindings.setdefault(name, []).append(_Binding(name, scope, scope.count, node, alias))


@dataclass
class _Access:
    node: ast.expr  # the Name, or the Attribute of the longest bound dotted prefix
    name: str
    scope: _Scope
    index: int
    referents: list[_Binding] = field(default_factory=list)


def _dotted(node: ast.expr) -> list[tuple[str, ast.expr]]:
    """libcst's ``_gen_dotted_names``: ``a.b.c`` → [("a.b.c", node), ("a.b", …), ("a", …)]; empty if not a chain."""
    if isinstance(node, ast.Name):
        return [(node.id, node)]
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        if not inner:
            return []
        return [(f"{inner[0][0]}.{node.attr}", node), *inner]
    return []


def full_name(node: ast.AST) -> str | None:
    """libcst's ``get_full_name_for_node`` for the expressions passes ask about."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = full_name(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Call):
        return full_name(node.func)
    if isinstance(node, ast.Subscript):
        return full_name(node.value)
    return None


class _Visitor:
    """Builds the scopes and records every access, in libcst's visiting order (it decides the assignment counter)."""

    def __init__(self) -> None:
        self.builtins = _Scope(None, "builtin")
        self.scope = _Scope(self.builtins, "global")
        self.scopes: list[_Scope] = [self.builtins, self.scope]  # every scope made, for AstNames.release
        self.module_scope = self.scope
        self.deferred: list[tuple[ast.Name, _Scope, int, ast.expr | None]] = []
        self.top_attribute: list[ast.expr | None] = [None]
        self.scope_of: dict[int, _Scope] = {}

    # -- helpers --
    def visit(self, node: ast.AST | None) -> None:
        if node is None:
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.generic(node)
        if isinstance(node, _COUNTED):
            self.scope.count += 1

    def generic(self, node: ast.AST) -> None:
        for value in child_nodes(node):
            self.visit(value)

    def visit_all(self, nodes: Sequence[ast.AST]) -> None:
        for child in nodes:
            self.visit(child)

    def new_scope(self, kind: str, name: str | None = None) -> _Scope:
        made = _Scope(self.scope, kind, name)
        self.scopes.append(made)
        return made

    # -- imports --
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            names = [alias.asname] if alias.asname else [n for n, _ in _dotted(_parse_dotted(alias.name))]
            for name in names:
                self.scope.bind(name, node, alias)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                return
            self.scope.bind(alias.asname or alias.name, node, alias)

    # -- names --
    def visit_Name(self, node: ast.Name) -> None:
        self.scope_of[id(node)] = self.scope
        if isinstance(node.ctx, ast.Store):
            self.scope.bind(node.id, node)
        else:
            self.deferred.append((node, self.scope, self.scope.count, self.top_attribute[-1]))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.scope_of[id(node)] = self.scope
        top = self.top_attribute[-1] is None
        if top:
            self.top_attribute[-1] = node
        self.visit(node.value)
        if top:
            self.top_attribute[-1] = None

    def visit_Call(self, node: ast.Call) -> None:
        self.scope_of[id(node)] = self.scope
        self.top_attribute.append(None)
        self.visit(node.func)
        self.visit_all(node.args)
        for keyword in node.keywords:
            self.visit(keyword.value)
        self.top_attribute.pop()

    # -- definitions --
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.bind(node.name, node)
        outer = self.scope
        self.scope = self.new_scope("function", node.name)
        self.visit_arguments_in(node.args, outer)
        self.visit_all(node.body)
        self.scope = outer
        self.visit_all(node.decorator_list)
        self.visit(node.returns)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        outer = self.scope
        self.scope = self.new_scope("function")
        self.visit_arguments_in(node.args, outer)
        self.visit(node.body)
        self.scope = outer

    def visit_arguments_in(self, args: ast.arguments, outer: _Scope) -> None:
        """Parameters bind in the new scope; their defaults and annotations are read in the enclosing one."""
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        params: list[tuple[ast.arg, ast.expr | None]] = list(zip(positional, defaults, strict=True))
        if args.vararg is not None:
            params.append((args.vararg, None))
        params += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
        if args.kwarg is not None:
            params.append((args.kwarg, None))
        inner = self.scope
        for param, default in params:
            inner.bind(param.arg, param)
            self.scope = outer
            self.visit(default)
            self.visit(param.annotation)
            self.scope = inner
        inner.count += 1  # libcst counts the Parameters node

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.bind(node.name, node)
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        for keyword in node.keywords:
            self.visit(keyword.value)
        outer = self.scope
        self.scope = self.new_scope("class", node.name)
        self.visit_all(node.body)
        self.scope = outer

    def visit_Global(self, node: ast.Global) -> None:
        if self.scope.kind != "global":
            for name in node.names:
                self.scope.overwrites[name] = self.scope.globals

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self.scope.overwrites[name] = self.scope.parent

    # -- comprehensions --
    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        first, *rest = node.generators
        self.visit(first.iter)
        outer = self.scope
        self.scope = self.new_scope("comprehension")
        self.visit(first.target)
        self.scope.count += 1
        self.visit_all(first.ifs)
        self._later_generators(rest)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def _later_generators(self, generators: list[ast.comprehension]) -> None:
        """libcst visits a nested ``CompFor`` as target, iter, ifs, the next one, and counts it on leaving."""
        if not generators:
            return
        first, *rest = generators
        self.visit(first.target)
        self.visit(first.iter)
        self.visit_all(first.ifs)
        self._later_generators(rest)
        self.scope.count += 1

    # -- statements whose children libcst visits in another order than ast.iter_child_nodes --
    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.target)
        self.scope.count += 1
        self.visit(node.iter)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    visit_AsyncFor = visit_For

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        # libcst binds the target in the scope it is written in (comprehensions included)
        self.visit(node.target)
        self.visit(node.value)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.visit(node.type)
        if node.name:
            self.scope.bind(node.name, node)
            self.scope.count += 1  # the AsName
        self.visit_all(node.body)

    def visit_alias(self, node: ast.alias) -> None:
        return

    def visit_withitem(self, node: ast.withitem) -> None:
        self.visit(node.context_expr)
        if node.optional_vars is not None:
            self.visit(node.optional_vars)
            self.scope.count += 1  # libcst's AsName; the WithItem itself is counted by visit()

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.visit(node.pattern)
        if node.name:
            self.scope.bind(node.name, node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.scope.bind(node.name, node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.visit_all(node.keys)
        self.visit_all(node.patterns)
        if node.rest:
            self.scope.bind(node.rest, node)

    # -- accesses --
    def infer(self) -> dict[int, _Access]:
        """libcst's ``infer_accesses``: each access node (a Name, or the Attribute of the longest bound dotted
        prefix of the chain it starts) with the bindings it refers to."""
        accesses: dict[int, _Access] = {}
        for name_node, scope, index, enclosing in self.deferred:
            node: ast.expr = name_node
            name = name_node.id
            if enclosing is not None:
                for dotted, part in _dotted(enclosing):
                    if scope.contains(dotted):
                        node, name = part, dotted
                        break
            bindings = scope.resolve(name, scope)
            previous = [b for b in bindings if b.scope is not scope or b.index < index]
            if not previous and bindings and scope.parent is not scope:
                previous = scope.parent.resolve(name, scope)
            accesses[id(node)] = _Access(node, name, scope, index, list(previous))
        return accesses


def _parse_dotted(name: str) -> ast.expr:
    expr = ast.parse(name, mode="eval").body
    return expr


_COUNTED = (
    ast.AnnAssign,
    ast.Assign,
    ast.AugAssign,
    ast.ClassDef,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Global,
    ast.Import,
    ast.ImportFrom,
    ast.NamedExpr,
    ast.Nonlocal,
    ast.withitem,
)


class AstNames:
    """Qualified names of the names and attribute chains of one parsed file (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        visitor = _Visitor()
        visitor.visit_all(tree.body)
        self._scope_of = visitor.scope_of
        self._module = visitor.module_scope
        self._accesses = visitor.infer()
        self._scopes = visitor.scopes

    def release(self) -> None:
        """Break the scope model's reference cycles (a scope and its bindings point at each other) once the file is
        done with, so that its objects go as soon as the last reference does, not at the next collection of the
        cyclic garbage: the collector walks them again until then (a tenth of a run's time on torch's tree).
        The names are unusable afterwards."""
        for scope in self._scopes:
            vars(scope).clear()
        self._scopes = []
        self._accesses = {}
        self._scope_of = {}

    def scope(self, node: ast.AST) -> _Scope:
        return self._scope_of.get(id(node), self._module)

    def qualified_names(self, node: ast.expr) -> set[tuple[str, str]]:
        """(qualified name, source) pairs for ``node``, as libcst's ``QualifiedNameProvider`` gives them."""
        access = self._accesses.get(id(node))
        if access is not None:
            return {q for b in access.referents for q in b.qualified(b.name)}
        name = full_name(node)
        if name is None:
            return set()
        scope = self.scope(node)
        bindings: list[_Binding] = []
        prefix: str | None = name
        while prefix:
            if scope.contains(prefix):
                bindings = scope.resolve(prefix, scope)
                break
            cut = prefix.rfind(".")
            prefix = None if cut == -1 else prefix[:cut]
        for binding in bindings:
            if binding.node is node:  # the node is this binding itself (an assignment target): only it counts
                return binding.qualified(name)
        results: set[tuple[str, str]] = set()
        for binding in bindings:
            if binding.scope.kind == "builtin":
                results.add((f"builtins.{binding.name}", BUILTIN))
            else:
                results |= binding.qualified(name)
        return results

    def qualname(self, node: ast.expr) -> str | None:
        """The single import-based qualified name of ``node`` (``torch.jit.trace`` for ``th.jit.trace``), or ``None``
        — the same answer as ``PassTransformer.qualname`` on the libcst node."""
        found = {name for name, source in self.qualified_names(node) if source == IMPORT}
        return found.pop() if len(found) == 1 else None
