"""Statement slicing: hand libcst only the top-level statements a pass can act on.

libcst's cost (parse, scope and qualified-name analysis, every transformer visit) grows with the whole file, while the
legacy calls a migration rewrites usually sit in a few functions of it. Before libcst runs, the file is cut at its
top-level statements (the stdlib ``ast`` gives their lines). A statement group is *kept* verbatim when it

- is the first one (module docstring, ``from __future__`` imports, the header comments),
- holds an import that binds a module-level name (the import structure stays whole, conditional imports included;
  a function's or class's own imports bind local names and do not keep it),
- holds a trigger word of a pass in play, or a name that an import spelling a trigger word binds (``efi`` for
  ``from torch.export import export_for_inference as efi``),
- or shares a module-level variable with a kept group, either way (``state = torch.load(p)`` … ``m.load(state)``),
  unless every pass in play only renames (``Pass.renames`` and nothing else).

The statements of a script's ``if __name__ == "__main__":`` block run in the module's scope too: its header line is a
group of its own, always kept, and its statements are grouped, kept and left out as top-level ones are (a stub line of
theirs is indented in the block). Inside a kept class, runs of methods are left out the same way.

Each run of the other groups becomes one *stub* line that keeps what the rest of the file can observe of it: the
module-level names it binds, the names and attribute chains it uses, and the words of its strings, which is what
scope analysis, alias clash checks and unused-import removal look at::

    Model, SCALE = __torchmigrate_hole_1__(torch.nn.Module, F.relu, SCALE, "__all__ words")

After the passes ran, each stub line is replaced by the original text it stands for, byte for byte. Anything
unexpected (a stub changed, moved or duplicated, an edit or finding on a stub line, an engine error) makes the caller
run the whole file instead; a test runs every pass's examples padded with unrelated code both ways and requires the
same result.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

from torchmigrate.core.text import has_lone_cr, split_lines
from torchmigrate.python.lastfile import keeps
from torchmigrate.python.precheck import all_nodes, ast_chain, child_nodes, module_level, statement_start
from torchmigrate.python.precheck import walk as walk_nodes

__all__ = ["Slice", "make_slice", "MIN_SAVING"]

MIN_SAVING = 0.3
"""Slice only when at least this share of the file's lines can be left out: below that the bookkeeping is not worth it."""

_STUB = "__torchmigrate_hole_{}__"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NAMED_NODES = (
    ast.Name, ast.arg, ast.keyword, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal,
    ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
)
_WORD = re.compile(r"\w+")
_STRING_WORD = re.compile(r"[A-Za-z_][\w.]*")
_BUILTINS = frozenset(dir(builtins))
_SCOPES = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp
)


@dataclass
class Slice:
    """The sliced text and how to map it back to the original."""

    text: str
    origin: list[int]
    """``origin[n - 1]``: the original line of sliced line ``n`` (``0`` for a stub line)."""
    holes: dict[str, str]
    """Stub line (without its line ending) → the original text it stands for (with its line endings)."""

    def original_line(self, line: int) -> int | None:
        """The original line of a sliced line, or ``None`` for a stub line (or a line past the end)."""
        if 1 <= line <= len(self.origin) and self.origin[line - 1]:
            return self.origin[line - 1]
        return None

    def splice(self, new_text: str) -> str | None:
        """``new_text`` (the passes' output for :attr:`text`) with every stub line put back, or ``None`` when the stubs
        did not come through exactly once each, unchanged and in order."""
        lines = split_lines(new_text)
        out: list[str] = []
        expected = iter(self.holes)
        pending = next(expected, None)
        for line in lines:
            bare = line.rstrip("\r\n")
            if "__torchmigrate_hole_" in bare:
                if bare != pending:
                    return None
                out.append(self.holes[bare])
                pending = next(expected, None)
                continue
            out.append(line)
        if pending is not None:
            return None
        return "".join(out)


def _module_bindings(statements: Iterable[ast.stmt], declares_global: bool = True) -> set[str]:
    """Names the statements bind in the module scope (``global`` declarations inside functions included; with
    ``declares_global`` false, the statements' code spells no ``global`` and definitions are not walked for one)."""
    names: set[str] = set()
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            stack.extend(node.decorator_list)
            if declares_global:
                for inner in walk_nodes(node):
                    if isinstance(inner, ast.Global):
                        names.update(inner.names)
            continue
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        stack.extend(child_nodes(node))
    return names


