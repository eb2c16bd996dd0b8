"""The cheap look before libcst: which passes can act on a file at all, decided with the stdlib ``ast`` only.

libcst parsing costs ~10× ``ast.parse`` and its scope metadata ~65×, while most files of a big tree need nothing. So a
file goes through three gates, each cheaper than the next is expensive:

1. **Trigger regex** over the raw bytes (one combined pattern of every selected pass's trigger words, built as a trie).
2. **ast precheck** (:func:`relevant_passes`): one ``ast.parse`` and one walk collect what the code really uses —
   identifiers, attribute chains, import paths, and import-based qualified names — leaving comments and docstrings
   behind. A pass stays in play only if
   - it rewrites by qualified name only (declarative ``renames`` and ``rewrites_calls``, no custom transformer), and the
     file references one of those names through an import (an over-approximation of libcst's
     ``QualifiedNameProvider``: every import anywhere in the file counts, whatever its scope); or
   - it has a custom transformer, and one of its trigger words occurs in code (not in a comment or docstring; other
     string literals count, since a transformer may read them). A pass may narrow this by declaring
     ``qualnames=frozenset({...})``: the qualified names it acts on, matched like the declarative passes, and a
     ``method_filter``: a test of a call (whatever its callee) that keeps the pass in play (``x.norm()``, not
     ``self.norm(x)``).
3. **libcst** parse and metadata, only for files with at least one pass in play, and only for the passes in play.

It never skips a file a pass would change: a file ``ast`` cannot parse, or a pass whose trigger words are not plain
dotted identifiers, is passed on to libcst as before; ``tests/test_precheck.py`` runs every pass's examples through it.
"""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from torchmigrate.core.text import has_lone_cr
from torchmigrate.python.lastfile import keeps
from torchmigrate.python.triggers import (
    identifiers,
    present_triggers,
    text_regex,
    trie_pattern,
    trigger_lines,
    trigger_words,
    triggered,
)

if TYPE_CHECKING:
    from torchmigrate.core.passes import Pass

__all__ = ["Scan", "pass_targets", "relevant_passes", "trie_pattern"]

_DOTTED_WORD = re.compile(r"[\w.]+")


_BODIES = ("body", "orelse", "finalbody", "handlers")


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


def statement_start(node: ast.AST) -> int:
    """The first line of a statement, its decorators included."""
    start: int = node.lineno  # type: ignore[attr-defined]
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)
    return start


