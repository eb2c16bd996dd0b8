"""One logical line laid out as black (and ruff format, which follows it) lays it out.

:func:`split_statement` takes the text of one statement — a simple statement (an expression, an assignment, plain,
augmented or annotated, ``return``, ``del``, ``assert``, ``raise``, a from-import) or the header of an ``if`` /
``elif`` / ``while`` — and gives its lines as black's stable style prints them at a line length: the statement joined
on one line when it fits (and holds no magic trailing comma), else split by black's rules, recursively:

- the right-hand split: at the last opening bracket whose closing bracket ends the line (what follows it, such as
  ``).features``, stays on the closing line), trying first to omit trailers that fit (black's
  ``generate_trailers_to_omit``);
- black's optional parentheses: the right-hand side of ``=`` / ``return``, a condition, an import's names get invisible
  parentheses, made visible (``x = (\\n    a / b\\n)``) unless splitting at the last real bracket reads as well
  (``_maybe_split_omitting_optional_parens``, ``can_omit_invisible_parens``, ``_prefer_split_rhs_oop_over_rhs``, and
  ``run_transformer``'s second opinion that forces them);
- inside brackets, the delimiter split: one item per line at the highest-priority delimiter (commas, then ternaries,
  ``and``/``or``, comparisons, arithmetic, method-chain dots), with a trailing comma after comma-separated items; a
  collection literal, an import or a call with a magic trailing comma always explodes one item per line.

This is a model of black 26's ``linegen`` on tokens, not black: it reads the syntax it needs from the tokens (which
bracket is a call, which ``*`` unpacks, which ``if`` is a ternary) and keeps the spacing the source has between tokens
on one line. Where it cannot be sure to print what black prints, it gives ``None`` instead of a guess: a comment or a
line continuation in the statement, a multi-line string, ``yield``/``async``, ``;``, a chained assignment, and — with
black, whose choice depends on the target versions it infers — a trailing comma to add after ``*args``/``**kwargs``.
"""

from __future__ import annotations

import io
import keyword
import sys
import token as tk
import tokenize
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["split_statement"]

_OPENING = {"lpar": "rpar", "lsqb": "rsqb", "lbrace": "rbrace"}
_CLOSING = {v: k for k, v in _OPENING.items()}
_BRACKET_KIND = {
    tk.LPAR: "lpar",
    tk.RPAR: "rpar",
    tk.LSQB: "lsqb",
    tk.RSQB: "rsqb",
    tk.LBRACE: "lbrace",
    tk.RBRACE: "rbrace",
    tk.COMMA: "comma",
    tk.DOT: "dot",
    tk.EQUAL: "equal",
    tk.COLON: "colon",
}