def _function_reads(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function can read from the module scope, as libcst's scope analysis links them, in one walk: every
    name it spells, less the names it certainly binds first in its own scope. libcst links a read to the function's
    own binding only when one comes before it (``print(x); x = 1`` reads the module's ``x``; so does ``x = x + 1``,
    and ``del x`` is a read), so a name is subtracted only when the statement of its first binding ends before every
    read or ``del`` of it (parameters come first). Its decorators, defaults, annotations and type parameters run in
    the enclosing scope: their names all count. Bindings inside nested scopes (comprehensions, lambdas, inner
    functions and classes) are those scopes' own; a ``global`` or ``nonlocal`` anywhere in it makes every name count."""
    parameters = function.args
    every = (*parameters.posonlyargs, *parameters.args, *parameters.kwonlyargs, parameters.vararg, parameters.kwarg)
    outside: list[ast.AST | None] = [*function.decorator_list, *parameters.defaults, *parameters.kw_defaults]
    outside.append(function.returns)
    outside.extend(a.annotation for a in every if a is not None)
    outside.extend(_type_parameter_parts(function))
    reads = {n.id for part in outside if part is not None for n in walk_nodes(part) if type(n) is ast.Name}
    first = (0, 0)
    bound: dict[str, tuple[int, int]] = {a.arg: first for a in every if a is not None}  # name → end of its first binding
    used: dict[str, tuple[int, int]] = {}  # name → its first read or `del`
    spelled: set[str] = set()
    declares = False
    # (node, in a nested scope, the end of the innermost statement of the function's own scope around it)
    stack: list[tuple[ast.AST, bool, tuple[int, int]]] = [(statement, False, first) for statement in function.body]
    while stack:
        node, nested, end = stack.pop()
        kind = type(node)
        if not nested and isinstance(node, ast.stmt):
            end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
        if kind is ast.Name:
            name: str = node.id  # type: ignore[attr-defined]
            spelled.add(name)
            if type(node.ctx) is ast.Store and not nested:  # type: ignore[attr-defined]
                bound[name] = min(bound.get(name, end), end)
            elif type(node.ctx) is not ast.Store:  # type: ignore[attr-defined]
                at = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                used[name] = min(used.get(name, at), at)
            continue
        if kind is ast.Global or kind is ast.Nonlocal:
            declares = True
        elif not nested:
            names: list[str] = []
            if kind in _DEFINITIONS:
                names = [node.name]  # type: ignore[attr-defined]
            elif kind is ast.Import or kind is ast.ImportFrom:
                names = [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]  # type: ignore[attr-defined]
            elif kind in _CAPTURES and node.name:  # type: ignore[attr-defined]
                names = [node.name]  # type: ignore[attr-defined]
            elif kind is ast.MatchMapping and node.rest:  # type: ignore[attr-defined]
                names = [node.rest]  # type: ignore[attr-defined]
            for name in names:
                bound[name] = min(bound.get(name, end), end)
        inner = nested or kind in _SCOPE_KINDS
        stack.extend((child, inner, end) for child in child_nodes(node))
    if declares:
        return reads | spelled
    local = {name for name, binding in bound.items() if name not in used or binding < used[name]}
    return reads | (spelled - local)


def _type_parameter_parts(node: ast.AST) -> list[ast.AST]:
    """The bounds and defaults of a definition's type parameters (Python 3.12+), evaluated outside its body."""
    parts: list[ast.AST] = []
    for parameter in getattr(node, "type_params", ()):
        parts.extend(p for p in (getattr(parameter, "bound", None), getattr(parameter, "default_value", None)) if p is not None)
    return parts


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_SCOPE_KINDS = frozenset(_SCOPES)
_CAPTURES = frozenset({ast.ExceptHandler, ast.MatchAs, ast.MatchStar})


def _read_names(statement: ast.stmt, memo: dict[int, set[str] | None] | None = None) -> set[str] | None:
    """The names a top-level definition can read from the module scope (:func:`_function_reads`; a class's own
    statements count whole, its methods as functions). ``None`` for other statements (their words are used instead).
    ``memo`` keeps the answers by statement."""
    key = id(statement)
    if memo is not None and key in memo:
        return memo[key]
    found: set[str] | None = None
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found = _function_reads(statement)
    elif isinstance(statement, ast.ClassDef):
        found = set()
        header = (*statement.decorator_list, *statement.bases, *(k.value for k in statement.keywords))
        for part in (*header, *_type_parameter_parts(statement)):
            found.update(n.id for n in walk_nodes(part) if type(n) is ast.Name)
        for inner in statement.body:
            read = _read_names(inner, memo)
            found |= {n.id for n in walk_nodes(inner) if type(n) is ast.Name} if read is None else read
    if memo is not None:
        memo[key] = found
    return found


def _group_reads(statements: list[ast.stmt], words: set[str], memo: dict[int, set[str] | None]) -> set[str]:
    """What ties a group to module-level variables: the names its definitions can read (:func:`_read_names`), and
    every word of its other statements."""
    found: set[str] = set()
    for statement in statements:
        read = _read_names(statement, memo)
        if read is None:
            return words
        found |= read
    return found


def _uses(
    statements: Iterable[ast.stmt], memo: dict[int, set[str] | None] | None = None
) -> tuple[set[str], set[str], set[str]]:
    """(names, attribute chains rooted at a name, words of string constants) anywhere in the statements."""
    names: set[str] = set()
    chains: set[str] = set()
    words: set[str] = set()
    for statement in statements:
        read = _read_names(statement, memo)
        if read is not None:  # a definition: the names it can read, not its own local variables
            names |= read
        for node in walk_nodes(statement):
            kind = type(node)
            if read is not None and kind in _NAMED_NODES:
                if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and node is statement:
                    names.add(node.name)  # type: ignore[attr-defined]
                continue
            if kind is ast.Name:
                names.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                chain = ast_chain(node)  # type: ignore[arg-type]
                if chain is not None:
                    chains.add(chain)
            elif kind is ast.Constant:
                if type(node.value) is str:  # type: ignore[attr-defined]
                    words.update(_STRING_WORD.findall(node.value))  # type: ignore[attr-defined]
            elif kind is ast.arg:
                names.add(node.arg)  # type: ignore[attr-defined]
            elif kind is ast.keyword:
                if node.arg:  # type: ignore[attr-defined]
                    names.add(node.arg)  # type: ignore[attr-defined]
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                names.add(node.name)  # type: ignore[attr-defined]
            elif kind in (ast.Global, ast.Nonlocal):
                names.update(node.names)  # type: ignore[attr-defined]
            elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
                if node.name:  # type: ignore[attr-defined]
                    names.add(node.name)  # type: ignore[attr-defined]
    return names, chains, words


def _stub(
    number: int,
    statements: list[ast.stmt],
    bound: set[str],
    visible: frozenset[str],
    dotted: frozenset[str],
    newline: str,
    memo: dict[int, set[str] | None] | None = None,
) -> str:
    """One line standing for ``statements``: the module-level names they bind, and what else the rest of the file can
    observe of them: the names they use that are module-level, imported or builtin (``visible``; a function's local
    ``x`` cannot clash with anything a pass adds elsewhere), the ``import a.b`` modules (``dotted``) they use through
    attribute chains, and the import names their strings spell (``__all__``, string annotations). Never an attribute
    chain beyond an imported module: ``torch.load`` in a stub would be a reference for a pass to act on. ``bound``: the
    module-level names the statements bind."""
    names, chains, words = _uses(statements, memo)
    args = sorted(n for n in names if n in visible and not keyword.iskeyword(n))
    args += sorted(m for m in dotted if any(c == m or c.startswith(m + ".") for c in chains))
    seen = sorted(w for w in words if w in visible or w in dotted)
    if seen:
        args.append('"' + " ".join(seen) + '"')
    call = f"{_STUB.format(number)}({', '.join(args)})"
    targets = "".join(f"{name} = " for name in sorted(bound) if not keyword.iskeyword(name) and name != "__debug__")
    return targets + call + newline


def _groups(statements: list[ast.stmt]) -> list[tuple[int, list[ast.stmt]]]:
    """Statements of one block grouped so that no two groups share a line: (last line, statements)."""
    groups: list[tuple[int, list[ast.stmt]]] = []
    for statement in statements:
        start = statement_start(statement)
        end = statement.end_lineno or start
        if groups and start <= groups[-1][0]:
            groups[-1] = (max(groups[-1][0], end), [*groups[-1][1], statement])
        else:
            groups.append((end, [statement]))
    return groups


def _layout(tree: ast.Module, lines: list[str]) -> tuple[list[tuple[int, list[ast.stmt]]], list[str]]:
    """The groups a slice is made of, with their indentation: the top-level statements grouped, and a script's main
    block as its header line (a group of its own, with no statement: always kept) and its statements grouped."""
    groups = _groups(tree.body)
    indents = [""] * len(groups)
    for index, (_, statements) in enumerate(groups):
        block = _main_block(statements, lines)
        if block is not None:
            indent, body = block
            header: tuple[int, list[ast.stmt]] = (statements[0].lineno, [])
            groups = [*groups[:index], header, *body, *groups[index + 1 :]]
            indents = [*indents[:index], "", *([indent] * len(body)), *indents[index + 1 :]]
            break
    return groups, indents


def _main_block(group: list[ast.stmt], lines: list[str]) -> tuple[str, list[tuple[int, list[ast.stmt]]]] | None:
    """For a group that is a script's ``if __name__ == "__main__":`` block (its test on the ``if`` line, no ``else``,
    its body indented under it with spaces): (the body's indentation, the body's statements grouped). Its statements
    run in the module's scope, as top-level ones do, so they are kept or left out as top-level groups are."""
    if len(group) != 1 or not isinstance(group[0], ast.If) or group[0].orelse:
        return None
    statement = group[0]
    test = statement.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.Name) and test.left.id == "__name__"
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__"
        and test.end_lineno == statement.lineno
    ):
        return None
    body = _groups(statement.body)
    if len(body) < 2 or statement_start(statement.body[0]) <= statement.lineno:
        return None
    indent = _indent(lines[statement_start(statement.body[0]) - 1])
    if not indent or indent.strip(" "):
        return None  # tabs: leave the block whole
    return indent, body