def nested_statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements in ``node``'s blocks at any depth (bodies, ``else`` and ``finally`` blocks), with the ``except``
    handlers and ``case`` clauses that hold some; never an expression (no statement sits in one)."""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        for field in _BLOCKS:
            block = getattr(current, field, None)
            if type(block) is list:
                yield from block
                stack.extend(block)


_BLOCKS = (*_BODIES, "cases")


def _nested_imports(node: ast.AST) -> Iterator[ast.AST]:
    """The import statements anywhere in the blocks of a compound statement."""
    return (child for child in nested_statements(node) if type(child) is ast.Import or type(child) is ast.ImportFrom)


def _nodes(tree: ast.Module, lines: list[int] | None, import_lines: list[int] | None = None) -> Iterator[ast.AST]:
    """Every node of ``tree`` (``lines=None``), or only the nodes of the statements that span one of ``lines``
    (sorted) — the lines where a trigger word occurs — plus the module's own import statements. A statement that spans
    no such line is skipped whole, nested statements included: with anchored passes (see :func:`_anchored`) every
    reference to a target, and every import that can lead to one, spells a trigger word, so it lies on such a line.
    Expressions are walked only in the statements that hold one, so a big file with one trigger word (or with trigger
    words only in its docstrings and comments) costs little more than its parse. ``import_lines`` (sorted): the lines
    on which ``import`` occurs; a compound statement that spans none holds no import to look for."""
    if lines is None:
        yield from all_nodes(tree)
        return
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Import or kind is ast.ImportFrom:
            yield node
            continue
        if kind is ast.match_case:
            yield from walk(node.pattern)  # type: ignore[attr-defined]
            if node.guard is not None:  # type: ignore[attr-defined]
                yield from walk(node.guard)  # type: ignore[attr-defined]
            stack.extend(reversed(node.body))  # type: ignore[attr-defined]
            continue
        start = statement_start(node)
        end = node.end_lineno or start  # type: ignore[attr-defined]
        index = bisect_left(lines, start)
        if not (index < len(lines) and lines[index] <= end):
            if kind in _COMPOUND and (import_lines is None or _spans(import_lines, start, end)):
                yield from _nested_imports(node)  # no trigger word in it, but its imports (`try: import torch`) bind
            continue  # no trigger word anywhere in it: nothing else inside can matter
        if kind not in _COMPOUND:
            yield from walk(node)
            continue
        yield node
        for name, value in ast.iter_fields(node):
            if name in _BODIES or name == "cases":
                stack.extend(reversed(value))
            else:
                for child in value if isinstance(value, list) else (value,):
                    if isinstance(child, ast.AST):
                        yield from walk(child)


def _spans(lines: list[int], start: int, end: int) -> bool:
    """Whether one of ``lines`` (sorted) lies in ``start``..``end``."""
    index = bisect_left(lines, start)
    return index < len(lines) and lines[index] <= end


class Scan:
    """What one parsed file uses, collected in one walk of its ``ast`` (or of the statements that matter)."""

    __slots__ = ("words", "strings", "qualnames", "bound", "bindings", "stars", "calls", "value_chains", "whole_values")

    def __init__(self, tree: ast.Module, lines: list[int] | None = None, import_lines: list[int] | None = None) -> None:
        words: set[str] = set()  # identifiers, attribute chains and import paths as written
        strings: list[str] = []  # literals: strings (not bare expression statements, i.e. docstrings) and numbers
        chains: set[str] = set()  # dotted chains rooted at a Name: ``th.export.export_for_training``
        bindings: dict[str, set[str]] = {}  # local name → qualified names imports bind it to
        paths: set[str] = set()  # dotted names in import statements
        stars: set[str] = set()  # modules star-imported
        bare: set[int] = set()
        calls: list[ast.Call] = []  # for passes with a call filter
        call_funcs: set[int] = set()  # ids of the callee nodes of those calls (walk order: a call before its callee)
        value_chains: set[str] = set()  # names and chains used other than as a callee
        whole_values: set[str] = set()  # those of them used whole: not the base of a longer chain (``a.b`` in ``a.b.c``)
        bases: set[int] = set()  # ids of the nodes that are the base of an attribute (walk order: an attribute first)
        for node in _nodes(tree, lines, import_lines):
            kind = type(node)
            if kind is ast.Name:
                words.add(node.id)  # type: ignore[attr-defined]
                if id(node) not in call_funcs:
                    value_chains.add(node.id)  # type: ignore[attr-defined]
                    if id(node) not in bases:
                        whole_values.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                calls.append(node)  # type: ignore[arg-type]
                call_funcs.add(id(node.func))  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                parts = [node.attr]  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
                bases.add(id(value))
                while type(value) is ast.Attribute:
                    parts.append(value.attr)
                    value = value.value
                if type(value) is ast.Name:
                    parts.append(value.id)
                    chain = ".".join(reversed(parts))
                    chains.add(chain)
                    if id(node) not in call_funcs:
                        value_chains.add(chain)
                        if id(node) not in bases:
                            whole_values.add(chain)
                else:
                    chain = ".".join(reversed(parts))
                words.add(chain)
            elif kind is ast.Constant:
                value = node.value  # type: ignore[attr-defined]
                if type(value) is str:
                    if id(node) not in bare:
                        strings.append(value)
                elif type(value) in (int, float, complex):
                    strings.append(str(value))  # a pass may look for a number (torchrun-port: 29500)
            elif kind is ast.Expr:
                if type(node.value) is ast.Constant:  # type: ignore[attr-defined]
                    bare.add(id(node.value))  # type: ignore[attr-defined]
            elif kind is ast.Import:
                for alias in node.names:  # type: ignore[attr-defined]
                    paths.add(alias.name)
                    words.add(alias.name)
                    if alias.asname:
                        words.add(alias.asname)
                        bindings.setdefault(alias.asname, set()).add(alias.name)
                    else:
                        root = alias.name.split(".")[0]
                        bindings.setdefault(root, set()).add(root)
            elif kind is ast.ImportFrom:
                module = node.module or ""  # type: ignore[attr-defined]
                words.add(module)
                absolute = node.level == 0 and bool(module)  # type: ignore[attr-defined]
                if absolute:
                    paths.add(module)
                for alias in node.names:  # type: ignore[attr-defined]
                    words.add(alias.name)
                    if alias.asname:
                        words.add(alias.asname)
                    if not absolute:
                        continue
                    if alias.name == "*":
                        stars.add(module)
                        continue
                    full = f"{module}.{alias.name}"
                    paths.add(full)
                    bindings.setdefault(alias.asname or alias.name, set()).add(full)
            elif kind is ast.keyword:
                if node.arg:  # type: ignore[attr-defined]
                    words.add(node.arg)  # type: ignore[attr-defined]
            elif kind in _NAMED:
                name = getattr(node, "name", None)
                if isinstance(name, str):
                    words.add(name)
                for extra in getattr(node, "names", ()) or ():
                    if isinstance(extra, str):
                        words.add(extra)
            elif kind is ast.arg:
                words.add(node.arg)  # type: ignore[attr-defined]

        qualnames = set(paths)
        for chain in (*chains, *(w for w in words if w.isidentifier())):
            root, dot, rest = chain.partition(".")
            for bound in bindings.get(root, ()):
                qualnames.add(bound + dot + rest)
            for module in stars:
                qualnames.add(f"{module}.{chain}")
        self.words = words
        self.strings = strings
        self.qualnames = qualnames
        self.bound = {name for names in bindings.values() for name in names} | stars
        self.bindings = bindings
        self.stars = stars
        self.calls = calls
        self.value_chains = value_chains
        self.whole_values = whole_values

    def resolve(self, chain: str) -> set[str]:
        """The import-based qualified names a dotted ``chain`` as written may stand for."""
        root, dot, rest = chain.partition(".")
        return {bound + dot + rest for bound in self.bindings.get(root, ())} | {f"{m}.{chain}" for m in self.stars}


def ast_chain(node: ast.expr) -> str | None:
    """``a.b.c`` for a name or an attribute chain rooted at a name (``th.export.export``), else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _hidden_alias(scanned: Scan, pass_: Pass, targets: frozenset[str], below: bool) -> bool:
    """An import binds a name through which a target can be used without spelling any of the pass's
    :func:`line_words` (``from torch.optim import lr_scheduler as S``, then ``S.StepLR``; ``from m import *``, then a
    name of ``m``'s): such uses sit in statements a limited scan skipped. With ``below``, also a name bound to a target
    or (unless ``Pass.exact_names``) under one (``from torch.utils.checkpoint import checkpoint as ckpt``): its uses
    spell nothing of the target either."""
    plain, hiding = _hiding_prefixes(pass_, targets)
    bound = [(local, name) for local, names in scanned.bindings.items() for name in names]
    bound += [("", module) for module in scanned.stars]  # a name a star import binds is spelled whole at its uses
    for local, name in bound:
        if local and any(t in local for t in plain):
            continue  # its uses spell it
        if name in hiding:
            return True  # a prefix of a target, whose rest spells no line word
        if below:
            if name in targets:
                return True
            if not pass_.exact_names:
                index = name.find(".")
                while index != -1:
                    if name[:index] in targets:
                        return True
                    index = name.find(".", index + 1)
    return False