# black's delimiter priorities (brackets.py)
_COMPREHENSION = 20
_COMMA = 18
_TERNARY = 16
_LOGIC = 14
_STRING = 12
_COMPARATOR = 10
_MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4, "~": 3, "**": 2}
_DOT = 1
_COMPARATORS = {"<", ">", "==", "!=", "<=", ">=", "<>"}
_AUGMENTED = {"+=", "-=", "*=", "@=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "**=", "//="}
_VALUES = {"True", "False", "None", "..."}


class _Refused(Exception):
    """The statement holds something this model does not lay out as black would."""


class _Cannot(Exception):
    """black's CannotTransform / CannotSplit: this transform does not apply; the next one is tried."""


class _Leaf:
    __slots__ = (
        "kind",
        "value",
        "prefix",
        "prefix0",
        "bracket_depth",
        "opening_bracket",
        "trailer",
        "role",
        "unary",
        "vararg",
        "call_vararg",
        "in_call",
        "import_dot",
        "orphan",
    )

    def __init__(self, kind: str, value: str, prefix: str = "") -> None:
        self.kind = kind
        self.value = value
        self.prefix = prefix
        self.prefix0 = prefix  # the spacing black's whitespace() gives it (a clone starts from it again)
        self.bracket_depth = 0
        self.opening_bracket: _Leaf | None = None
        self.trailer = False  # a bracket of a call or a subscript (not an atom: tuple, list, dict, set)
        self.role = ""  # for names: comp_for, comp_if, ternary, cmp_in, cmp_not
        self.unary = False
        self.vararg = False  # a `*` / `**` that unpacks (not a delimiter)
        self.call_vararg = False  # ...among a call's arguments (a trailing comma after it needs py3.5+)
        self.in_call = False  # a comma among a call's arguments
        self.import_dot = False
        self.orphan = False  # a comma the split added (no place in the tree)

    def copy(self) -> _Leaf:
        new = _Leaf(self.kind, self.value, self.prefix0)
        for name in ("trailer", "role", "unary", "vararg", "call_vararg", "in_call", "import_dot", "orphan"):
            setattr(new, name, getattr(self, name))
        return new

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"_Leaf({self.kind}, {self.value!r})"


@dataclass
class _Context:
    line_length: int
    indent: int  # the statement's own indentation (black's depth 0 is this column)
    vararg_comma: bool  # whether a trailing comma may be added after `*args` in a split call


def _str_width(text: str) -> int:
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


# --- delimiters (black's is_split_before_delimiter / is_split_after_delimiter) ---------------------------------------


def _before(leaf: _Leaf, previous: _Leaf | None) -> int:
    if leaf.vararg:
        return 0
    if leaf.kind == "dot" and not leaf.import_dot and (previous is None or previous.kind in _CLOSING):
        return _DOT
    if leaf.kind == "op" and leaf.value in _MATH and not leaf.unary:
        return _MATH[leaf.value]
    if leaf.kind == "op" and leaf.value in _COMPARATORS:
        return _COMPARATOR
    if leaf.kind == "string" and previous is not None and previous.kind == "string":
        return _STRING
    if leaf.kind != "name":
        return 0
    if leaf.role in ("comp_for", "comp_if"):
        return _COMPREHENSION
    if leaf.role == "ternary":
        return _TERNARY
    if leaf.value == "is":
        return _COMPARATOR
    if leaf.role == "cmp_in" and not (previous is not None and previous.kind == "name" and previous.value == "not"):
        return _COMPARATOR
    if leaf.role == "cmp_not" and not (previous is not None and previous.kind == "name" and previous.value == "is"):
        return _COMPARATOR
    if leaf.value in ("and", "or"):
        return _LOGIC
    return 0


class _Tracker:
    """black's BracketTracker: depths, matching brackets, delimiters at depth 0."""

    def __init__(self) -> None:
        self.depth = 0
        self.match: dict[tuple[int, str], _Leaf] = {}
        self.delimiters: dict[int, int] = {}
        self.previous: _Leaf | None = None
        self.for_depths: list[int] = []
        self.lambda_depths: list[int] = []
        self.invisible: list[_Leaf] = []

    def mark(self, leaf: _Leaf) -> None:
        if self.depth == 0 and leaf.kind in _CLOSING and (self.depth, leaf.kind) not in self.match:
            return
        if self.for_depths and self.for_depths[-1] == self.depth and leaf.kind == "name" and leaf.value == "in":
            self.depth -= 1
            self.for_depths.pop()
        if self.lambda_depths and self.lambda_depths[-1] == self.depth and leaf.kind == "colon":
            self.depth -= 1
            self.lambda_depths.pop()
        if leaf.kind in _CLOSING:
            self.depth -= 1
            opening = self.match.pop((self.depth, leaf.kind), None)
            if opening is None:
                raise _Refused("unmatched bracket")
            leaf.opening_bracket = opening
            if not leaf.value:
                self.invisible.append(leaf)
        leaf.bracket_depth = self.depth
        if self.depth == 0:
            delim = _before(leaf, self.previous)
            if delim and self.previous is not None:
                self.delimiters[id(self.previous)] = delim
            elif leaf.kind == "comma":
                self.delimiters[id(leaf)] = _COMMA
        if leaf.kind in _OPENING:
            self.match[(self.depth, _OPENING[leaf.kind])] = leaf
            self.depth += 1
            if not leaf.value:
                self.invisible.append(leaf)
        self.previous = leaf
        if leaf.kind == "name" and leaf.value == "lambda":
            self.depth += 1
            self.lambda_depths.append(self.depth)
        if leaf.kind == "name" and leaf.value == "for":
            self.depth += 1
            self.for_depths.append(self.depth)

    def max_priority(self, exclude: int | None = None) -> int:
        return max(v for k, v in self.delimiters.items() if k != exclude)  # ValueError when there is none

    def count(self, priority: int) -> int:
        return sum(1 for p in self.delimiters.values() if p == priority)


class _Line:
    def __init__(self, ctx: _Context, depth: int = 0, inside_brackets: bool = False) -> None:
        self.ctx = ctx
        self.depth = depth
        self.inside_brackets = inside_brackets
        self.leaves: list[_Leaf] = []
        self.tracker = _Tracker()
        self.magic_trailing_comma: _Leaf | None = None
        self.should_split_rhs = False
        self.is_import = False

    def append(self, leaf: _Leaf, preformatted: bool = False, track_bracket: bool = False) -> None:
        if self.inside_brackets or not preformatted or track_bracket:
            self.tracker.mark(leaf)
            if self._magic(leaf):
                self.magic_trailing_comma = leaf
        self.leaves.append(leaf)

    def _magic(self, closing: _Leaf) -> bool:
        if not (closing.kind in _CLOSING and self.leaves and self.leaves[-1].kind == "comma"):
            return False
        if closing.kind == "rbrace":
            return True
        if closing.kind == "rsqb":
            return not (
                closing.trailer
                and closing.opening_bracket is not None
                and _one_sequence(closing.opening_bracket, closing, self.leaves, ("lsqb", "rsqb"))
            )
        if self.is_import:
            return True
        return closing.opening_bracket is not None and not _one_sequence(closing.opening_bracket, closing, self.leaves)

    def __bool__(self) -> bool:
        return bool(self.leaves)

    def __str__(self) -> str:
        if not self.leaves:
            return ""
        first, rest = self.leaves[0], self.leaves[1:]
        return first.prefix + "    " * self.depth + first.value + "".join(leaf.prefix + leaf.value for leaf in rest)

    def width(self) -> int:
        return self.ctx.indent + _str_width(str(self))

    def short(self, line_length: int | None = None) -> bool:
        return self.width() <= (self.ctx.line_length if line_length is None else line_length)

    def lengths(self, reverse: bool = False) -> Iterator[tuple[int, _Leaf, int]]:
        indices = range(len(self.leaves) - 1, -1, -1) if reverse else range(len(self.leaves))
        for index in indices:
            leaf = self.leaves[index]
            yield index, leaf, len(leaf.prefix) + len(leaf.value)

    def start(self) -> int:
        return self.ctx.indent + 4 * self.depth


def _one_sequence(opening: _Leaf, closing: _Leaf, leaves: list[_Leaf], brackets: tuple[str, str] = ("lpar", "rpar")) -> bool:
    if (opening.kind, closing.kind) != brackets:
        return False
    depth = closing.bracket_depth + 1
    index = next((i for i, leaf in enumerate(leaves) if leaf is opening), -1)
    if index == -1:
        return False
    commas = 0
    for leaf in leaves[index + 1 :]:
        if leaf is closing:
            break
        if leaf.bracket_depth == depth and leaf.kind == "comma":
            commas += 1
            if leaf.in_call:
                commas += 1
                break
    return commas < 2


# --- black's transforms ----------------------------------------------------------------------------------------------


def _transform_line(line: _Line, force: bool = False) -> list[_Line]:
    line_str = str(line)
    if not line.should_split_rhs and line.magic_trailing_comma is None and line.short():
        return [line]
    transforms = (_delimiter_split, _rhs) if line.inside_brackets else (_rhs,)
    for transform in transforms:
        try:
            return _run_transformer(line, transform, force, line_str)
        except _Cannot:
            continue
    return [line]


def _run_transformer(line: _Line, transform: object, force: bool, line_str: str) -> list[_Line]:
    optional = [b for b in line.tracker.invisible if b.bracket_depth == 0]
    result: list[_Line] = []
    assert callable(transform)
    for transformed in transform(line, force):
        if str(transformed) == line_str:
            raise _Cannot("unchanged")
        result.extend(_transform_line(transformed, force))
    if (
        force
        or transform is not _rhs
        or not line.tracker.invisible
        or any(b.value for b in optional)
        or result[0].short()
        or any(leaf.orphan for leaf in line.leaves)
    ):
        return result
    copy = _Line(line.ctx, line.depth, line.inside_brackets)
    copy.should_split_rhs = line.should_split_rhs
    copy.magic_trailing_comma = line.magic_trailing_comma
    copy.is_import = line.is_import
    for index, leaf in enumerate(line.leaves):
        new = leaf.copy()
        if index == 0:
            new.prefix = ""
        copy.append(new)
    second = _run_transformer(copy, transform, True, line_str)
    if all(ln.short() for ln in second):
        result = second
    return result


def _delimiter_split(line: _Line, force: bool) -> Iterator[_Line]:
    if not line.leaves:
        raise _Cannot("empty")
    last = line.leaves[-1]
    tracker = line.tracker
    try:
        priority = tracker.max_priority(exclude=id(last))
    except ValueError:
        raise _Cannot("no delimiters") from None
    if priority == _DOT and tracker.count(priority) == 1:
        raise _Cannot("a single attribute")
    current = _Line(line.ctx, line.depth, line.inside_brackets)
    lowest = sys.maxsize
    comma_safe = True
    for leaf in line.leaves:
        current.append(leaf, preformatted=True)
        lowest = min(lowest, leaf.bracket_depth)
        if comma_safe and leaf.bracket_depth == lowest and leaf.call_vararg:
            comma_safe = False  # black: only with TRAILING_COMMA_IN_CALL among the target versions' features
        if tracker.delimiters.get(id(leaf)) == priority:
            current.leaves[0].prefix = ""
            yield current
            current = _Line(line.ctx, line.depth, line.inside_brackets)
    if current:
        if priority == _COMMA and current.leaves[-1].kind != "comma":
            if not comma_safe and not line.ctx.vararg_comma:
                raise _Refused("a trailing comma after *args: black adds it only for the target versions it infers")
            comma = _Leaf("comma", ",")
            comma.orphan = True
            current.append(comma)
        current.leaves[0].prefix = ""
        yield current


@dataclass
class _RHS:
    head: _Line
    body: _Line
    tail: _Line
    opening: _Leaf
    closing: _Leaf


def _rhs(line: _Line, force: bool) -> Iterator[_Line]:
    """black's right_hand_split_with_omits."""
    ll = line.ctx.line_length
    prefix_lengths: dict[int, int] = {}
    length = line.start()
    for leaf in line.leaves:
        prefix_lengths[id(leaf)] = length
        length += len(leaf.prefix) + len(leaf.value)
    first_lines: list[_Line] | None = None
    for omit in _trailers_to_omit(line, ll):
        if omit:
            target: _Leaf | None = None
            for leaf in reversed(line.leaves):
                if leaf.kind in _CLOSING and id(leaf) not in omit:
                    target = leaf.opening_bracket
                    break
            if target is not None and target.value and prefix_lengths.get(id(target), 0) > ll:
                continue
        lines = _right_hand_split(line, force, omit)
        if first_lines is None and not omit:
            first_lines = lines
        if lines[0].short():
            yield from lines
            return
    if first_lines is not None:
        yield from first_lines
    else:
        yield from _right_hand_split(line, force, set())


def _trailers_to_omit(line: _Line, ll: int) -> Iterator[set[int]]:
    omit: set[int] = set()
    if line.magic_trailing_comma is None:
        yield omit
    length = line.start()
    opening: _Leaf | None = None
    closing: _Leaf | None = None
    inner: set[int] = set()
    for index, leaf, leaf_length in line.lengths(reverse=True):
        length += leaf_length
        if length > ll:
            break
        if opening is not None:
            if leaf is opening:
                opening = None
            elif leaf.kind in _CLOSING:
                prev = line.leaves[index - 1] if index > 0 else None
                if (
                    prev is not None
                    and prev.kind == "comma"
                    and leaf.opening_bracket is not None
                    and not _one_sequence(leaf.opening_bracket, leaf, line.leaves)
                ):
                    break
                inner.add(id(leaf))
        elif leaf.kind in _CLOSING:
            prev = line.leaves[index - 1] if index > 0 else None
            if prev is not None and prev.kind in _OPENING:
                inner.add(id(leaf))
                continue
            if closing is not None:
                omit.add(id(closing))
                omit.update(inner)
                inner.clear()
                yield set(omit)
            if (
                prev is not None
                and prev.kind == "comma"
                and leaf.opening_bracket is not None
                and not _one_sequence(leaf.opening_bracket, leaf, line.leaves)
            ):
                break
            if leaf.value:
                opening = leaf.opening_bracket
                closing = leaf


def _right_hand_split(line: _Line, force: bool, omit: set[int]) -> list[_Line]:
    return _maybe_omit_optional_parens(_first_rhs(line, omit), line, force, omit)


def _first_rhs(line: _Line, omit: set[int]) -> _RHS:
    tail: list[_Leaf] = []
    body: list[_Leaf] = []
    head: list[_Leaf] = []
    current = tail
    opening: _Leaf | None = None
    closing: _Leaf | None = None
    for leaf in reversed(line.leaves):
        if current is body and leaf is opening:
            current = head if body else tail
        current.append(leaf)
        if current is tail and leaf.kind in _CLOSING and id(leaf) not in omit:
            opening = leaf.opening_bracket
            closing = leaf
            current = body
    if opening is None or closing is None or not head:
        raise _Cannot("no brackets")
    tail.reverse()
    body.reverse()
    head.reverse()
    head_line = _build(head, line, opening, "head")
    body_line = _build(body, line, opening, "body")
    tail_line = _build(tail, line, opening, "tail")
    tail_len = len(str(tail_line).strip())
    if not body_line and (tail_len == 0 or tail_len < 3):
        raise _Cannot("an empty body")
    return _RHS(head_line, body_line, tail_line, opening, closing)


def _inside_matching(leaves: list[_Leaf]) -> set[int]:
    start = next((i for i, leaf in enumerate(leaves) if leaf.kind in _OPENING), None)
    if start is None:
        return set()
    ids: set[int] = set()
    stack: list[tuple[str, list[int]]] = []
    for leaf in leaves[start:]:
        if leaf.kind in _OPENING:
            stack.append((_OPENING[leaf.kind], [id(leaf)]))
        elif leaf.kind in _CLOSING:
            if stack and leaf.kind == stack[-1][0]:
                _, level = stack.pop()
                level.append(id(leaf))
                ids.update(level)
            else:
                break
        elif stack:
            stack[-1][1].append(id(leaf))
    return ids


def _build(leaves: list[_Leaf], original: _Line, opening: _Leaf, component: str) -> _Line:
    result = _Line(original.ctx, original.depth)
    result.is_import = component == "head" and original.is_import
    if component == "body":
        result.inside_brackets = True
        result.depth += 1
        if leaves and original.is_import and leaves[-1].kind != "comma":
            comma = _Leaf("comma", ",")
            comma.orphan = True
            leaves.append(comma)
    track = _inside_matching(leaves) if component == "head" else set()
    for leaf in leaves:
        result.append(leaf, preformatted=True, track_bracket=id(leaf) in track)
    if component == "body" and _should_split(result, opening):
        result.should_split_rhs = True
    return result


def _should_split(line: _Line, opening: _Leaf) -> bool:
    """black's should_split_line: a collection literal or an import with commas explodes, one item per line."""
    if not line.leaves:
        return False
    exclude = id(line.leaves[-1]) if line.leaves[-1].kind == "comma" else None
    trailing_comma = exclude is not None
    try:
        max_priority = line.tracker.max_priority(exclude=exclude)
    except ValueError:
        return False
    return max_priority == _COMMA and (trailing_comma or not opening.trailer)


def _maybe_omit_optional_parens(rhs: _RHS, line: _Line, force: bool, omit: set[int]) -> list[_Line]:
    if (
        not force
        and rhs.opening.kind == "lpar"
        and not rhs.opening.value
        and rhs.closing.kind == "rpar"
        and not rhs.closing.value
        and not line.is_import
        and _can_omit_invisible_parens(rhs, line.ctx.line_length)
    ):
        omit = {id(rhs.closing), *omit}
        try:
            oop = _first_rhs(line, omit)
            if _prefer_oop(oop, rhs):
                return _maybe_omit_optional_parens(oop, line, force, omit)
        except _Cannot:
            if not _can_be_split(rhs.body) and not rhs.body.short():
                raise
    _ensure_visible(rhs.opening)
    _ensure_visible(rhs.closing)
    return [ln for ln in (rhs.head, rhs.body, rhs.tail) if ln]


def _ensure_visible(leaf: _Leaf) -> None:
    if leaf.kind == "lpar":
        leaf.value = "("
    elif leaf.kind == "rpar":
        leaf.value = ")"


def _prefer_oop(oop: _RHS, rhs: _RHS) -> bool:
    head = rhs.head.leaves
    if not (len(head) >= 2 and head[-2].kind == "equal"):
        return True
    if not any(leaf.kind in _OPENING or leaf.kind in _CLOSING for leaf in head[:-1]):
        return True
    if not rhs.head.short(rhs.head.ctx.line_length - 1):
        return True
    if rhs.head.magic_trailing_comma is not None:
        return True
    equals = [leaf.kind for leaf in head].count("equal")
    if equals > 1 and equals > [leaf.kind for leaf in oop.head.leaves].count("equal"):
        return False
    closing_after_assign = False
    for leaf in reversed(oop.head.leaves):
        if leaf.kind == "equal":
            break
        if leaf.kind in _CLOSING:
            closing_after_assign = True
            break
    return closing_after_assign or (any(leaf.kind == "equal" for leaf in oop.head.leaves) and oop.head.short())


def _can_be_split(line: _Line) -> bool:
    leaves = line.leaves
    if len(leaves) < 2:
        return False
    if leaves[0].kind == "string" and leaves[1].kind == "dot":
        calls = dots = 0
        following = leaves[-1]
        for leaf in leaves[-2::-1]:
            if leaf.kind in _OPENING:
                if following.kind not in _CLOSING:
                    return False
                calls += 1
            elif leaf.kind == "dot":
                dots += 1
            elif leaf.kind == "name":
                if not (following.kind == "dot" or following.kind in _OPENING):
                    return False
            elif leaf.kind not in _CLOSING:
                return False
            if dots > 1 and calls > 1:
                return False
            following = leaf
    return True


def _can_omit_invisible_parens(rhs: _RHS, ll: int) -> bool:
    line = rhs.body
    tracker = line.tracker
    if not tracker.delimiters:
        return True
    max_priority = tracker.max_priority()
    if tracker.count(max_priority) > 1:
        return False
    if max_priority == _DOT:
        return True
    if len(line.leaves) < 2:
        raise _Refused("a stranded delimiter")
    first, second = line.leaves[0], line.leaves[1]
    if first.kind in _OPENING and second.kind not in _CLOSING and _can_omit_opening(line, first, ll):
        return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in ("rpar", "rbrace") or (last.kind == "rsqb" and not last.trailer):
        if penultimate.kind in _OPENING:
            return False
        if _can_omit_closing(line, last, ll):
            return True
    return False


def _can_omit_opening(line: _Line, first: _Leaf, ll: int) -> bool:
    remainder = False
    length = line.start()
    index = -1
    for index, leaf, leaf_length in line.lengths():  # noqa: B007 - read after the loop
        if leaf.kind in _CLOSING and leaf.opening_bracket is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > ll:
                break
            if leaf.kind in _OPENING:
                remainder = False
    else:
        if len(line.leaves) == index + 1:
            return True
    return False


def _can_omit_closing(line: _Line, last: _Leaf, ll: int) -> bool:
    length = line.start()
    seen_other_brackets = False
    for _index, leaf, leaf_length in line.lengths():
        length += leaf_length
        if leaf is last.opening_bracket:
            if seen_other_brackets or length <= ll:
                return True
        elif leaf.kind in _OPENING:
            seen_other_brackets = True
    return False


# --- from text to a line of leaves -----------------------------------------------------------------------------------

_SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
_TSTRING_START = getattr(tokenize, "TSTRING_START", -2)
_TSTRING_END = getattr(tokenize, "TSTRING_END", -2)


def _tokens(text: str) -> list[_Leaf]:
    """The statement's tokens as leaves, each with the spacing before it (black's, for tokens it joins)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(row: int, col: int) -> int:
        return offsets[row - 1] + col

    leaves: list[_Leaf] = []
    end = 0
    nesting = 0  # f-string nesting (3.12+ tokenizes an f-string in parts)
    start_at = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                raise _Refused("a comment")
            if tok.type in _SKIP:
                continue
            if tok.type in (_FSTRING_START, _TSTRING_START):
                if nesting == 0:
                    start_at = at(*tok.start)
                nesting += 1
                continue
            if nesting:
                if tok.type in (_FSTRING_END, _TSTRING_END):
                    nesting -= 1
                    if nesting == 0:
                        stop = at(*tok.end)
                        leaves.append(_leaf_for("string", text[start_at:stop], text[end:start_at]))
                        end = stop
                continue
            begin, stop = at(*tok.start), at(*tok.end)
            gap = text[end:begin]
            if tok.type == tokenize.OP:
                kind = _BRACKET_KIND.get(tok.exact_type, "op")
                if tok.string == "...":
                    kind = "name"
                if tok.string == ";":
                    raise _Refused("two statements on a line")
            elif tok.type == tokenize.NAME:
                kind = "name"
            elif tok.type == tokenize.NUMBER:
                kind = "number"
            elif tok.type == tokenize.STRING:
                kind = "string"
                if "\n" in tok.string:
                    raise _Refused("a multi-line string")
            else:
                raise _Refused("an unexpected token")
            leaves.append(_leaf_for(kind, tok.string, gap))
            end = stop
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise _Refused(f"does not tokenize: {exc}") from None
    if not leaves or text[end:].strip():
        raise _Refused("nothing to lay out")
    return leaves


def _leaf_for(kind: str, value: str, gap: str) -> _Leaf:
    if "\\" in gap:
        raise _Refused("a backslash continuation")
    return _Leaf(kind, value, gap)


def _spacing(leaves: list[_Leaf]) -> None:
    """Spacing as black's whitespace() gives it: none inside brackets or before a comma; a token the source starts a
    line with (a statement split over lines) gets black's space (none before a dot or a closing bracket)."""
    previous: _Leaf | None = None
    for leaf in leaves:
        gap = leaf.prefix0
        if previous is None:
            space = ""
        elif previous.kind in _OPENING or leaf.kind in _CLOSING or leaf.kind == "comma":
            space = ""
        elif "\n" in gap:
            space = "" if leaf.kind == "dot" or (leaf.kind == "colon") else " "
        else:
            space = gap
        leaf.prefix = leaf.prefix0 = space
        previous = leaf


def _classify(leaves: list[_Leaf], import_from: bool) -> None:
    """What black reads from the syntax tree, read from the tokens: which brackets are trailers (calls, subscripts),
    which operators are unary, which `*`/`**` unpack, which `if`/`in`/`not` is which."""
    frames: list[dict[str, object]] = [{"kind": "top", "for": False, "target": False}]
    previous: _Leaf | None = None
    seen_import = False
    for index, leaf in enumerate(leaves):
        frame = frames[-1]
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        operand_before = previous is not None and (
            previous.kind in ("number", "string")
            or previous.kind in _CLOSING
            or (previous.kind == "name" and (not keyword.iskeyword(previous.value) or previous.value in _VALUES))
        )
        if leaf.kind in _OPENING:
            leaf.trailer = leaf.kind != "lbrace" and operand_before
            if leaf.kind == "lpar" and import_from and seen_import:
                kind = "import"
            elif leaf.trailer:
                kind = "call" if leaf.kind == "lpar" else "subscript"
            else:
                kind = {"lpar": "paren", "lsqb": "list", "lbrace": "dict"}[leaf.kind]
            frames.append({"kind": kind, "for": False, "target": False, "opening": leaf})
        elif leaf.kind in _CLOSING:
            if len(frames) == 1:
                raise _Refused("unmatched bracket")
            opening = frames.pop()["opening"]
            assert isinstance(opening, _Leaf)
            leaf.trailer = opening.trailer
        elif leaf.kind == "comma":
            leaf.in_call = frame["kind"] == "call"
        elif leaf.kind == "dot":
            leaf.import_dot = import_from and not seen_import
        elif leaf.kind == "op":
            if leaf.value in ("*", "**", "+", "-", "~") and not operand_before:
                leaf.unary = True
                if leaf.value in ("*", "**"):
                    leaf.vararg = True
                    leaf.call_vararg = frame["kind"] == "call"
        elif leaf.kind == "name":
            value = leaf.value
            if value in ("yield", "async"):
                raise _Refused(f"`{value}`")
            if value == "import":
                seen_import = True
            elif value == "for":
                if frame["kind"] == "top":
                    raise _Refused("a `for` outside brackets")
                leaf.role = "comp_for"
                frame["for"] = frame["target"] = True
            elif value == "in":
                if frame["target"]:
                    frame["target"] = False
                else:
                    leaf.role = "cmp_in"
            elif value == "if" and index > 0:  # not the statement's own `if`
                leaf.role = "comp_if" if frame["for"] else "ternary"
            elif value == "else":
                leaf.role = "ternary"
            elif value == "not":
                if (following is not None and following.kind == "name" and following.value == "in") or (
                    previous is not None and previous.kind == "name" and previous.value == "is"
                ):
                    leaf.role = "cmp_not"
        previous = leaf
    if len(frames) != 1:
        raise _Refused("unbalanced brackets")


def _matching(leaves: list[_Leaf], start: int) -> int:
    depth = 0
    for index in range(start, len(leaves)):
        kind = leaves[index].kind
        if kind in _OPENING:
            depth += 1
        elif kind in _CLOSING:
            depth -= 1
            if depth == 0:
                return index
    raise _Refused("unmatched bracket")


def _top_level(leaves: list[_Leaf], start: int, stop: int) -> list[int]:
    """Indices of the tokens in ``leaves[start:stop]`` outside brackets and outside a lambda's parameters."""
    out: list[int] = []
    depth = 0
    lambdas = 0
    for index in range(start, stop):
        leaf = leaves[index]
        if leaf.kind in _CLOSING:
            depth -= 1
        if depth == 0:
            if leaf.kind == "name" and leaf.value == "lambda":
                lambdas += 1
            elif leaf.kind == "colon" and lambdas:
                lambdas -= 1
            elif not lambdas:
                out.append(index)
        if leaf.kind in _OPENING:
            depth += 1
    return out


def _optional_parens(leaves: list[_Leaf], start: int, stop: int, *, tuples: bool = False) -> list[_Leaf]:
    """black's normalize_invisible_parens for the child ``leaves[start:stop]``: redundant parentheses around it made
    invisible, or invisible ones added (a tuple or a generator in parentheses keeps its own)."""
    if start >= stop:
        raise _Refused("an empty child")
    first = leaves[start]
    if first.kind == "lpar" and not first.trailer and _matching(leaves, start) == stop - 1:
        inner = [leaves[i] for i in _top_level(leaves, start + 1, stop - 1)]
        if not inner:
            return leaves  # ()
        if any(leaf.kind == "comma" for leaf in inner) and not tuples:
            return leaves  # a tuple keeps its parentheses
        if any(leaf.kind == "name" and leaf.value == "for" for leaf in inner):
            return leaves  # and a generator
        if any(leaf.value == ":=" or leaf.vararg for leaf in inner):
            return leaves  # and a walrus, a starred item
        if inner[0].kind == "lpar" and _matching(leaves, start + 1) == stop - 2:
            raise _Refused("nested redundant parentheses")
        first.value = ""
        leaves[stop - 1].value = ""
        if start > 0 and leaves[start - 1].kind == "name" and not first.prefix:
            first.prefix = first.prefix0 = " "  # `assert(x)`: black's space after the keyword
        return leaves
    top = _top_level(leaves, start, stop)
    commas = [i for i in top if leaves[i].kind == "comma"]
    if len(commas) == 1 and commas[0] == stop - 1:
        raise _Refused("a one-tuple black would put in parentheses")
    lpar = _Leaf("lpar", "", first.prefix)
    lpar.prefix0 = first.prefix0
    first.prefix = first.prefix0 = ""
    rpar = _Leaf("rpar", "")
    return [*leaves[:start], lpar, *leaves[start:stop], rpar, *leaves[stop:]]


def _with_parens(leaves: list[_Leaf]) -> list[_Leaf]:
    """The invisible parentheses black's linegen gives this statement (visit_stmt's ``parens``)."""
    head = leaves[0].value if leaves[0].kind == "name" else ""
    n = len(leaves)
    if head in ("if", "elif", "while"):
        if leaves[-1].kind != "colon":
            raise _Refused("a header that does not end with its colon")
        return _optional_parens(leaves, 1, n - 1)
    if head == "return":
        return leaves if n == 1 else _optional_parens(leaves, 1, n)
    if head == "del":
        return _optional_parens(leaves, 1, n, tuples=True)
    if head == "assert":
        commas = [i for i in _top_level(leaves, 1, n) if leaves[i].kind == "comma"]
        if len(commas) > 1:
            raise _Refused("an assert with a tuple")
        if commas:
            leaves = _optional_parens(leaves, commas[0] + 1, n)
            return _optional_parens(leaves, 1, commas[0])
        return _optional_parens(leaves, 1, n)
    if head == "from":
        at = next((i for i in _top_level(leaves, 1, n) if leaves[i].kind == "name" and leaves[i].value == "import"), None)
        if at is None or at + 1 >= n or leaves[at + 1].value == "*":
            raise _Refused("not a from-import black splits")
        if leaves[at + 1].kind == "lpar":
            leaves[at + 1].value = ""
            leaves[-1].value = ""
            return leaves
        return _optional_parens(leaves, at + 1, n)
    if head in ("import", "global", "nonlocal", "pass", "break", "continue"):
        raise _Refused(f"a `{head}` statement")
    if head in ("raise", "await", "not", "lambda"):
        return leaves  # an expression statement or a raise: no optional parentheses
    top = _top_level(leaves, 0, n)
    equals = [i for i in top if leaves[i].kind == "equal"]
    augmented = [i for i in top if leaves[i].kind == "op" and leaves[i].value in _AUGMENTED]
    colons = [i for i in top if leaves[i].kind == "colon"]
    if len(equals) > 1:
        raise _Refused("a chained assignment")
    if augmented:
        return _optional_parens(leaves, augmented[0] + 1, n)
    if colons:
        colon = colons[0]
        if equals and equals[0] > colon:
            leaves = _optional_parens(leaves, equals[0] + 1, n)
            return _optional_parens(leaves, colon + 1, equals[0])
        return _optional_parens(leaves, colon + 1, n)
    if equals:
        at = equals[0]
        leaves = _optional_parens(leaves, at + 1, n)
        if any(leaves[i].kind == "comma" for i in top if i < at):
            return _optional_parens(leaves, 0, at)
        if leaves[0].kind == "lpar" and not leaves[0].trailer and _matching(leaves, 0) == at - 1:
            raise _Refused("a parenthesized target")
        return leaves
    return leaves


_LEFT_STOP = {"return", "assert", "del", "raise", "from", "if", "elif", "while", "else", "import", "in", "for", "lambda"}


def _conditionals(leaves: list[_Leaf]) -> list[_Leaf]:
    """black's visit_test: each conditional expression gets invisible parentheses of its own, unless it is all there
    is between a pair of parentheses."""
    index = 0
    while index < len(leaves):
        leaf = leaves[index]
        if not (leaf.kind == "name" and leaf.value == "if" and leaf.role == "ternary"):
            index += 1
            continue
        start = index
        depth = 0
        while start > 0:
            before = leaves[start - 1]
            if before.kind in _CLOSING:
                depth += 1
            elif before.kind in _OPENING:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (
                before.kind in ("comma", "equal", "colon")
                or (before.kind == "op" and (before.value in _AUGMENTED or before.value == ":=" or before.vararg))
                or (before.kind == "name" and before.value in _LEFT_STOP and before.role != "cmp_in")
            ):
                break
            start -= 1
        stop = index + 1
        depth = 0
        while stop < len(leaves):
            after = leaves[stop]
            if after.kind in _OPENING:
                depth += 1
            elif after.kind in _CLOSING:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (
                after.kind in ("comma", "colon", "equal") or (after.kind == "name" and after.role in ("comp_for", "comp_if"))
            ):
                break
            stop += 1
        left = leaves[start - 1] if start > 0 else None
        right = leaves[stop] if stop < len(leaves) else None
        if (
            left is not None
            and left.kind == "lpar"
            and right is not None
            and right.kind == "rpar"
            and _matching(leaves, start - 1) == stop
        ):
            index += 1
            continue
        first = leaves[start]
        lpar = _Leaf("lpar", "", first.prefix)
        lpar.prefix0 = first.prefix0
        lpar.trailer = True  # its parent is the conditional, not an atom
        first.prefix = first.prefix0 = ""
        rpar = _Leaf("rpar", "")
        rpar.trailer = True
        leaves = [*leaves[:start], lpar, *leaves[start:stop], rpar, *leaves[stop:]]
        index += 2
    return leaves


def _lay_out(text: str, ctx: _Context) -> tuple[list[_Leaf], list[str]]:
    leaves = _tokens(text if text.endswith("\n") else text + "\n")
    import_from = leaves[0].kind == "name" and leaves[0].value == "from"
    _classify(leaves, import_from)
    _spacing(leaves)
    if all(leaf.kind == "string" for leaf in leaves):
        raise _Refused("a string statement (black formats docstrings)")
    leaves = _conditionals(_with_parens(leaves))
    line = _Line(ctx)
    line.is_import = import_from
    for leaf in leaves:
        line.append(leaf)
    return leaves, [str(ln) for ln in _transform_line(line)]


def _ruff_departs(leaves: list[_Leaf], lines: list[str], ctx: _Context) -> bool:
    """Where ruff format is known to lay out a split statement otherwise than black: an ``assert`` with a message
    (ruff parenthesizes the message), a power operator, a slice, an assignment split left of its ``=`` (ruff
    parenthesizes the value instead), and any layout with a line still too long (ruff's best fit differs)."""
    if len(lines) == 1:
        return False
    if any(ctx.indent + _str_width(line) > ctx.line_length for line in lines):
        return True
    head = leaves[0].value if leaves[0].kind == "name" else ""
    if head == "assert" and any(leaves[i].kind == "comma" for i in _top_level(leaves, 1, len(leaves))):
        return True
    if any(leaf.kind == "op" and leaf.value == "**" and not leaf.unary for leaf in leaves):
        return True
    if any(leaf.role == "ternary" for leaf in leaves):
        return True  # ruff does not parenthesize a conditional expression among arguments or items
    depth: list[str] = []
    for leaf in leaves:
        if leaf.kind in _OPENING:
            depth.append(leaf.kind)
        elif leaf.kind in _CLOSING:
            depth.pop()
        elif leaf.kind == "colon" and depth and depth[-1] == "lsqb":
            return True
    equals = [i for i in _top_level(leaves, 0, len(leaves)) if leaves[i].kind == "equal"]
    return bool(equals) and " = " not in lines[0] and not lines[0].rstrip().endswith("=")


def split_statement(text: str, indent: int, line_length: int, formatter: str | None = None) -> list[str] | None:
    """The lines black prints for the statement ``text`` (its first token first; lines after the first hold their
    indent relative to it) at column ``indent`` within ``line_length``, or ``None`` where this model is not sure to
    print what the ``formatter`` (``"black"``, ``"ruff"`` or ``None``: any layout within the limit) prints.

    With black, a split that would add a trailing comma after ``*args``/``**kwargs`` in a call is refused (black adds
    it only for the target versions it infers from the file); with ruff, the layouts it is known to choose otherwise
    (:func:`_ruff_departs`)."""
    ctx = _Context(line_length=line_length, indent=indent, vararg_comma=formatter != "black")
    try:
        leaves, lines = _lay_out(text, ctx)
    except (_Refused, RecursionError):
        return None
    if formatter == "ruff" and _ruff_departs(leaves, lines, ctx):
        return None
    return lines