def _spans(
    groups: list[tuple[int, list[ast.stmt]]], lines: list[str], indents: list[str] | None = None
) -> list[tuple[int, int]] | None:
    """The lines each group owns, as libcst assigns them. The blank and comment lines after a group are the next
    group's (its ``leading_lines``), except a footer: where blocks close after the group (the block of its last
    statement, when that is a compound statement with an indented body; the main block, after its last statement),
    the lines up to the last comment indented at least as deep as the outermost of those blocks are that block's
    (libcst's ``IndentedBlock.footer``). ``indents``: each group's indentation (none: all at the top level). The first
    group starts at line 1 and the last one runs to the end of the file. ``None`` where a comment or a block is
    indented with anything but spaces (what libcst would compare is not a width then)."""
    spans: list[tuple[int, int]] = []
    first = 1
    for index, (last, statements) in enumerate(groups):
        if index + 1 == len(groups):
            last = len(lines)
        spans.append((first, last))
        first = last + 1
        depths: list[str] = []
        block = _last_block_indent(statements[-1], lines) if statements else None
        if block is not None:
            depths.append(block)
        if indents is not None and indents[index] and (index + 1 == len(groups) or not indents[index + 1]):
            depths.append(indents[index])  # the main block closes after its last statement
        if not depths:
            continue
        if any(d.strip(" ") for d in depths):
            return None
        depth = min(len(d) for d in depths)
        probe = first
        while probe <= len(lines):
            line = lines[probe - 1]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                break
            if stripped:
                indent = _indent(line)
                if indent.strip(" "):
                    return None
                if len(indent) >= depth:
                    first = probe + 1  # a comment as deep as the closing block: its footer, and all before it
            probe += 1
        if first > spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], first - 1)
    return spans