def _hiding_prefixes(pass_: Pass, targets: frozenset[str]) -> tuple[list[str], frozenset[str]]:
    """The pass's plain line words, and the strict prefixes of its targets (``torch.optim`` of
    ``torch.optim.lr_scheduler.StepLR``) after which some target's rest spells none of them (made once per pass)."""
    key = (pass_.id, tuple(pass_.triggers), targets)
    found = _HIDING.get(key)
    if found is None:
        plain = [t for t in line_words(pass_) or pass_.triggers if "." not in t]
        hiding: set[str] = set()
        for target in targets:
            index = target.find(".")
            while index != -1:
                if not any(t in target[index:] for t in plain):
                    hiding.add(target[:index])
                index = target.find(".", index + 1)
        found = _HIDING[key] = (plain, frozenset(hiding))
    return found


_HIDING: dict[tuple[str, tuple[str, ...], frozenset[str]], tuple[list[str], frozenset[str]]] = {}


def _filtered_hit(scanned: Scan, pass_: Pass, targets: frozenset[str]) -> bool:
    """With a call filter: a non-call reference to a target, or a call of one that the filter lets through. With
    ``Pass.exact_names``, a reference is a name or chain used whole (``torchvision.models`` in
    ``getattr(torchvision.models, n)``, not in ``torchvision.models.__path__``) that is a target itself."""
    assert pass_.call_filter is not None
    exact = pass_.exact_names
    for chain in scanned.whole_values if exact else scanned.value_chains:
        if _references_names(scanned.resolve(chain), targets, exact):
            return True
    for call in scanned.calls:
        callee = ast_chain(call.func)
        if callee is None:
            continue
        if _references_names(scanned.resolve(callee), targets, exact) and pass_.call_filter(call):
            return True
    return False


