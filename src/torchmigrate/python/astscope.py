"""Names in the stdlib ``ast``: which import a name or attribute chain stands for, where a name is bound and used.

For passes that decide from the ``ast`` alone (``Pass.analyse``): one iterative walk builds a flow-insensitive scope
model with Python's rules — function and lambda scopes, class bodies that nested functions do not see, comprehensions,
``global`` / ``nonlocal`` — plus parent links. :meth:`Names.qualname` resolves as the libcst passes do
(:meth:`torchmigrate.python.transform.PassTransformer.qualname`): a name stands for an import when exactly one
import in the scope that binds it gives it a qualified name (other, non-import bindings of the name do not count, as
libcst's ``QualifiedNameSource.IMPORT`` filter ignores them); look-alikes (``self.trace``, a local variable ``jit``)
stand for nothing. Positions: :func:`span` gives a node's range in libcst's terms (columns in characters, not the
UTF-8 bytes ``ast`` counts), so a plan made here can find its nodes again through libcst's ``PositionProvider``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from torchmigrate.python.guards import is_version_guard_ast
from torchmigrate.python.lastfile import keeps

__all__ = ["Names", "Scope", "Span", "chain", "names_of", "span"]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


@dataclass(eq=False)
class Scope:
    """One scope: ``kind`` is ``module``, ``function`` (also a lambda), ``class`` or ``comprehension``."""

    kind: str
    node: ast.AST
    parent: Scope | None
    bindings: dict[str, list[ast.AST]] = field(default_factory=dict)  # name → the nodes that bind it
    imports: dict[str, set[str]] = field(default_factory=dict)  # name → qualified names imports bind it to
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def function(self) -> Scope:
        """The nearest enclosing function (or the module) scope: where code in this scope runs."""
        scope: Scope = self
        while scope.kind in ("comprehension", "class") and scope.parent is not None:
            scope = scope.parent
        return scope


@dataclass(frozen=True)
class Span:
    """Where a node lies: (line, column) of its start and end, lines 1-based, columns 0-based in characters."""

    start: tuple[int, int]
    end: tuple[int, int]


class _Columns:
    """Byte offsets (what ``ast`` gives) to character columns (what libcst gives), per line."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def column(self, line: int, offset: int) -> int:
        if not 0 < line <= len(self.lines):
            return offset
        text = self.lines[line - 1]
        if text.isascii():
            return offset
        return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))