def _last_block_indent(statement: ast.stmt, lines: list[str]) -> str | None:
    """The indentation of the last block of a compound statement (``else`` / ``finally`` / the last ``except`` or
    ``case`` clause / the last ``elif``, else its body), where that block is indented on lines of its own; ``None``
    for a simple statement or a block on its clause's line (``if x: y``, libcst's ``SimpleStatementSuite``, which has
    no footer)."""
    block: list[ast.stmt] = []
    if isinstance(statement, ast.If):
        block = statement.orelse or statement.body
        while len(block) == 1 and isinstance(block[0], ast.If) and block is statement.orelse:
            inner = block[0]
            if not _line(lines, inner.lineno).lstrip().startswith("elif"):
                break  # `else:` holding an `if`: the else block is the last one
            statement, block = inner, inner.orelse or inner.body
    elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
        block = statement.orelse or statement.body
    elif isinstance(statement, _TRIES):
        tried: ast.Try = statement  # type: ignore[assignment]  # (ast.TryStar has the same fields)
        block = tried.finalbody or tried.orelse or (tried.handlers[-1].body if tried.handlers else [])
    elif isinstance(statement, (ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        block = statement.body
    elif isinstance(statement, ast.Match):
        block = statement.cases[-1].body if statement.cases else []
    if not block:
        return None
    head = block[0]
    line = _line(lines, statement_start(head))
    indent = _indent(line)
    decorated = statement_start(head) != head.lineno
    if not (line[len(indent) :].startswith("@") if decorated else head.col_offset == len(indent)):
        return None  # the block's statement follows its clause on the same line
    return indent


_TRIES: tuple[type[ast.stmt], ...] = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _indent(line: str) -> str:
    """The whitespace ``line`` starts with (the callers take only spaces for an indentation libcst would compare)."""
    return line[: len(line) - len(line.lstrip())]


USES, BOUND_USES, BINDINGS, NO_TIES = "uses", "bound-uses", "bindings", "none"
"""How module-level variables tie statement groups to kept ones (``make_slice(ties=...)``). ``BINDINGS``: the groups
that bind a variable the kept groups bind or read (what qualified names, scope assignments and values read through a
name need); ``BOUND_USES``: those, and the groups that read a variable the kept groups bind or pass as ``**kwargs``;
``USES``: those, and the groups that read any variable the kept groups read (for passes that follow a variable's other
uses: ``Pass.follows_uses``); ``NO_TIES`` (passes that only rename): none."""


def make_slice(
    text: str, tree: ast.Module, triggers: re.Pattern[str], newline: str = "\n", ties: str = USES
) -> Slice | None:
    """The slice of ``text`` (parsed as ``tree``) for passes whose trigger words ``triggers`` matches, or ``None``
    when slicing would not leave out enough (or the text has line breaks the ``ast`` counts differently).

    ``ties``: how module-level variables tie groups together (:data:`USES`, :data:`BINDINGS`, :data:`NO_TIES`)."""
    if has_lone_cr(text) or "migrate:" in text:
        return None  # lone CR line breaks; suppression comments (their logical lines must stay whole)
    lines = split_lines(text)
    groups, indents = _layout(tree, lines)
    if len(groups) < 3:
        return None
    found_spans = _spans(groups, lines, indents)
    if found_spans is None:
        return None
    spans = found_spans

    # Names that reach a target without spelling a trigger word: what imports that spell one bind.
    relevant: set[str] = set()
    imported: set[str] = set()
    dotted: set[str] = set()
    inside: set[int] = set()  # lines inside a multi-line string
    imports: list[ast.Import | ast.ImportFrom] = []
    for node in all_nodes(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            if (node.end_lineno or node.lineno) > node.lineno:
                inside.update(range(node.lineno + 1, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
    code = _code_lines(lines, inside)
    chunks = ["".join(code[first - 1 : last]) for first, last in spans]
    for node in imports:
        if isinstance(node, ast.Import):
            dotted.update(a.name for a in node.names if "." in a.name and a.asname is None)
        segment = "".join(code[node.lineno - 1 : node.end_lineno or node.lineno])
        local = {alias.asname or alias.name.split(".")[0] for alias in node.names}
        imported |= local
        if triggers.search(segment):
            relevant |= local
    words = [set(_WORD.findall(chunk)) for chunk in chunks]
    bindings = [_module_bindings(statements, "global" in words[index]) for index, (_, statements) in enumerate(groups)]
    visible = frozenset(imported.union(*bindings) | _BUILTINS)
    keep = [not statements for _, statements in groups]  # a main block's header line
    keep[0] = True
    memo = _reads_memo(tree)  # what each definition can read, asked for by the ties and the stubs
    reads = [_group_reads(statements, words[index], memo) for index, (_, statements) in enumerate(groups)]
    for index, chunk in enumerate(chunks):
        binds = "import" in words[index] and _imports_bind_module_names(groups[index][1], "global" in words[index])
        if binds or triggers.search(chunk) or not words[index].isdisjoint(relevant):
            keep[index] = True
    # Module-level variables tie groups together (see USES … NO_TIES)
    variables = [_assigned(statements, "global" in words[index]) for index, (_, statements) in enumerate(groups)]
    every_variable = set().union(*variables)
    followed: set[str] = set()  # the variables whose reads elsewhere tie too
    if ties == BOUND_USES:  # what the groups holding a site (kept so far) bind or pass as **kwargs
        followed = {
            name
            for index, flag in enumerate(keep)
            if flag
            for name in variables[index] | (_star_names(groups[index][1]) & every_variable)
        }
    shared: set[str] = set()  # the variables the kept groups bind or read, from the last round (no change in it)
    changed = ties != NO_TIES
    while changed:
        changed = False
        shared = set()
        for index, flag in enumerate(keep):
            if flag:
                shared |= variables[index] | (reads[index] & every_variable)
        if ties == USES:
            followed = shared
        for index, flag in enumerate(keep):
            if flag or variables[index].isdisjoint(shared) and reads[index].isdisjoint(followed):
                continue
            keep[index] = changed = True
    inner: dict[int, list[list[ast.stmt]]] = {}  # kept class group → its runs of methods to stub
    method_ties = followed  # a method binds no module-level variable (one with a `global` declaration stays)
    for index, flag in enumerate(keep):
        only = groups[index][1][0] if len(groups[index][1]) == 1 else None
        into_functions = ties == NO_TIES
        if flag and index > 0 and (isinstance(only, ast.ClassDef) or into_functions and isinstance(only, _FUNCTIONS)):
            runs = _method_runs(only, code, triggers, relevant, method_ties, memo, into_functions)
            if runs:
                inner[index] = runs
    omitted = sum(last - first + 1 for (first, last), flag in zip(spans, keep, strict=True) if not flag)
    omitted += sum((run[-1].end_lineno or run[-1].lineno) - statement_start(run[0]) for runs in inner.values() for run in runs)
    if omitted < MIN_SAVING * max(len(lines), 1):
        return None

    out: list[str] = []
    origin: list[int] = []
    holes: dict[str, str] = {}
    index = 0
    while index < len(groups):
        if keep[index]:
            first, last = spans[index]
            position = first
            for run in inner.get(index, ()):
                head, tail = statement_start(run[0]), run[-1].end_lineno or run[-1].lineno
                out.extend(lines[position - 1 : head - 1])
                origin.extend(range(position, head))
                indent = lines[head - 1][: len(lines[head - 1]) - len(lines[head - 1].lstrip(" \t"))]
                names = {statement.name for statement in run}  # type: ignore[attr-defined]
                stub = indent + _stub(len(holes) + 1, run, names, visible, frozenset(dotted), newline, memo)
                holes[stub.rstrip("\r\n")] = "".join(lines[head - 1 : tail])
                out.append(stub)
                origin.append(0)
                position = tail + 1
            out.extend(lines[position - 1 : last])
            origin.extend(range(position, last + 1))
            index += 1
            continue
        run_start = index
        while index < len(groups) and not keep[index] and indents[index] == indents[run_start]:
            index += 1  # (a run stays inside the main block, or outside it)
        statements = [s for _, group in groups[run_start:index] for s in group]
        # The blank and comment lines before the run stay as they are: libcst attaches them to the statement that
        # follows, and what a pass does around a statement (an import added above it) depends on them.
        first, head = spans[run_start][0], statement_start(statements[0])
        out.extend(lines[first - 1 : head - 1])
        origin.extend(range(first, head))
        bound = set().union(*bindings[run_start:index])
        stub = indents[run_start] + _stub(len(holes) + 1, statements, bound, visible, frozenset(dotted), newline, memo)
        holes[stub.rstrip("\r\n")] = "".join(lines[head - 1 : spans[index - 1][1]])
        out.append(stub)
        origin.append(0)
    return Slice(text="".join(out), origin=origin, holes=holes)


def _reads_memo(tree: ast.Module) -> dict[int, set[str] | None]:
    """The memo of :func:`_read_names` for ``tree``'s statements, kept for the last tree (by identity, the tree held
    with it so that its statements' ids stay theirs): the engine slices one file for each pass in play and for all
    of them together, and a statement's reads do not change."""
    if _MEMO and _MEMO[0][0] is tree:
        return _MEMO[0][1]
    memo: dict[int, set[str] | None] = {}
    _MEMO[:] = [(tree, memo)]
    return memo


_MEMO: list[tuple[ast.Module, dict[int, set[str] | None]]] = []
keeps(_MEMO.clear)


def _code_lines(lines: list[str], inside: set[int]) -> list[str]:
    """``lines`` with each comment-only line emptied, except the lines ``inside`` a multi-line string: what decides
    whether a statement is kept, since a trigger word in a comment (``# load the model``) holds no site."""
    return [
        line if number in inside or not line.lstrip().startswith("#") else "\n"
        for number, line in enumerate(lines, 1)
    ]


def _method_runs(
    cls: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef,
    lines: list[str],
    triggers: re.Pattern[str],
    relevant: set[str],
    shared: set[str],
    memo: dict[int, set[str] | None] | None = None,
    into_functions: bool = False,
) -> list[list[ast.stmt]]:
    """Inside a kept class, the runs of consecutive methods that can become one stub line each, as top-level groups
    do: a method that holds a trigger word, a name an import spelling one binds, a module-level variable the kept code
    shares (``shared``) or a ``global`` / ``nonlocal`` declaration stays, and so does every other statement of the
    class body (a nested class is looked into the same way). A run is worth a stub only if it leaves out more than
    its one line.

    ``into_functions`` (a slice for passes that only rename, :data:`NO_TIES`): the same inside a kept function or
    method, for the functions defined in its body (torch's ``_get_handlers`` is one 2,000-line method of nested
    handlers). A nested function can read its enclosing function's variables, which a stub does not show, so this is
    only for passes that look at nothing but the references to their names and the imports."""
    runs: list[list[ast.stmt]] = []
    current: list[ast.stmt] = []
    previous_end = 0
    for statement in cls.body:
        start = statement_start(statement)
        end = statement.end_lineno or statement.lineno
        stub = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and start > previous_end
        if stub:
            text = "".join(lines[start - 1 : end])
            found = set(_WORD.findall(text))
            read = _read_names(statement, memo)
            reads = found if read is None else read
            stub = not (
                triggers.search(text) or not found.isdisjoint(relevant) or not reads.isdisjoint(shared)
                or "global" in found or "nonlocal" in found
            )
        if stub:
            current.append(statement)
        else:
            if current:
                runs.append(current)
                current = []
            if isinstance(statement, ast.ClassDef) or into_functions and isinstance(statement, _FUNCTIONS):
                # a nested class: its methods, the same way (and a kept function's own functions, when asked)
                runs.extend(_method_runs(statement, lines, triggers, relevant, shared, memo, into_functions))
        previous_end = end
    if current:
        runs.append(current)
    return [run for run in runs if (run[-1].end_lineno or run[-1].lineno) > statement_start(run[0])]


def _imports_bind_module_names(statements: list[ast.stmt], declares_global: bool) -> bool:
    """Whether an import among ``statements`` binds a name in the module scope: at the top level or in the blocks of
    an ``if``/``try``/``with``/``for``/``while``/``match``. An import inside a function or class binds a local name,
    which nothing outside it sees (libcst adds imports after the module's leading ones only), so such a group may
    become a stub; unless the function declares a name ``global`` (``global np; import numpy as np``)."""
    for node in module_level(statements):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if declares_global and any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in walk_nodes(node)):
                return True
    return False


def _declared_global(statements: list[ast.stmt]) -> set[str]:
    """The names a ``global`` statement anywhere in the statements declares."""
    return {
        name for statement in statements for node in walk_nodes(statement) if isinstance(node, ast.Global) for name in node.names
    }


def _star_names(statements: list[ast.stmt]) -> set[str]:
    """The names the statements pass as ``**name`` to a call."""
    return {
        node.value.id
        for statement in statements
        for node in walk_nodes(statement)
        if isinstance(node, ast.keyword) and node.arg is None and isinstance(node.value, ast.Name)
    }


def _assigned(statements: list[ast.stmt], declares_global: bool = True) -> set[str]:
    """Module-level *variables* the statements bind (not functions or classes: those are kept as names in stubs), a
    function's ``global`` ones included (``def setup(): global graph; graph = torch.cuda.CUDAGraph()``: a stub would
    give the kept code a placeholder binding of ``graph``)."""
    names: set[str] = set()
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if declares_global:
                names |= _declared_global([statement])
            continue
        names |= _module_bindings([statement], declares_global)
    return names