_NAMED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Global,
    ast.Nonlocal,
    ast.MatchAs,
    ast.MatchStar,
    ast.ExceptHandler,
    ast.alias,
)


_FIELDS: dict[type, tuple[str, ...]] = {}


def all_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree``, in ``ast.walk``'s order (breadth first, fields in order). The list of the last tree
    asked is kept (by identity): the precheck, the detectors, the slicer and the engine read the same file's nodes
    many times, and one walk in a loop costs a third of ``ast.walk``'s generators."""
    if _ALL_NODES and _ALL_NODES[0][0] is tree:
        return _ALL_NODES[0][1]
    nodes = walk(tree)
    _ALL_NODES[:] = [(tree, nodes)]
    return nodes


def walk(tree: ast.AST) -> list[ast.AST]:
    """``list(ast.walk(tree))`` (the same nodes in the same order), in one loop instead of ``ast.walk``'s generators
    per node: about a third of the time."""
    nodes: list[ast.AST] = [tree]
    append = nodes.append
    fields_of = _FIELDS
    index = 0
    while index < len(nodes):
        node = nodes[index]
        index += 1
        kind = type(node)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = kind._fields
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        append(item)
            elif isinstance(value, ast.AST):
                append(value)
    return nodes


_ALL_NODES: list[tuple[ast.AST, list[ast.AST]]] = []


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``, without its two generators per node."""
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = kind._fields
    children: list[ast.AST] = []
    for field in fields:
        value = getattr(node, field, None)
        if type(value) is list:
            children.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


class _Quiet:
    enabled = False


def quiet_parse_warnings() -> None:
    """Ignore the parser's warnings (invalid escapes, ``is`` with a literal) for the rest of this process.

    For the command line's own processes (worker processes inherit it): one filter instead of a
    ``warnings.catch_warnings()`` block around each of thousands of parses, which costs a tenth of a parse. A library
    caller's warning filters are left alone."""
    warnings.simplefilter("ignore", SyntaxWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    _Quiet.enabled = True


def ast_parse(text: str) -> ast.Module:
    """``ast.parse`` without the parser's warnings reaching the user (raises as ``ast.parse`` does).

    The last text parsed is remembered (by identity): the precheck, the engine and the detectors of one file share
    one tree, which no caller modifies."""
    if _LAST_PARSE and _LAST_PARSE[0][0] is text:
        return _LAST_PARSE[0][1]
    if _Quiet.enabled:
        tree = ast.parse(text)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    _LAST_PARSE[:] = [(text, tree)]
    return tree


_LAST_PARSE: list[tuple[str, ast.Module]] = []
keeps(_LAST_PARSE.clear)
keeps(_ALL_NODES.clear)


def parse(text: str) -> ast.Module | None:
    try:
        return ast_parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def scan(text: str) -> Scan | None:
    """The full :class:`Scan` of ``text``, or ``None`` when ``ast`` cannot parse it (libcst then decides)."""
    tree = parse(text)
    return None if tree is None else Scan(tree)


def _anchored(pass_: Pass, targets: frozenset[str]) -> bool:
    """Every reference to one of ``targets`` spells a trigger word, in an import or at the use: each target has a
    component that contains one. Then a reference lies in a statement that holds a trigger word (walked), or goes
    through an import binding (see :func:`_hidden_alias`): other statements need no walk. :func:`line_words` adds the
    targets' last names for a pass whose trigger words do not anchor it."""
    key = (pass_.id, tuple(pass_.triggers), targets)
    found = _ANCHORED.get(key)
    if found is None:
        plain = [t for t in pass_.triggers if "." not in t]
        found = _ANCHORED[key] = all(any(t in part for t in plain for part in target.split(".")) for target in targets)
    return found


_ANCHORED: dict[tuple[str, tuple[str, ...], frozenset[str]], bool] = {}  # per pass: its answer never changes


def line_words(pass_: Pass) -> tuple[str, ...] | None:
    """The words whose lines a limited scan (:func:`_nodes`) walks for ``pass_``: its trigger words, plus — when those
    do not anchor its targets (:func:`_anchored`: ``RuntimeError`` for ``torch.cat``) — the last component of each
    target. A reference to a target spells that component (``x.cat``, ``from torch import cat``), or goes through an
    import that binds the target or a name under it, and imports are always walked. ``None``: the pass cannot say
    (a target whose last component is not an identifier); every statement is then walked."""
    key = (pass_.id, tuple(pass_.triggers))
    cached = _LINE_WORDS.get(key)
    if cached is not None and cached[0] is pass_:
        return cached[1]
    targets = pass_targets(pass_)
    words: tuple[str, ...] | None = tuple(pass_.triggers)
    if targets is not None and not _anchored(pass_, targets):
        lasts = {target.rpartition(".")[2] for target in targets}
        words = tuple(sorted(set(pass_.triggers) | lasts)) if all(last.isidentifier() for last in lasts) else None
    _LINE_WORDS[key] = (pass_, words)  # the pass is kept alive with its entry
    return words


_LINE_WORDS: dict[tuple[str, tuple[str, ...]], tuple[Pass, tuple[str, ...] | None]] = {}


def _scan_lines(text: str, passes: Sequence[Pass]) -> list[int]:
    """The (1-based, sorted) lines on which one of the passes' :func:`line_words` occurs: a trigger word anywhere, a
    target's last component as a whole identifier (a reference spells it so). Only the words the file spells are
    looked for (:func:`~torchmigrate.python.triggers.triggered` found its trigger words)."""
    triggers: set[str] = set()
    lasts: set[str] = set()
    for pass_ in passes:
        words = line_words(pass_)
        assert words is not None
        triggers.update(pass_.triggers)
        lasts.update(words)
    lasts -= triggers
    found = present_triggers(text)
    if found is not None:
        triggers &= found
    if lasts:
        lasts &= identifiers(text)
    starts: set[int] = set()
    find = text.find
    for word in triggers:
        at = find(word)
        while at != -1:
            starts.add(at)
            at = find(word, at + 1)
    for word in lasts:
        at = find(word)
        size = len(word)
        while at != -1:
            end = at + size
            if not (at and _is_word_char(text[at - 1])) and not (end < len(text) and _is_word_char(text[end])):
                starts.add(at)
            at = find(word, end)
    return _lines_at(text, starts)  # one str.find loop per word: several times faster than one regex of them all


def _lines_at(text: str, starts: Iterable[int]) -> list[int]:
    """The (1-based, sorted, distinct) lines of the offsets ``starts`` in ``text``."""
    lines: list[int] = []
    line, position = 1, 0
    for at in sorted(starts):
        line += text.count("\n", position, at)
        position = at
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _import_lines(text: str) -> list[int]:
    """The lines on which ``import`` occurs (anywhere: a superset of those of the import statements)."""
    starts: list[int] = []
    at = text.find("import")
    while at != -1:
        starts.append(at)
        at = text.find("import", at + 6)
    return _lines_at(text, starts)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def code_ranges(tree: ast.Module, lines: list[int] | None = None) -> list[tuple[int, int]]:
    """Sorted (first, last) line ranges that hold code: every statement but a bare string (a docstring), and the header
    of each compound statement. Lines holding only comments or docstrings fall outside. With ``lines`` (sorted), only
    the statements that span one of them are looked at: the ranges answer for those lines only."""
    ranges: list[tuple[int, int]] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        header: list[ast.AST] = []
        if isinstance(node, ast.match_case):
            start = node.pattern.lineno
            header = [node.pattern] + ([node.guard] if node.guard is not None else [])
        else:
            start = statement_start(node)
            if lines is not None:
                index = bisect_left(lines, start)
                if not (index < len(lines) and lines[index] <= (getattr(node, "end_lineno", None) or start)):
                    continue
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                continue
            ranges.append((start, getattr(node, "end_lineno", None) or start))
            continue
        end = start
        for name, value in ast.iter_fields(node):
            if name in _BODIES or name == "cases":
                if isinstance(value, list):
                    stack.extend(value)
                continue
            header.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, ast.AST))
        for part in header:
            end = max(end, getattr(part, "end_lineno", None) or end)
        ranges.append((start, end))  # the header up to its last expression (a comment after it is not code)
    ranges.sort()
    return ranges


