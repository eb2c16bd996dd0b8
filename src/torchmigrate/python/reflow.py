"""Edited lines stay within the project's line length, laid out the way black (and ruff format) lays them out.

After the passes ran, each statement whose text they changed is looked at again:

- a simple statement or an ``if`` / ``elif`` / ``while`` condition the edit made too long is laid out by
  :mod:`torchmigrate.python.linesplit`, a model of black's line splitting (the right-hand split, the optional
  parentheses, the delimiter split, one item per line with the magic trailing comma), recursively;
- with a formatter that joins lines (black, ruff format), an edited statement over several lines is laid out again
  the same way: joined when it now fits, split black's way when it does not — but only where the statement the edit
  changed was itself laid out as the model lays it out (else the file follows rules the model does not know, and the
  older rules below apply);
- where the model refuses (a comment in the statement, a multi-line string, a layout ruff format chooses otherwise
  than black, a ``with`` header), the older rules: a one-line call split at its last call (``f(`` / the arguments on
  one indented line / ``)``, else one per line with a trailing comma), a call written ``f(\n    a, b\n)`` whose line
  grew too long gets one argument per line, and with a formatter a statement that fits is joined (never one with a
  comment or a magic trailing comma inside). Without a formatter, a statement the project split over lines keeps its
  layout where the older rules can fix the long line, and the model's layout is taken only when every line fits.

Anything else keeps its long line rather than get a layout the formatter would not produce.
"""

from __future__ import annotations

import difflib
import re
import tokenize
from collections.abc import Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from torchmigrate.core.registry import Layout
from torchmigrate.core.text import split_lines
from torchmigrate.python.codemod import resolve_metadata
from torchmigrate.python.helpers import dotted_name, find_all
from torchmigrate.python.linesplit import split_statement

__all__ = ["reflow"]

_UNIT = "    "  # black's indent, whatever the file's own
_NONE = cst.SimpleWhitespace("")


def reflow(module: cst.Module, old_text: str, layout: Layout) -> cst.Module:
    """``module`` (the passes' output for ``old_text``) with its edited statements kept within ``layout``."""
    limit = layout.line_length
    if not limit or "\t" in module.default_indent:
        return module
    new_text = module.code
    old_lines, opcodes = _diff(old_text, new_text)
    changed = _changed_lines(opcodes)
    if not changed:
        return module
    lines = split_lines(new_text)
    long = {n for n in changed if _width(lines[n - 1]) > limit}
    if not long and layout.formatter is None:
        return module
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = resolve_metadata(wrapper, PositionProvider)
    replacements: dict[int, _Statement] = {}
    elifs: set[int] = set()
    for statement in _statements(wrapper.module, elifs):
        where = positions.get(statement)
        if where is None:
            continue
        first = where.start.line
        last = first + len(_lines(statement)) - 1  # a compound statement: its header only
        if not any(first <= n <= last for n in changed):
            continue
        indent = len(lines[first - 1]) - len(lines[first - 1].lstrip(" "))
        is_long = any(first <= n <= last for n in long)
        new: _Statement | None = None
        old = statement if isinstance(statement, (cst.SimpleStatementLine, cst.With)) else None
        if is_long or (layout.formatter is not None and last > first):
            if layout.formatter is None and last > first and old is not None:
                new = _split(old, indent, limit)  # the project's own layout, changed where it grew long
            if new is None:
                found = _black(statement, id(statement) in elifs, indent, layout, (old_lines, opcodes, first))
                if found is _KEEP:
                    continue
                new = found
        if new is None and old is not None:
            if is_long:
                new = _split(old, indent, limit)
            elif layout.formatter is not None and last > first and isinstance(old, cst.SimpleStatementLine):
                new = _joined(old, indent, limit)
        if new is not None:
            replacements[id(statement)] = new
    if not replacements:
        return module
    return wrapper.module.visit(_Replace(replacements))


_KEEP = cst.SimpleStatementLine(body=[cst.Pass()])  # the formatter keeps the statement as it is