def chain(node: ast.AST) -> str | None:
    """``a.b.c`` for a name or an attribute chain rooted at a name, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _root(node: ast.AST) -> ast.Name | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def span(node: ast.AST, names: Names) -> Span:
    """``node``'s range as libcst's ``PositionProvider`` gives it (parentheses around the node excluded, as in both)."""
    line: int = getattr(node, "lineno", 0)
    end_line: int = getattr(node, "end_lineno", None) or line
    start = names.columns.column(line, getattr(node, "col_offset", 0))
    end = names.columns.column(end_line, getattr(node, "end_col_offset", None) or 0)
    return Span((line, start), (end_line, end))


class Names:
    """The scopes, bindings, loads and parents of one module's ``ast``."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        self.tree = tree
        self.columns = _Columns(text)
        self.parents: dict[int, ast.AST] = {}
        self.scopes: dict[int, Scope] = {}  # id(node) → the scope the node is evaluated in
        self.loads: dict[str, list[ast.Name]] = {}  # name → every load of it, in file order
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.classes: list[ast.ClassDef] = []  # in file order
        self._bound_to: dict[str, set[str]] = {}  # top-level module → local names imports bind to something in it
        self._guards: dict[int, bool] = {}
        self.module_scope = Scope("module", tree, None)
        self._build()

    # --- building ----------------------------------------------------------------------------------------

    def _bind(self, scope: Scope, name: str, node: ast.AST, qualname: str | None = None) -> None:
        if name in scope.declared_global:
            scope = scope.module()
        scope.bindings.setdefault(name, []).append(node)
        if qualname is not None:
            scope.imports.setdefault(name, set()).add(qualname)
            self._bound_to.setdefault(qualname.split(".")[0], set()).add(name)

    def _build(self) -> None:
        stack: list[tuple[ast.AST, Scope]] = [(self.tree, self.module_scope)]
        parents = self.parents
        scopes = self.scopes
        while stack:
            node, scope = stack.pop()
            scopes[id(node)] = scope
            kind = type(node)
            later: list[tuple[ast.AST, Scope]] = []  # children, in source order
            owned: list[tuple[ast.AST, ast.AST]] = []  # (child, parent) where the parent is not ``node``
            if kind is ast.Name:
                if isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    self.loads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined, arg-type]
                else:
                    self._bind(scope, node.id, node)  # type: ignore[attr-defined]
                continue
            if kind in _FUNCTIONS or kind is ast.Lambda:
                inner = Scope("function", node, scope)
                args: ast.arguments = node.args  # type: ignore[attr-defined]
                if kind is not ast.Lambda:
                    self._bind(scope, node.name, node)  # type: ignore[attr-defined]
                    later += [(d, scope) for d in node.decorator_list]  # type: ignore[attr-defined]
                    if node.returns is not None:  # type: ignore[attr-defined]
                        later.append((node.returns, scope))  # type: ignore[attr-defined]
                later += [(d, scope) for d in (*args.defaults, *args.kw_defaults) if d is not None]
                for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
                    if a is not None:
                        parents[id(a)] = node
                        scopes[id(a)] = inner
                        self._bind(inner, a.arg, a)
                        if a.annotation is not None:
                            later.append((a.annotation, scope))
                            owned.append((a.annotation, a))
                body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
                later += [(b, inner) for b in body]
            elif kind is ast.ClassDef:
                self.classes.append(node)  # type: ignore[arg-type]
                self._bind(scope, node.name, node)  # type: ignore[attr-defined]
                inner = Scope("class", node, scope)
                later += [(d, scope) for d in node.decorator_list]  # type: ignore[attr-defined]
                later += [(b, scope) for b in node.bases]  # type: ignore[attr-defined]
                later += [(k, scope) for k in node.keywords]  # type: ignore[attr-defined]
                later += [(b, inner) for b in node.body]  # type: ignore[attr-defined]
            elif kind in _COMPREHENSIONS:
                inner = Scope("comprehension", node, scope)
                generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
                for index, generator in enumerate(generators):
                    parents[id(generator)] = node
                    scopes[id(generator)] = inner
                    later.append((generator.iter, scope if index == 0 else inner))
                    later.append((generator.target, inner))
                    later += [(test, inner) for test in generator.ifs]
                    for part in (generator.iter, generator.target, *generator.ifs):
                        parents[id(part)] = generator
                if kind is ast.DictComp:
                    later += [(node.key, inner), (node.value, inner)]  # type: ignore[attr-defined]
                else:
                    later.append((node.elt, inner))  # type: ignore[attr-defined]
                for item, _ in later:
                    parents.setdefault(id(item), node)
                stack.extend(reversed(later))
                continue
            elif kind is ast.Import:
                self.imports.append(node)  # type: ignore[arg-type]
                for alias in node.names:  # type: ignore[attr-defined]
                    if alias.asname:
                        self._bind(scope, alias.asname, alias, alias.name)
                    else:
                        root = alias.name.split(".")[0]
                        self._bind(scope, root, alias, root)
            elif kind is ast.ImportFrom:
                self.imports.append(node)  # type: ignore[arg-type]
                module = node.module or ""  # type: ignore[attr-defined]
                prefix = "." * node.level + module  # type: ignore[attr-defined]
                for alias in node.names:  # type: ignore[attr-defined]
                    if alias.name == "*":
                        continue
                    qualname = f"{prefix}.{alias.name}" if module else prefix + alias.name  # libcst's `.mod.name`
                    self._bind(scope, alias.asname or alias.name, alias, qualname)
            elif kind is ast.Global:
                scope.declared_global.update(node.names)  # type: ignore[attr-defined]
            elif kind is ast.Nonlocal:
                scope.declared_nonlocal.update(node.names)  # type: ignore[attr-defined]
            elif kind is ast.ExceptHandler and node.name:  # type: ignore[attr-defined]
                self._bind(scope, node.name, node)  # type: ignore[attr-defined]
            elif kind in (ast.MatchAs, ast.MatchStar) and node.name:  # type: ignore[attr-defined]
                self._bind(scope, node.name, node)  # type: ignore[attr-defined]
            elif kind is ast.MatchMapping and node.rest:  # type: ignore[attr-defined]
                self._bind(scope, node.rest, node)  # type: ignore[attr-defined]
            if not later:
                later = [(child, scope) for child in ast.iter_child_nodes(node)]
            for child, _ in later:
                parents[id(child)] = node
            for child, parent in owned:
                parents[id(child)] = parent
            stack.extend(reversed(later))

    # --- queries -----------------------------------------------------------------------------------------

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        parent = self.parents.get(id(node))
        while parent is not None:
            yield parent
            parent = self.parents.get(id(parent))

    def guarded(self, node: ast.AST) -> bool:
        """Whether ``node`` lies in version-gated code (``python.guards``: a torch version check, an import fallback),
        which passes leave alone."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, (ast.If, ast.IfExp, ast.Try)):
                found = self._guards.get(id(ancestor))
                if found is None:
                    found = self._guards[id(ancestor)] = is_version_guard_ast(ancestor)
                if found:
                    return True
        return False

    def scope(self, node: ast.AST) -> Scope:
        """The scope ``node`` is evaluated in (a def's name and decorators: the enclosing one)."""
        return self.scopes.get(id(node), self.module_scope)

    def lookup(self, scope: Scope, name: str) -> Scope | None:
        """The scope whose binding of ``name`` a use in ``scope`` refers to (``None``: a builtin or undefined)."""
        current: Scope | None = scope
        first = True
        while current is not None:
            if current.kind == "class" and not first:  # class bodies are not seen from the functions inside them
                current = current.parent
                continue
            if name in current.declared_global:
                module = current.module()
                return module if name in module.bindings else None
            if name in current.bindings and name not in current.declared_nonlocal:
                return current
            first = False
            current = current.parent
        return None

    def resolve(self, name: ast.Name) -> Scope | None:
        return self.lookup(self.scope(name), name.id)

    def qualname(self, node: ast.AST) -> str | None:
        """The single import-based qualified name of a name or attribute chain (``torch.jit.trace`` for
        ``th.jit.trace``), or ``None``."""
        root = _root(node)
        if root is None:
            return None
        scope = self.resolve(root)
        if scope is None:
            return None
        found = scope.imports.get(root.id)
        if not found or len(found) != 1:
            return None
        dotted = chain(node)
        assert dotted is not None
        return next(iter(found)) + dotted[len(root.id) :]

    def rooted(self, *modules: str) -> list[tuple[ast.expr, str]]:
        """Every maximal name or attribute chain (``torch.jit.trace`` in ``torch.jit.trace(m, x)``) whose import-based
        qualified name lies in one of the top-level ``modules``, with that name, in file order. Only the uses of names
        that imports bind are looked at, so this costs little even in a large file."""
        found: list[tuple[ast.expr, str]] = []
        for local in set().union(*(self._bound_to.get(m, set()) for m in modules)):
            for name in self.loads.get(local, ()):
                top: ast.expr = name
                parent = self.parents.get(id(top))
                while isinstance(parent, ast.Attribute) and parent.value is top:
                    top = parent
                    parent = self.parents.get(id(top))
                qualname = self.qualname(top)
                if qualname is not None and qualname.split(".")[0] in modules:
                    found.append((top, qualname))
        found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
        return found

    def uses(self, scope: Scope, name: str) -> list[ast.Name]:
        """Every load of ``name`` (in file order) that refers to ``scope``'s binding of it."""
        return [n for n in self.loads.get(name, ()) if self.resolve(n) is scope]

    def only_binding(self, name: ast.Name) -> ast.AST | None:
        """The node that binds ``name`` where the name has exactly one binding in its scope (a Name target, an
        ``arg``, a def or class, an import alias), else ``None``."""
        scope = self.resolve(name)
        if scope is None:
            return None
        found = scope.bindings.get(name.id, [])
        return found[0] if len(found) == 1 else None

    def reaching_binding(self, name: ast.Name) -> ast.AST | None:
        """The binding a use of ``name`` visibly refers to: the only binding of the name in its scope, or, for a use in
        that scope itself, the only binding before the use's statement when it lies in the same block (or is a
        parameter of the enclosing function): ``model = torch.jit.trace(model, x)`` after ``model = Net()``."""
        scope = self.resolve(name)
        if scope is None:
            return None
        found = scope.bindings.get(name.id, [])
        if len(found) == 1:
            return found[0]
        statement = self.statement(name)
        if statement is None or self.scope(name) is not scope:
            return None
        block = self._block(statement)
        earlier = [b for b in found if (getattr(self.statement(b), "end_lineno", 0) or 0) < statement.lineno]
        if len(earlier) != 1:
            return None
        binding = earlier[0]
        if isinstance(binding, ast.arg) and self.parent(binding) is scope.node:
            return binding
        return binding if block is not None and any(s is self.statement(binding) for s in block) else None

    def _block(self, statement: ast.stmt) -> list[ast.stmt] | None:
        parent = self.parent(statement)
        if parent is None:
            return None
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and any(s is statement for s in block):
                return block
        return None

    def assigned_value(self, target: ast.AST) -> ast.expr | None:
        """For the target of ``name = value`` (a single target) or ``name: T = value``, ``value``."""
        parent = self.parent(target)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.targets[0] is target:
            return parent.value
        if isinstance(parent, ast.AnnAssign) and parent.target is target:
            return parent.value
        return None

    def annotation(self, target: ast.AST) -> ast.expr | None:
        if isinstance(target, ast.arg):
            return target.annotation
        parent = self.parent(target)
        if isinstance(parent, ast.AnnAssign) and parent.target is target:
            return parent.annotation
        return None

    def statement(self, node: ast.AST) -> ast.stmt | None:
        """The innermost statement holding ``node`` (itself when it is one)."""
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parent(current)
        return current


_last: list[tuple[ast.Module, str, Names]] = []
keeps(_last.clear)


def names_of(tree: ast.Module, text: str) -> Names:
    """The :class:`Names` of ``tree``, shared by the passes that analyse the same tree one after the other (the engine
    hands each of them the same parsed tree): the walk is made once per file."""
    if _last and _last[0][0] is tree and _last[0][1] is text:
        return _last[0][2]
    names = Names(tree, text)
    _last[:] = [(tree, text, names)]
    return names