def _on_code_line(text: str, regex: re.Pattern[str], ranges: list[tuple[int, int]]) -> bool:
    starts = [r[0] for r in ranges]
    line, position = 1, 0
    for match in regex.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        index = bisect_right(starts, line) - 1
        for candidate in range(index, max(index - 3, -1), -1):  # disjoint but for one-line `if x: y` (same line)
            first, last = ranges[candidate]
            if first <= line <= last:
                return True
    return False


def pass_targets(pass_: Pass) -> frozenset[str] | None:
    """The qualified names a pass can act on, or ``None`` when it cannot say (a custom transformer without ``qualnames``)."""
    if pass_.transformer is not None and pass_.qualnames is None:
        return None
    return frozenset(pass_.renames) | frozenset(pass_.call_rewriters) | frozenset(pass_.qualnames or ())


def _target_parts(pass_: Pass) -> tuple[frozenset[str], ...] | None:
    """Per target of a pass that acts on its targets only (no ``method_filter``), the components of its qualified
    name (``torchaudio``, ``info`` for ``torchaudio.info``). A reference to a target spells each of them whole
    somewhere in the file: the import that binds the target or a name above it spells the components down to that
    name (``from torch import cat``, ``import torch.distributed as dist``), the use spells the rest (``dist.nn``), and
    an assignment that copies a reference (``f = torch.cat``) spells it too; a string that names it spells them all.
    So a file that lacks one component of every target gives the pass nothing. ``None`` when the pass cannot say."""
    cached = _PARTS.get(id(pass_))
    if cached is not None and cached[0] is pass_:
        return cached[1]
    targets = pass_targets(pass_)
    parts = None if targets is None or pass_.method_filter is not None else tuple(
        frozenset(target.split(".")) for target in sorted(targets)
    )
    if parts is not None and not all(part.isidentifier() for target in parts for part in target):
        parts = None
    _PARTS[id(pass_)] = (pass_, parts)  # the pass is kept alive with its entry: its id is not reused
    return parts