def _black(
    statement: _Statement, elif_: bool, indent: int, layout: Layout, origin: tuple[list[str], list[_Opcode], int]
) -> _Statement | None:
    """``statement`` laid out as black (ruff format) lays it out (:mod:`torchmigrate.python.linesplit`), ``_KEEP``
    when that is how it is already, or ``None`` when the model refuses it. With a formatter, the statement the edit
    changed must be one the model lays out exactly as the file has it (else its layout is one the model does not know);
    without one, the new layout must fit."""
    if isinstance(statement, cst.With):
        return None
    limit = layout.line_length
    assert limit is not None
    text = "\n".join(_lines(statement))
    if elif_:
        text = "el" + text
    out = split_statement(text, indent, limit, layout.formatter)
    if out is None or split_statement("\n".join(out), indent, limit, layout.formatter) != out:
        return None
    if layout.formatter is None and any(indent + len(line) > limit for line in out):
        return None
    single = len(text.splitlines()) == 1
    if layout.formatter is not None and not _formatted_before(origin, limit, layout.formatter, single=single):
        return None
    if out == text.splitlines():
        return _KEEP
    code = "\n".join(out) + "\n"
    try:
        if isinstance(statement, cst.SimpleStatementLine):
            parsed = cst.parse_statement(code)
            if not isinstance(parsed, cst.SimpleStatementLine):
                return None
            return parsed.with_changes(leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace)
        header = cst.parse_statement((code[2:] if elif_ else code) + "    pass\n")
    except cst.ParserSyntaxError:
        return None
    if isinstance(statement, (cst.If, cst.While)) and type(header) is type(statement):
        return _with_header(statement, header)
    return None


def _with_header(statement: cst.If | cst.While, header: cst.CSTNode) -> cst.If | cst.While:
    """``statement`` with the test (and the spaces around it) of ``header``, a statement of its kind."""
    if isinstance(statement, cst.If) and isinstance(header, cst.If):
        return statement.with_changes(
            test=header.test,
            whitespace_before_test=header.whitespace_before_test,
            whitespace_after_test=header.whitespace_after_test,
        )
    assert isinstance(statement, cst.While) and isinstance(header, cst.While)
    return statement.with_changes(
        test=header.test,
        whitespace_after_while=header.whitespace_after_while,
        whitespace_before_colon=header.whitespace_before_colon,
    )


def _formatted_before(origin: tuple[list[str], list[_Opcode], int], limit: int, formatter: str, single: bool) -> bool:
    """Whether the statement the edit changed (found through the diff) is laid out in the original as the model lays it
    out; a statement on one line whose origin the diff does not tell (inserted) is taken as it is."""
    old_lines, opcodes, first = origin
    at = _origin(opcodes, first - 1)
    if at is None:
        return single
    found = _old_statement(old_lines, at)
    if found is None:
        return False
    text, indent, expected = found
    return split_statement(text, indent, limit, formatter) == expected


def _origin(opcodes: list[_Opcode], j: int) -> int | None:
    """The 0-based line of the old text that the new text's 0-based line ``j`` stands in for."""
    for tag, i1, i2, j1, j2 in opcodes:
        if j1 <= j < j2:
            if tag == "equal" or (tag == "replace" and i1 + (j - j1) < i2):
                return i1 + (j - j1)
            return None
    return None


def _old_statement(old_lines: list[str], at: int) -> tuple[str, int, list[str]] | None:
    """The logical line that starts at the old text's line ``at``: its text, indent and lines (indent removed)."""
    head = old_lines[at]
    indent = len(head) - len(head.lstrip(" "))
    if not head.strip() or head.lstrip().startswith("#"):
        return None
    rows = iter(line + "\n" for line in [head[indent:], *old_lines[at + 1 :]])
    try:
        for tok in tokenize.generate_tokens(rows.__next__):
            if tok.type == tokenize.NEWLINE:
                count = tok.start[0]
                break
        else:
            return None
    except (tokenize.TokenError, IndentationError, SyntaxError, StopIteration):
        return None
    block = old_lines[at : at + count]
    if any(line[:indent].strip() for line in block[1:]):
        return None
    expected = [head[indent:], *(line[indent:] for line in block[1:])]
    return "\n".join(expected), indent, expected


