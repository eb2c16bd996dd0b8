"""Sites: where a pass acts in a file, found with the stdlib ``ast`` before libcst runs.

A detector ``fn(AstFile) -> Iterable[Site]`` lists the places a pass would edit and the findings it would report, as
its libcst transformer would. :func:`analyser` turns it into the pass's ``analyse`` hook (``Pass.analyse``): the
engine gives the file to libcst for that pass only when a site needs an *edit* — or, for a detector whose findings
are not exact (``exact=False``: a cheap bound), when it found anything; a file where the detector found nothing is
settled without libcst, and so is one with exact findings only (same line, column and message as the transformer's).

:class:`AstFile` gives a detector what a ``PassTransformer`` has: import-based qualified names
(:class:`~torchmigrate.python.names.AstNames`, libcst's rules), positions in characters, the statement a node
belongs to, and a walk that skips version-guarded code exactly as the transformers do. ``tests/python/test_sites.py``
runs every pass example (and real files) with and without detectors and requires identical results.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from torchmigrate.core.passes import Analyser, Pass
from torchmigrate.core.results import Finding
from torchmigrate.python.guards import _VERSION_ISH, is_version_guard_ast
from torchmigrate.python.lastfile import keeps
from torchmigrate.python.names import AstNames
from torchmigrate.python.precheck import (
    all_nodes,
    call_arguments,
    child_nodes,
    module_level,
    nested_statements,
    statement_start,
)
from torchmigrate.python.precheck import walk as walk_nodes

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

__all__ = ["EDIT", "FINDING", "AstFile", "Site", "SitePlan", "analyser", "analyser_of", "children_in_source_order"]

EDIT, FINDING = "edit", "finding"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
# What could be a version guard (the broad test of 0.1.0): where the exact rule says "no guard" but this matches,
# the transformer's rule (which also reads import aliases and module-level flags) may still say "guard", so a
# detector's findings there are not trusted as exact.
_MAYBE_GUARD = re.compile(r"__version__|version|TORCH_\w*", re.IGNORECASE)
# ... and a presence test (`hasattr(x, …)`, `getattr(x, …, None)`, `"f" in dir(x)`) of an object whose name an import
# binds: the transformers resolve it through the file's imports (`dist` for `import torch.distributed as dist`).
_PRESENCE_TESTS = frozenset({"hasattr", "getattr", "dir"})
_EXCEPTIONS = re.compile(r"ImportError|ModuleNotFoundError|AttributeError")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


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
        self.uncertain = False  # the walk passed a statement that may be a guard by the transformers' fuller rule
        self.uncertain_lines: list[tuple[int, int]] = []  # the line spans of those statements
        self._guards: dict[int, bool] = {}

    @classmethod
    def of(cls, text: str, tree: ast.Module) -> AstFile:
        """The ``AstFile`` of ``tree``: one per tree, shared by the passes' detectors (the last one is kept)."""
        if _LAST and _LAST[0].tree is tree and _LAST[0].text is text:
            return _LAST[0]
        if _LAST:
            _LAST[0].release()
        _LAST[:] = [cls(text, tree)]
        return _LAST[0]

    def release(self) -> None:
        """The file is done with: free its scope model (:meth:`AstNames.release`)."""
        names = self.__dict__.pop("names", None)
        if names is not None:
            names.release()

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node of the file, in ``ast.walk``'s order (one walk, shared: :func:`~torchmigrate.python.precheck.all_nodes`)."""
        return all_nodes(self.tree)

    @cached_property
    def names(self) -> AstNames:
        return AstNames(self.tree)

    @cached_property
    def _lines(self) -> list[str]:
        """The lines as the ast numbers them: ended by ``\r\n``, ``\r`` or ``\n`` only (``str.splitlines`` also splits
        on form feeds and other separators that can sit inside strings)."""
        return _LINE.findall(self.text)

    @property
    def lines(self) -> list[str]:
        """The file's lines as the ast numbers them (line ``n`` is ``lines[n - 1]``), ends kept."""
        return self._lines

    @cached_property
    def _parents(self) -> dict[int, ast.AST]:
        parents: dict[int, ast.AST] = {}
        for node in self.nodes:
            for child in child_nodes(node):
                parents[id(child)] = node
        return parents

    def qualname(self, node: ast.expr) -> str | None:
        """The single import-based qualified name of ``node``, as ``PassTransformer.qualname`` gives it.

        An expression rooted at a name no import of the file binds (``self.norm``, ``x.load``) has none: answered
        without the file's scope analysis (``AstNames``), which most files' detectors then never build."""
        if not self._rooted_in_an_import(node):
            return None
        return self.names.qualname(node)

    def source(self, node: ast.AST) -> str:
        """``ast.get_source_segment`` from the file's lines split once (the stdlib splits the whole text per call)."""
        first: int | None = getattr(node, "lineno", None)
        last: int | None = getattr(node, "end_lineno", None)
        start: int | None = getattr(node, "col_offset", None)
        end: int | None = getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None or last > len(self._lines):
            return ""
        if first == last:
            return self._lines[first - 1].encode()[start:end].decode("utf-8", "replace")
        head = self._lines[first - 1].encode()[start:].decode("utf-8", "replace")
        tail = self._lines[last - 1].encode()[:end].decode("utf-8", "replace")
        return head + "".join(self._lines[first : last - 1]) + tail

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(line, 1-based column in characters) of ``node``'s start, as libcst's ``PositionProvider`` has it."""
        line: int = node.lineno  # type: ignore[attr-defined]
        offset: int = node.col_offset  # type: ignore[attr-defined]
        if line <= len(self._lines):
            text = self._lines[line - 1]
            if not text.isascii():
                offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return line, offset + 1

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self._parents.get(id(node))

    def callee(self, node: ast.AST) -> str | None:
        """The qualified name of ``node``'s callee when ``node`` is a call of a plain name or attribute chain (what a
        transformer's ``self.qualname(call.func)`` compares), else ``None``."""
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            return self.qualname(node.func)
        return None

    def continued(self, line: int) -> bool:
        """Whether physical line ``line`` ends with a backslash (a continuation, or a comment ending in one: callers
        take it for a continuation, the careful side)."""
        if not 1 <= line <= len(self._lines):
            return False
        return self._lines[line - 1].rstrip("\r\n").endswith("\\")

    def before(self, node: ast.AST) -> str:
        """The text of ``node``'s first line before it: blank for a statement that starts its line."""
        line, column = self.position(node)
        return self._lines[line - 1][: column - 1] if line <= len(self._lines) else ""

    def scope_text(self, node: ast.AST) -> str | None:
        """The source of the scope a name bound at ``node`` lives in (the function, or the whole file at module
        level); ``None`` inside a class body or comprehension, or for a name a ``global``/``nonlocal`` redirects."""
        scope = self.scope_of(node)
        return None if scope is None else self.text if isinstance(scope, ast.Module) else self.source(scope)

    def scope_of(self, node: ast.AST) -> ast.AST | None:
        """The function, lambda or module whose scope a name bound at ``node`` lives in (:meth:`scope_text`)."""
        if isinstance(node, ast.Name) and node.id in self.redirected_names:
            return None
        current: ast.AST | None = node
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(current, (ast.ClassDef, *_COMPREHENSIONS)):
                return None
            current = self._parents.get(id(current))
        return self.tree if current is None else current

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
        """``torchmigrate.python.guards.is_version_guard`` on the ast (``is_version_guard_ast``); a statement that only
        looks like a guard makes the file :attr:`uncertain`."""
        if not isinstance(node, (ast.If, ast.IfExp, ast.Try)):
            return False
        known = self._guards.get(id(node))
        if known is None:
            known = self._guards[id(node)] = self._judge_guard(node)
        return known

    def _judge_guard(self, node: ast.If | ast.IfExp | ast.Try) -> bool:
        """:meth:`is_version_guard`, made once per statement (several detectors walk the same file)."""
        if is_version_guard_ast(node):
            return True
        if isinstance(node, ast.Try):
            looks = any(h.type is not None and _EXCEPTIONS.search(self.source(h.type)) for h in node.handlers)
        else:
            flags = self._maybe_flags
            looks = bool(_MAYBE_GUARD.search(self.source(node.test))) or any(
                (isinstance(sub, ast.Name) and sub.id in flags) or self._tests_an_imported_object(sub)
                for sub in walk_nodes(node.test)
            )
        if looks:
            self.uncertain = True
            self.uncertain_lines.append((node.lineno, node.end_lineno or node.lineno))
        return False

    def _tests_an_imported_object(self, node: ast.AST) -> bool:
        """Whether ``node`` is ``hasattr(x, …)``, ``getattr(x, …)`` or ``dir(x)`` where ``x`` is rooted at a name an
        import binds (in any scope): only through an import can the transformers' rule take ``x`` for torch."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id not in _PRESENCE_TESTS:
            return False
        return any(self._rooted_in_an_import(argument) for argument in call_arguments(node))

    def _rooted_in_an_import(self, node: ast.AST) -> bool:
        while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self._imported

    @cached_property
    def _import_statements(self) -> list[ast.Import | ast.ImportFrom]:
        """Every import statement of the file, at any depth."""
        return [n for n in nested_statements(self.tree) if type(n) is ast.Import or type(n) is ast.ImportFrom]

    @cached_property
    def _imported(self) -> frozenset[str]:
        """The names import statements bind anywhere in the file (imports are statements: the statement walk finds
        them all, without the walk of every expression)."""
        bound: set[str] = set()
        for node in self._import_statements:
            if isinstance(node, ast.Import):
                bound.update(a.asname or a.name.partition(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                bound.update(a.asname or a.name for a in node.names)
        return frozenset(bound)

    @cached_property
    def _import_lasts(self) -> dict[str, frozenset[str]]:
        """Per name an import binds anywhere in the file, the last components of what it binds it to (``c`` for
        ``from a.b import c as d``, ``b`` for ``import a.b as e``, ``a`` for ``import a.b``)."""
        found: dict[str, set[str]] = {}
        for node in self._import_statements:
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.partition(".")[0]
                    found.setdefault(local, set()).add(a.name.rpartition(".")[2] if a.asname else local)
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    found.setdefault(a.asname or a.name, set()).add(a.name)
        return {name: frozenset(lasts) for name, lasts in found.items()}

    def may_call(self, node: ast.Call, lasts: frozenset[str]) -> bool:
        """Whether the callee of ``node`` may have a qualified name (:meth:`callee`) whose last component is one of
        ``lasts``, told without the scope analysis: an attribute chain's name ends with its attribute, and a plain
        name has one only through an import, which names its last component."""
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in lasts
        if isinstance(func, ast.Name):
            bound = self._import_lasts.get(func.id)
            return bound is not None and not bound.isdisjoint(lasts)
        return False

    @cached_property
    def _maybe_flags(self) -> frozenset[str]:
        """Names that may be the module's version flags for the transformers' fuller guard rule
        (``guards.version_flags``: ``NEW_API = is_torch_version(">=", "2.0")``): every name an assignment binds to a
        value that may test a version or reads such a name: a superset, so a test of one is uncertain. The rule's flags
        are assigned at module level (in module-level blocks too), so the assignments inside functions and classes are
        not read."""
        # each assignment read once: does its value spell a version-ish word, which names does it read and bind
        candidates: list[tuple[set[str], list[str]]] = []
        flags: set[str] = set()
        for node in module_level(self.tree.body):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = [t.id for target in targets for t in walk_nodes(target) if isinstance(t, ast.Name)]
            if not bound:
                continue
            reads: set[str] = set()
            versionish = False
            for sub in walk_nodes(node.value):
                if isinstance(sub, ast.Name):
                    reads.add(sub.id)
                    versionish = versionish or bool(_VERSION_ISH.search(sub.id))
                elif isinstance(sub, ast.Attribute) and not versionish:
                    versionish = bool(_VERSION_ISH.search(sub.attr))
            if versionish:
                flags.update(bound)
            elif reads:
                candidates.append((reads, bound))
        while candidates:  # until no assignment adds a name (a flag may be read by an assignment met earlier)
            rest = [(reads, bound) for reads, bound in candidates if reads.isdisjoint(flags)]
            if len(rest) == len(candidates):
                break
            for reads, bound in candidates:
                if not reads.isdisjoint(flags):
                    flags.update(bound)
            candidates = rest
        return frozenset(flags)

    def handler_names(self, handler: ast.ExceptHandler) -> set[str]:
        """The identifiers an ``except`` clause's type spells (``{"*"}`` for a bare ``except:``), as the handler
        passes read them from its code."""
        return set(_IDENTIFIER.findall(self.source(handler.type))) if handler.type is not None else {"*"}

    def runs_a_call(self, root: ast.AST, wanted: Callable[[str], bool]) -> bool:
        """Whether code that runs in ``root`` calls a callee (a plain name or attribute chain) whose qualified name
        ``wanted`` accepts; a nested definition (its decorators too) does not run there."""
        stack = [root]
        while stack:
            node = stack.pop()
            name = self.callee(node)
            if name is not None and wanted(name):
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            stack.extend(child_nodes(node))
        return False

    def star_keys_unknown(self, call: ast.Call, key: str) -> bool:
        """Whether, for a call with ``**`` arguments, :func:`torchmigrate.python.starargs.star_keys` certainly says
        "``key`` not among the visible keys, and not complete" (then a pass reports that it cannot tell); ``False``
        when only libcst's scope analysis can say.

        Not set, for sure: each ``**`` dict is an expression or a name no text of which (the dict display, the function
        its name is bound in, or the whole module for a module-level name) spells ``key``: every key star_keys sees is a
        string or keyword written in those places. Not complete, for sure: a ``*args`` argument, a ``**`` expression
        that is not a dict display or ``dict(...)`` call, or a name with a binding other than ``name = <dict
        display>`` in a function (a parameter, a loop target, a module-level variable, none at all)."""
        incomplete = any(isinstance(argument, ast.Starred) for argument in call.args)
        for keyword in call.keywords:
            if keyword.arg is not None:
                continue
            value = keyword.value
            if _may_be_dict_display(value):
                if key in self.source(value):
                    return False
                continue  # its completeness is libcst's to tell
            if not isinstance(value, ast.Name):
                incomplete = True
                continue
            if value.id in self.redirected_names:
                return False  # a binding may land in another scope than the one it is written in
            scope = self.names.scope(value)
            bindings = scope.resolve(value.id, scope)
            if not bindings or any(b.scope.kind == "builtin" for b in bindings):
                return False
            where = self.scope_text(bindings[0].node) if bindings[0].scope.kind == "function" else self.text
            if where is None or key in where:
                return False
            for binding in bindings:
                if binding.scope.kind != "function" or not self._assigned_a_dict(binding.node):
                    incomplete = True
        return incomplete

    @cached_property
    def redirected_names(self) -> set[str]:
        """The names a ``global`` or ``nonlocal`` statement of the file declares (a binding of one may land in another
        scope than the one it is written in)."""
        return {name for node in self.nodes if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}

    def _assigned_a_dict(self, node: ast.AST) -> bool:
        """Whether ``node`` (a binding) is the whole target of ``name = <dict display, dict(...) or a choice>``."""
        parent = self._parents.get(id(node))
        if isinstance(parent, ast.Assign) and node in parent.targets:
            value: ast.expr | None = parent.value
        elif isinstance(parent, ast.AnnAssign) and parent.target is node:
            value = parent.value
        else:
            return False
        return value is not None and _may_be_dict_display(value)

    def in_uncertain(self, line: int) -> bool:
        """Whether ``line`` lies in a statement that only looks like a guard (the transformer may skip it)."""
        return any(first <= line <= last for first, last in self.uncertain_lines)

    def walk(self, root: ast.AST | None = None) -> Iterator[ast.AST]:
        """Every node in source order (pre-order), skipping version-guarded code whole, as transformers do. The walk of
        the whole file is made once and shared by the passes' detectors."""
        if root is None:
            return iter(self._walked)
        return self._walk(root)

    def statements(self) -> Iterator[ast.AST]:
        """Every statement, ``except`` handler and ``case`` clause in source order, skipping version-guarded code whole
        as :meth:`walk` does: for a detector whose sites are statements, without the walk of every expression (a
        guard that is an expression, ``a if torch_2 else b``, holds no statement)."""
        stack: list[ast.AST] = list(reversed(self.tree.body))
        is_guard = self.is_version_guard
        while stack:
            node = stack.pop()
            kind = type(node)
            if (kind is ast.If or kind is ast.Try) and is_guard(node):
                continue
            yield node
            children: list[ast.AST] = []
            for field in _STATEMENT_BLOCKS:
                block = getattr(node, field, None)
                if type(block) is list:
                    children.extend(block)
            if children:
                children.reverse()
                stack.extend(children)

    @cached_property
    def _walked(self) -> list[ast.AST]:
        """:meth:`_walk` of the whole tree as a list, in one loop (no generator): the walk every detector of the file
        shares, about half the time of the generator's."""
        nodes: list[ast.AST] = []
        append = nodes.append
        stack: list[ast.AST] = [self.tree]
        pop, extend = stack.pop, stack.extend
        is_guard = self.is_version_guard
        while stack:
            node = pop()
            kind = type(node)
            if kind in _GUARD_KINDS and is_guard(node):
                continue
            append(node)
            children = children_in_source_order(node) if kind in _REORDERED else walk_children(node)
            if children:
                children.reverse()
                extend(children)
        return nodes

    def _walk(self, root: ast.AST) -> Iterator[ast.AST]:
        stack: list[ast.AST] = [root]
        reordered = _REORDERED
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _GUARD_KINDS and self.is_version_guard(node):
                continue
            yield node
            children = children_in_source_order(node) if kind in reordered else walk_children(node)
            children.reverse()
            stack.extend(children)