def _reachable(pass_: Pass, spelled: set[str]) -> bool:
    """Whether the identifiers ``spelled`` in a file can reach a target of ``pass_`` (:func:`_target_parts`)."""
    parts = _target_parts(pass_)
    return parts is None or any(target <= spelled for target in parts)


_PARTS: dict[int, tuple[Pass, tuple[frozenset[str], ...] | None]] = {}


def _spelled_in_strings(scanned: Scan, targets: frozenset[str]) -> bool:
    """Whether a string the ``RenameTransformer`` may rewrite spells a renamed path. It rewrites only the arguments
    of the calls that take a dotted path (``mock.patch("…")``, ``importlib.import_module``, ``__import__``,
    ``monkeypatch.setattr``, ``patch.object``), so only strings given directly to a call whose callee may be one of
    those count: the path-like strings of a table (``torch/_dynamo/trace_rules.py`` names thousands) do not. A call
    whose argument builds a string (an f-string, a concatenation) counts all of the file's strings, as before."""
    return _references_names((text for text in _path_argument_strings(scanned) if "." in text and " " not in text), targets)


# The last components of the callees ``RenameTransformer.leave_Call`` rewrites a string argument of (its
# ``_PATH_TAKERS`` and ``_OBJECT_PATCHERS``, ``__import__``, ``monkeypatch.setattr``/``delattr``).
PATH_TAKER_LASTS: Final = frozenset({"patch", "dict", "object", "import_module", "__import__", "setattr", "delattr"})


def call_arguments(call: ast.Call) -> list[ast.expr]:
    """The values of ``call``'s arguments in source order, as libcst's ``Call.args`` holds them (``*a`` and ``**k``
    by their values)."""
    values = [(a.value if isinstance(a, ast.Starred) else a) for a in call.args] + [k.value for k in call.keywords]
    if call.keywords and call.args:
        values.sort(key=lambda v: (getattr(v, "lineno", 0), getattr(v, "col_offset", 0)))
    return values