def _width(line: str) -> int:
    return len(line.rstrip("\r\n"))


_Opcode = tuple[str, int, int, int, int]


def _diff(old: str, new: str) -> tuple[list[str], list[_Opcode]]:
    old_lines = old.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new.splitlines(), autojunk=False)
    return old_lines, [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _changed_lines(opcodes: list[_Opcode]) -> set[int]:
    """1-based lines of the new text that are not lines of the old one kept as they were."""
    out: set[int] = set()
    for tag, _i1, _i2, j1, j2 in opcodes:
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return out


_Old = cst.SimpleStatementLine | cst.With
_Statement = _Old | cst.If | cst.While


def _statements(module: cst.Module, elifs: set[int]) -> Iterable[_Statement]:
    """Statement lines and ``with`` / ``if`` / ``elif`` / ``while`` statements (whose header may hold an edited
    expression), never inside expressions; the ids of the ``elif`` ones are added to ``elifs``."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            yield node
            continue
        if isinstance(node, (cst.With, cst.If, cst.While)):
            if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
                elifs.add(id(node.orelse))
            if isinstance(node.body, cst.IndentedBlock):
                yield node
        stack.extend(child for child in node.children if not isinstance(child, cst.BaseExpression))


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, _Statement]) -> None:
        super().__init__()
        self.replacements = replacements

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        new = self.replacements.get(id(original_node))
        return new if isinstance(new, cst.SimpleStatementLine) else updated_node

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        new = self.replacements.get(id(original_node))
        if isinstance(new, cst.If):  # the new header, on the body and branches as the visit left them
            replaced = _with_header(updated_node, new)
            assert isinstance(replaced, cst.If)
            return replaced
        return updated_node

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.While:
        new = self.replacements.get(id(original_node))
        if isinstance(new, cst.While):
            replaced = _with_header(updated_node, new)
            assert isinstance(replaced, cst.While)
            return replaced
        return updated_node

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        new = self.replacements.get(id(original_node))
        if isinstance(new, cst.With):  # the new header, on the body as the visit left it
            return new.with_changes(body=updated_node.body)
        return updated_node


# --- what a statement is made of -------------------------------------------------------------------------------------

_EMPTY = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def _target_call(statement: _Old) -> cst.Call | None:
    """The call whose closing bracket ends the statement (black's last opening bracket), when the statement is
    nothing but that call and what it is assigned to or returned as (or a ``with`` of that call)."""
    value: cst.BaseExpression | None = None
    if isinstance(statement, cst.With):
        if len(statement.items) != 1 or isinstance(statement.lpar, cst.LeftParen) or statement.asynchronous is not None:
            return None
        item = statement.items[0]
        if item.asname is not None and not isinstance(item.asname.name, cst.Name):
            return None
        value = item.item
    else:
        if len(statement.body) != 1 or statement.trailing_whitespace.comment is not None:
            return None
        small = statement.body[0]
        if isinstance(small, cst.Expr):
            value = small.value
        elif isinstance(small, cst.Assign) and len(small.targets) == 1:
            value = small.value
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign, cst.Return)):
            value = small.value
    if not isinstance(value, cst.Call) or value.lpar or value.rpar or not value.args:
        return None
    return value


def _lines(statement: _Statement) -> list[str]:
    """The lines of a statement line, or of a compound statement's header (an ``elif``'s, spelt ``if``)."""
    if isinstance(statement, (cst.If, cst.While)):
        bare = statement.with_changes(leading_lines=(), body=cst.IndentedBlock(body=[]), orelse=None)
        return [line.rstrip("\r\n") for line in split_lines(_code(bare))][:-1]
    if isinstance(statement, cst.With):
        header = statement.with_changes(leading_lines=(), body=cst.IndentedBlock(body=[]))
        return [line.rstrip("\r\n") for line in split_lines(_code(header))][:-1]  # without the `pass` of the body
    return [line.rstrip("\r\n") for line in split_lines(_code(statement.with_changes(leading_lines=())))]


def _too_long(statement: _Old, indent: int, limit: int) -> list[str]:
    return [line for line in _lines(statement) if indent + len(line) > limit]


def _fits(statement: _Old, indent: int, limit: int, ignore: frozenset[str] = frozenset()) -> bool:
    """Every line of ``statement`` (at ``indent``) within ``limit``, but the lines ``ignore`` names (long already)."""
    return all(line in ignore for line in _too_long(statement, indent, limit))


def _has_comment_or_break(node: cst.CSTNode) -> bool:
    finder = _Layout()
    node.visit(finder)
    return finder.comment or finder.breaks


class _Layout(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.comment = False
        self.breaks = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.comment = True

    def visit_ParenthesizedWhitespace(self, node: cst.ParenthesizedWhitespace) -> None:
        self.breaks = True


def _breaks(ws: cst.BaseParenthesizableWhitespace | cst.MaybeSentinel) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)


def _ws(depth: int) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(_UNIT * depth))


def _hugged(call: cst.Call, depth: int) -> cst.Call:
    """``f(\n    a, b\n)``: the arguments on one line, one level deeper."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [a.with_changes(comma=comma, whitespace_after_arg=_NONE) for a in call.args[:-1]]
    last = call.args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_ws(depth))
    return call.with_changes(whitespace_before_args=_ws(depth + 1), args=[*args, last])