_GUARD_KINDS = frozenset({ast.If, ast.IfExp, ast.Try})
_STATEMENT_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # the fields that hold statements, in order
_REORDERED = frozenset({ast.IfExp, ast.Dict, ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
"""The node types whose children :func:`children_in_source_order` orders other than their fields do."""


def _may_be_dict_display(value: ast.expr) -> bool:
    """A dict display, a ``dict(...)`` call or a choice between values: what ``starargs._literal_keys`` may read keys
    from."""
    return isinstance(value, (ast.Dict, ast.IfExp)) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
    )


def _before(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)  # type: ignore[attr-defined]


def children_in_source_order(node: ast.AST) -> list[ast.AST]:
    """``node``'s children in the order libcst visits them, the source's: the fields' order, except where the source
    differs (decorators first; a return annotation before the body; ``a if c else b``; a dict's keys and values, and
    a call's keywords before ``*args``, by position)."""
    if isinstance(node, ast.IfExp):
        return [node.body, node.test, node.orelse]
    if isinstance(node, ast.Call):
        args, keywords = node.args, node.keywords
        if not args or not keywords or _before(args[-1], keywords[0]):  # no `*args` after a keyword: fields' order
            return [node.func, *args, *keywords]
        return [node.func, *sorted([*args, *keywords], key=lambda p: (p.lineno, p.col_offset))]  # type: ignore[attr-defined]
    if isinstance(node, ast.Dict):
        ordered: list[ast.AST] = []  # each key before its value, pair after pair (`**d` has no key)
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                ordered.append(key)
            ordered.append(value)
        return ordered
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # as written (and visited by libcst): decorators, parameters, the return annotation, then the body
        written: list[ast.AST] = [*node.decorator_list, *getattr(node, "type_params", ()), node.args]
        if node.returns is not None:
            written.append(node.returns)
        written.extend(node.body)
        return written
    if isinstance(node, ast.ClassDef):
        # decorators are written (and visited by libcst) before the definition
        return [*node.decorator_list, *(child for child in walk_children(node) if child not in node.decorator_list)]
    return walk_children(node)


def walk_children(node: ast.AST) -> list[ast.AST]:
    """``node``'s children in field order, as the detectors' walks see them: not the ``Load`` / ``Store`` context of a
    name, nor the operator of an operation (singletons no detector looks for: they read ``node.ctx`` and
    ``node.op`` themselves, and a third of a tree's nodes are these), nor the fields that hold a string or a
    constant (a name's ``id``, an attribute's ``attr``, a constant's value)."""
    kind = type(node)
    fields = _WALK_FIELDS.get(kind)
    if fields is None:
        skipped = _SCALAR_FIELDS.get(kind, ())
        fields = _WALK_FIELDS[kind] = tuple(f for f in kind._fields if f not in skipped and f not in _SINGLETON_FIELDS)
    children: list[ast.AST] = []
    for field in fields:
        value = getattr(node, field, None)
        if type(value) is list:
            for item in value:
                if isinstance(item, ast.AST):
                    children.append(item)
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


_WALK_FIELDS: dict[type, tuple[str, ...]] = {}
_SINGLETON_FIELDS = frozenset({"ctx", "op", "ops"})
_SCALAR_FIELDS: dict[type, tuple[str, ...]] = {
    ast.Name: ("id",),
    ast.Attribute: ("attr",),
    ast.Constant: ("value", "kind"),
    ast.keyword: ("arg",),
    ast.arg: ("arg", "type_comment"),
    ast.alias: ("name", "asname"),
}


_LAST: list[AstFile] = []


@keeps
def _forget() -> None:
    if _LAST:
        _LAST[0].release()
    _LAST.clear()


@dataclass(frozen=True)
class SitePlan:
    """The ``AstPlan`` a detector gives: exact findings when nothing needs libcst, else ``has_edits``."""

    findings: tuple[Finding, ...]
    has_edits: bool


def analyser(pass_id: str, detect: Callable[[AstFile], Iterable[Site]], exact: bool = False) -> Analyser:
    """``Pass.analyse`` from a detector. ``exact``: the detector's findings are the transformer's, so a file with
    findings only (none inside a statement that may be a guard by the fuller rule) never reaches libcst for this
    pass."""

    def analyse(text: str, tree: ast.Module) -> SitePlan:
        file = AstFile.of(text, tree)
        sites = sorted(detect(file), key=lambda s: (s.line, s.col))
        trusted = exact and not any(file.in_uncertain(site.line) for site in sites)
        if any(site.kind == EDIT for site in sites) or (sites and not trusted):
            return SitePlan((), True)
        return SitePlan(tuple(Finding(s.line, s.col, pass_id, s.message) for s in sites), False)

    return analyse


def analyser_of(pass_: Pass) -> Analyser | None:
    """The pass's own ``analyse``, else — for a pass made of call rewriters only (no transformer, no renames) — a
    bound from the stdlib ast: a file where no call's callee has one of the rewriters' qualified names (and passes the
    pass's ``call_filter``) gives the rewriters nothing to look at, so the pass is settled without libcst."""
    if pass_.analyse is not None:
        return pass_.analyse
    if pass_.transformer is not None or pass_.renames or not pass_.call_rewriters:
        return None
    found = _REWRITERS.get(pass_.id)
    if found is None:
        found = _REWRITERS[pass_.id] = analyser(pass_.id, calls_to(frozenset(pass_.call_rewriters), pass_.call_filter))
    return found


_REWRITERS: dict[str, Analyser] = {}


def calls_to(names: frozenset[str], keep: Callable[[ast.Call], bool] | None = None) -> Callable[[AstFile], Iterator[Site]]:
    """A detector of edit sites: the calls whose callee has one of ``names`` as its qualified name (and that ``keep``
    accepts)."""

    lasts = frozenset(name.rpartition(".")[2] for name in names)

    def detect(file: AstFile) -> Iterator[Site]:
        for node in file.walk():
            if not isinstance(node, ast.Call) or not file.may_call(node, lasts):
                continue  # the callee's qualified name cannot end with a target's last component
            if file.callee(node) in names and (keep is None or keep(node)):
                yield file.edit(node)

    return detect