def module_level(statements: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The statements that run at module level, in no particular order: ``statements`` and those of their blocks
    (``if``, ``try`` with its handlers, ``with``, loops, ``match`` with its cases), the ``except`` handlers and
    ``case`` clauses themselves; functions and classes are given, not entered."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, field, ()))


def _path_argument_strings(scanned: Scan) -> Iterable[str]:
    strings: list[str] = []
    for call in scanned.calls:
        func = call.func
        if isinstance(func, ast.Attribute):
            lasts = {func.attr}
        elif isinstance(func, ast.Name):
            lasts = {func.id, *(bound.rpartition(".")[2] for bound in scanned.bindings.get(func.id, ()))}
        else:
            continue  # no qualified name: not a path taker
        if lasts.isdisjoint(PATH_TAKER_LASTS):
            continue
        for value in call_arguments(call):
            if isinstance(value, ast.Constant):
                if isinstance(value.value, str):
                    strings.append(value.value)
            elif isinstance(value, (ast.JoinedStr, ast.BinOp)):
                return scanned.strings  # the transformer looks at the words of the expression's code
    return strings


def _references(scanned: Scan, targets: frozenset[str], exact: bool = False) -> bool:
    return _references_names(scanned.qualnames, targets, exact)


def _references_names(names: Iterable[str], targets: frozenset[str], exact: bool = False) -> bool:
    """Whether one of ``names`` is a target or, unless ``exact`` (``Pass.exact_names``), lies under one."""
    for name in names:
        if name in targets:
            return True
        if exact:
            continue
        index = name.find(".")
        while index != -1:  # a prefix target covers its submodules: ``torch.distributed._tensor`` → ``….DTensor``
            if name[:index] in targets:
                return True
            index = name.find(".", index + 1)
    return False


@lru_cache(maxsize=1024)
def _word_regex(triggers: tuple[str, ...]) -> re.Pattern[str] | None:
    if not all(_DOTTED_WORD.fullmatch(t) for t in triggers):
        return None  # a trigger that is not a dotted identifier cannot be checked against the ast's words
    return re.compile(trie_pattern(triggers))


# Comments and string literals, as Python's tokenizer sees them (string prefixes included; an f-string is matched
# whole only when its replacement fields hold no quote of its own kind, which prose_only() checks).
_PROSE = re.compile(
    r"""(?P<comment>\#[^\r\n]*)"""
    r"""|(?P<string>(?<![\w])(?P<prefix>[rRbBuUfF]{0,2})"""
    r"""(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\r\n]|\\.)*'|"(?:[^"\\\r\n]|\\.)*"))""",
    re.DOTALL,
)
_QUOTE = re.compile(r"['\"]")
_REST_OF_LINE = re.compile(r"[ \t\f]*(?:\#[^\r\n]*)?(?:\r\n|\r|\n|\Z)")


def prose_only(text: str, regex: re.Pattern[str]) -> bool:
    """True when every match of ``regex`` in ``text`` lies in a comment or in a string that is a statement of its own
    (a docstring, or any bare string line), where no pass can act; False whenever that is not certain.

    A lexical look, far cheaper than a parse. It is exact for valid Python or gives up: every quote outside comments
    must belong to a string it matched (so it is in step with the tokenizer), and an f-string whose braces do not
    balance (PEP 701 lets its fields hold quotes of its own kind) makes it give up too. A string counts as a statement
    only when it starts a line at bracket depth 0 (no backslash continuation before it) and nothing but a comment
    follows it on its last line; f-strings never do (their fields are code)."""
    matches = [m.start() for m in regex.finditer(text)]
    if not matches:
        return True
    if has_lone_cr(text):
        return False  # lone CR line breaks: line starts below would be wrong
    prose: list[tuple[int, int]] = []
    depth = 0
    position = 0
    for token in _PROSE.finditer(text):
        start, end = token.span()
        code = text[position:start]
        if _QUOTE.search(code):
            return False  # out of step with the tokenizer (or not valid Python): let the parser decide
        depth += code.count("(") + code.count("[") + code.count("{") - code.count(")") - code.count("]") - code.count("}")
        position = end
        if token.group("comment") is not None:
            prose.append((start, end))
            continue
        prefix = token.group("prefix").lower()
        if "f" in prefix:
            body = token.group("string")
            if body.count("{") != body.count("}"):
                return False
            continue
        line_start = text.rfind("\n", 0, start) + 1
        if depth != 0 or text[line_start:start].strip(" \t\f"):
            continue
        before = text[: max(line_start - 1, 0)].rstrip("\r")
        if before.endswith("\\"):
            continue  # a continuation line: the string belongs to the statement above
        if _REST_OF_LINE.match(text, end) is None:
            continue
        prose.append((start, end))
    if _QUOTE.search(text, position):
        return False
    index = 0
    for at in matches:
        while index < len(prose) and prose[index][1] <= at:
            index += 1
        if index == len(prose) or not prose[index][0] <= at:
            return False
    return True


def relevant_passes(text: str, passes: Sequence[Pass], full: bool = False) -> list[Pass]:
    """The subset of ``passes`` (order kept) that may edit ``text`` or report a finding on it.

    Callers run the trigger regex first; this costs one ``ast.parse`` and a walk of the statements, going into the
    expressions only of those that hold a trigger word (every statement when a pass's targets are not anchored).
    """
    found = triggered(text, passes)
    if not found:
        return []
    spelled = identifiers(text)
    passes = [p for p in found if _reachable(p, spelled)]
    if not passes:
        return found if parse(text) is None else []  # a file that does not parse is reported, as before the cut
    # With passes anchored by their trigger words, a file whose trigger words all sit in comments and docstrings
    # (:func:`prose_only`) gives them nothing, parsed or not. That look costs half a parse and most files fail it, so it
    # is taken only for a file the parser rejects: the ast decides the others (after the ast kept a pass, the look
    # took one more file of torch's 535 out of play, whose detectors then find nothing, for 1 s of the precheck's 9).
    prose = not full and all((t := pass_targets(p)) is None or _anchored(p, t) for p in passes)
    tree = parse(text)
    if tree is None:
        return [] if prose and _prose_only(text, passes) else passes
    return _decide_all(text, tree, passes, full)


def _prose_only(text: str, passes: Sequence[Pass]) -> bool:
    return prose_only(text, text_regex(trigger_words(passes)))


def _decide_all(text: str, tree: ast.Module, passes: Sequence[Pass], full: bool) -> list[Pass]:
    lines = _scan_lines(text, passes) if all(line_words(p) is not None for p in passes) else None
    if not full and lines is not None:
        scanned = Scan(tree, lines, _import_lines(text))
        out = _decide(text, tree, passes, scanned, lines, limited=True)
        if out is not None:
            return out
        # a use the limited scan cannot see may reach a target (an import binds a name that spells no line word):
        # decide from every statement, as for a pass that cannot say
    decided = _decide(text, tree, passes, Scan(tree), lines, limited=False)
    assert decided is not None
    return decided


def _decide(
    text: str, tree: ast.Module, passes: Sequence[Pass], scanned: Scan, lines: list[int] | None, limited: bool
) -> list[Pass] | None:
    """The passes that ``scanned`` keeps in play; ``None`` when ``limited`` (a scan of the statements on ``lines``,
    those of the passes' :func:`line_words`) and a target may be used where that scan did not look."""
    code_words: str | None = None
    all_words: str | None = None
    ranges: list[tuple[int, int]] | None = None
    out = []
    for pass_ in passes:
        targets = pass_targets(pass_)
        if pass_.method_filter is not None:
            if any(pass_.method_filter(call) for call in scanned.calls):
                out.append(pass_)
                continue
            if targets is None:
                continue
        if targets is not None:
            hit = _references(scanned, targets, pass_.exact_names)
            filtered = pass_.call_filter is not None
            if limited and (filtered or not hit) and _hidden_alias(scanned, pass_, targets, below=filtered):
                return None  # a use of a target may sit where the scan did not look
            if hit and filtered:
                hit = _filtered_hit(scanned, pass_, targets)
            if hit:
                out.append(pass_)
            elif pass_.renames and _spelled_in_strings(scanned, frozenset(pass_.renames)):
                out.append(pass_)  # a renamed path spelled in a string: mock.patch("torch.x.old"), import_module(...)
            continue
        regex = _word_regex(pass_.triggers)
        if regex is None:  # triggers that are not words (``import amp``): a match on a line of code will do
            if ranges is None:
                ranges = code_ranges(tree, lines if lines is not None else trigger_lines(text, passes))
            if _on_code_line(text, text_regex(tuple(sorted(pass_.triggers))), ranges):
                out.append(pass_)
            continue
        if code_words is None:
            code_words = "\n".join(scanned.words)
            all_words = code_words + "\n" + "\n".join(scanned.strings)
        assert all_words is not None
        if regex.search(all_words):
            out.append(pass_)
    return out