def _exploded(call: cst.Call, depth: int) -> cst.Call:
    """One argument per line, one level deeper, with a trailing comma."""
    args = [a.with_changes(comma=cst.Comma(whitespace_after=_ws(depth + 1)), whitespace_after_arg=_NONE) for a in call.args[:-1]]
    last = call.args[-1].with_changes(comma=cst.Comma(whitespace_after=_ws(depth)), whitespace_after_arg=_NONE)
    return call.with_changes(whitespace_before_args=_ws(depth + 1), args=[*args, last])


def _flat(node: cst.CSTNode) -> bool:
    return not _has_comment_or_break(node)


def _splittable(node: cst.CSTNode) -> bool:
    """A call of a dotted name with arguments, or a collection literal, written on one line. Black splits a method
    chain (``a(x).b(y)``) at its dots instead, and a lone ``*args`` gets no trailing comma: those are left alone."""
    if isinstance(node, _COLLECTIONS):
        return bool(node.elements) and _flat(node) and (not isinstance(node, cst.Tuple) or len(node.lpar) == 1)
    return (
        isinstance(node, cst.Call)
        and bool(node.args)
        and dotted_name(node.func) is not None
        and _flat(node)
        and not (len(node.args) == 1 and node.args[0].star)
    )


def _replace(statement: _Old, old: cst.CSTNode, new: cst.CSTNode) -> _Old:
    replaced = statement.deep_replace(old, new)
    assert isinstance(replaced, (cst.SimpleStatementLine, cst.With))
    return replaced


def _split_value(
    statement: _Old, value: cst.BaseExpression, depth: int, indent: int, limit: int, ignore: frozenset[str]
) -> _Old | None:
    if isinstance(value, cst.Call):
        return _split_call(statement, value, depth, indent, limit, ignore)
    if isinstance(value, _COLLECTIONS):
        return _split_collection(statement, value, depth, indent, limit, ignore)
    return None


_COLLECTIONS = (cst.List, cst.Set, cst.Dict, cst.Tuple)


def _split_collection(
    statement: _Old, value: cst.BaseExpression, depth: int, indent: int, limit: int, ignore: frozenset[str]
) -> _Old | None:
    """A list, set, dict or parenthesized tuple split as black splits a collection: one element per line, with a
    trailing comma (never its elements on one line under it)."""
    if not isinstance(value, _COLLECTIONS) or not _flat(value) or value.lpar and not isinstance(value, cst.Tuple):
        return None
    elements = list(value.elements)
    if not elements or any(isinstance(e, (cst.StarredElement, cst.StarredDictElement)) for e in elements[-1:]):
        return None
    inner = [e.with_changes(comma=cst.Comma(whitespace_after=_ws(depth + 1))) for e in elements[:-1]]
    inner.append(elements[-1].with_changes(comma=cst.Comma(whitespace_after=_ws(depth))))
    opening = _ws(depth + 1)
    new: cst.List | cst.Set | cst.Dict | cst.Tuple
    if isinstance(value, cst.List):
        new = value.with_changes(lbracket=cst.LeftSquareBracket(whitespace_after=opening), elements=inner)
    elif isinstance(value, cst.Tuple):
        if len(value.lpar) != 1:
            return None
        new = value.with_changes(lpar=[cst.LeftParen(whitespace_after=opening)], elements=inner)
    else:
        new = value.with_changes(lbrace=cst.LeftCurlyBrace(whitespace_after=opening), elements=inner)
    candidate = _replace(statement, value, new)
    for element in new.elements:
        if _fits(candidate, indent, limit, ignore):
            return candidate
        item = element.value
        line = cst.SimpleStatementLine(body=[cst.Expr(item)])
        if _fits(line, indent + len(_UNIT) * (depth + 1), limit) or not _splittable(item):
            continue
        deeper = _split_value(candidate, item, depth + 1, indent, limit, ignore)
        if deeper is None:
            return None
        candidate = deeper
    return candidate if _fits(candidate, indent, limit, ignore) else None


def _split_call(
    statement: _Old, call: cst.Call, depth: int, indent: int, limit: int, ignore: frozenset[str]
) -> _Old | None:
    """``statement`` with ``call`` (on one line, ``depth`` levels into the statement) split as black splits it, or
    ``None`` when no split fits."""
    if not _splittable(call):
        return None
    hugged = _hugged(call, depth)
    candidate = _replace(statement, call, hugged)
    if _fits(candidate, indent, limit, ignore):
        return candidate
    only = call.args[0]
    if len(call.args) == 1 and only.keyword is None and _splittable(only.value):
        deeper = _split_value(candidate, hugged.args[0].value, depth + 1, indent, limit, ignore)
        if deeper is not None:
            return deeper
    exploded = _exploded(call, depth)
    candidate = _replace(statement, call, exploded)
    for argument in exploded.args:
        if _fits(candidate, indent, limit, ignore):
            return candidate
        value = argument.value
        line = cst.SimpleStatementLine(body=[cst.Expr(value)])
        if not _splittable(value) or _fits(line, indent + len(_UNIT) * (depth + 1), limit):
            continue
        deeper = _split_value(candidate, value, depth + 1, indent, limit, ignore)
        if deeper is None:
            return None
        candidate = deeper
    return candidate if _fits(candidate, indent, limit, ignore) else None


def _split(statement: _Old, indent: int, limit: int) -> _Old | None:
    """``statement`` with its too long lines split (each as black would), or ``None`` when one cannot be."""
    if isinstance(statement, cst.SimpleStatementLine) and (
        len(statement.body) != 1 or statement.trailing_whitespace.comment is not None
    ):
        return None
    if isinstance(statement, cst.With) and _has_comment_or_break(statement.with_changes(body=cst.IndentedBlock(body=[]))):
        return None
    current = statement
    for _ in range(8):
        long = _too_long(current, indent, limit)
        if not long:
            return None if current is statement else current
        new = _split_line(current, long[0], indent, limit, frozenset(long[1:]))
        if new is None:
            return None
        current = new
    return None


_MARK = "__torchmigrate_reflow__"


def _split_line(statement: _Old, line: str, indent: int, limit: int, ignore: frozenset[str]) -> _Old | None:
    """``statement`` with its line ``line`` split: at the statement's last call when it is one line, else at the call
    whose arguments make up that line, or the call alone on it (``torch.load(...)``, ``name=torch.load(...),``)."""
    if len(_lines(statement)) == 1:
        call = _target_call(statement)
        if call is None:
            return _split_conditional(statement, indent, limit, ignore)
        return _split_call(statement, call, 0, indent, limit, ignore)
    if isinstance(statement, cst.With):
        return None
    for call in find_all(statement, cst.Call):
        if _hanging(call):
            exploded = _explode(call)
            candidate = _replace(statement, call, exploded)
            if line not in _lines(candidate):
                return candidate
            continue
        if not _splittable(call):
            continue
        marked = _lines(_replace(statement, call, cst.Name(_MARK)))
        at = next((text for text in marked if _MARK in text), None)
        if at is None or at.replace(_MARK, _code(call)) != line:
            continue
        match = re.fullmatch(rf"( *)(?:\w+=)?{_MARK},?", at)
        if match is None or len(match.group(1)) % len(_UNIT):
            continue
        return _split_call(statement, call, len(match.group(1)) // len(_UNIT), indent, limit, ignore)
    return None


def _split_conditional(statement: _Old, indent: int, limit: int, ignore: frozenset[str]) -> _Old | None:
    """``x = a if c else b`` (assigned or returned) split as black splits it: in parentheses of its own, on one line
    under the statement if it fits there, else ``a`` / ``if c`` / ``else b`` on a line each (a part that is itself
    a parenthesized conditional is split the same way, one level deeper)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = getattr(small, "value", None) if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)) else None
    if not isinstance(value, cst.IfExp) or value.lpar or not _flat(value):
        return None
    return _split_ifexp(statement, value, 0, indent, limit, ignore, add_parens=True)


def _split_ifexp(
    statement: _Old, value: cst.IfExp, depth: int, indent: int, limit: int, ignore: frozenset[str], add_parens: bool
) -> _Old | None:
    wrapped = value.with_changes(
        lpar=[cst.LeftParen(whitespace_after=_ws(depth + 1))], rpar=[cst.RightParen(whitespace_before=_ws(depth))]
    )
    if not add_parens and len(value.lpar) != 1:
        return None
    candidate = _replace(statement, value, wrapped)
    if _fits(candidate, indent, limit, ignore):
        return candidate
    split = wrapped.with_changes(whitespace_before_if=_ws(depth + 1), whitespace_before_else=_ws(depth + 1))
    candidate = _replace(statement, value, split)
    for part in (split.body, split.test, split.orelse):
        if _fits(candidate, indent, limit, ignore):
            return candidate
        if _fits(cst.SimpleStatementLine(body=[cst.Expr(part)]), indent + len(_UNIT) * (depth + 1), limit):
            continue
        if isinstance(part, cst.IfExp) and len(part.lpar) == 1 and _flat(part):
            deeper = _split_ifexp(candidate, part, depth + 1, indent, limit, ignore, add_parens=False)
        elif _splittable(part):
            deeper = _split_value(candidate, part, depth + 1, indent, limit, ignore)
        else:
            deeper = None
        if deeper is None:
            return None
        candidate = deeper
    return candidate if _fits(candidate, indent, limit, ignore) else None


def _hanging(call: cst.Call) -> bool:
    """``f(\n    a, b\n)``: ``(`` and ``)`` break the line, the arguments share one, no comment."""
    wba, args = call.whitespace_before_args, call.args
    if len(args) < 2 or not _breaks(wba) or not _breaks(args[-1].whitespace_after_arg):
        return False
    if any(isinstance(a.comma, cst.Comma) and _breaks(a.comma.whitespace_after) for a in args):
        return False
    if isinstance(wba, cst.ParenthesizedWhitespace) and (wba.first_line.comment is not None or wba.empty_lines):
        return False
    tail = args[-1].whitespace_after_arg
    if isinstance(tail, cst.ParenthesizedWhitespace) and (tail.first_line.comment is not None or tail.empty_lines):
        return False
    return all(_flat(a) for a in args[:-1]) and _flat(args[-1].with_changes(whitespace_after_arg=_NONE))


def _explode(call: cst.Call) -> cst.Call:
    """A hanging call with one argument per line at its arguments' indent, and a trailing comma."""
    wba = call.whitespace_before_args
    tail = call.args[-1].whitespace_after_arg
    assert isinstance(wba, cst.ParenthesizedWhitespace) and isinstance(tail, cst.ParenthesizedWhitespace)
    args = [a.with_changes(comma=cst.Comma(whitespace_after=wba)) for a in call.args[:-1]]
    last = call.args[-1].with_changes(comma=cst.Comma(whitespace_after=tail), whitespace_after_arg=_NONE)
    return call.with_changes(args=[*args, last])


def _joined(statement: cst.SimpleStatementLine, indent: int, limit: int) -> cst.SimpleStatementLine | None:
    """``statement`` on one line, if it fits and holds no comment and no magic trailing comma."""
    if statement.trailing_whitespace.comment is not None:
        return None
    joiner = _Join()
    joined = statement.visit(joiner)
    if joiner.refused or not isinstance(joined, cst.SimpleStatementLine) or joined.deep_equals(statement):
        return None
    bare = joined.with_changes(leading_lines=())
    if _has_comment_or_break(bare) or "\n" in _code(bare).rstrip("\r\n"):
        return None  # a line break the join does not handle (an operator's, a multi-line string)
    return joined if _fits(joined, indent, limit) else None


def _unbroken(ws: cst.BaseParenthesizableWhitespace, then: str = "") -> cst.BaseParenthesizableWhitespace:
    return cst.SimpleWhitespace(then) if isinstance(ws, cst.ParenthesizedWhitespace) else ws


class _Join(cst.CSTTransformer):
    """The line breaks just inside brackets and after commas removed, as black renders a line that fits; refuses
    comments and magic trailing commas (black keeps those split)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.refused = True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if updated_node.args and isinstance(updated_node.args[-1].comma, cst.Comma):
            self.refused = True
        return updated_node.with_changes(whitespace_before_args=_unbroken(updated_node.whitespace_before_args))

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(whitespace_after_arg=_unbroken(updated_node.whitespace_after_arg))

    def leave_Comma(self, original_node: cst.Comma, updated_node: cst.Comma) -> cst.Comma:
        return updated_node.with_changes(whitespace_after=_unbroken(updated_node.whitespace_after, " "))

    def leave_LeftParen(self, original_node: cst.LeftParen, updated_node: cst.LeftParen) -> cst.LeftParen:
        return updated_node.with_changes(whitespace_after=_unbroken(updated_node.whitespace_after))

    def leave_RightParen(self, original_node: cst.RightParen, updated_node: cst.RightParen) -> cst.RightParen:
        return updated_node.with_changes(whitespace_before=_unbroken(updated_node.whitespace_before))

    def leave_LeftSquareBracket(
        self, original_node: cst.LeftSquareBracket, updated_node: cst.LeftSquareBracket
    ) -> cst.LeftSquareBracket:
        return updated_node.with_changes(whitespace_after=_unbroken(updated_node.whitespace_after))

    def leave_RightSquareBracket(
        self, original_node: cst.RightSquareBracket, updated_node: cst.RightSquareBracket
    ) -> cst.RightSquareBracket:
        return updated_node.with_changes(whitespace_before=_unbroken(updated_node.whitespace_before))

    def leave_LeftCurlyBrace(self, original_node: cst.LeftCurlyBrace, updated_node: cst.LeftCurlyBrace) -> cst.LeftCurlyBrace:
        return updated_node.with_changes(whitespace_after=_unbroken(updated_node.whitespace_after))

    def leave_RightCurlyBrace(
        self, original_node: cst.RightCurlyBrace, updated_node: cst.RightCurlyBrace
    ) -> cst.RightCurlyBrace:
        return updated_node.with_changes(whitespace_before=_unbroken(updated_node.whitespace_before))

    def _magic(self, elements: Iterable[cst.CSTNode]) -> None:
        items = list(elements)
        if items and isinstance(getattr(items[-1], "comma", None), cst.Comma):
            self.refused = True

    def visit_List(self, node: cst.List) -> None:
        self._magic(node.elements)

    def visit_Dict(self, node: cst.Dict) -> None:
        self._magic(node.elements)

    def visit_Set(self, node: cst.Set) -> None:
        self._magic(node.elements)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if len(node.elements) > 1:
            self._magic(node.elements)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._magic(node.slice)
