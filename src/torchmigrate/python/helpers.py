"""Small libcst helpers passes use: dotted names, arguments, keyword edits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import libcst as cst

_N = TypeVar("_N", bound=cst.CSTNode)


def parse_expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)



def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None



def build_dotted(name: str) -> cst.BaseExpression:
    parts = name.split(".")
    expr: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr



def module_part(dotted: str) -> str:
    """The module prefix of a dotted name: the components before the first class-like (Capitalised) one.

    ``torch.utils.dlpack.DLDeviceType`` → ``torch.utils.dlpack``: a reference to an enum member or a class attribute
    must import the module that defines the class, never ``import torch.utils.dlpack.DLDeviceType``.
    """
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part[:1].isupper():
            return ".".join(parts[:i])
    return dotted



def build_attrs(base: cst.BaseExpression, dotted: str) -> cst.BaseExpression:
    """``base.a.b`` for ``dotted == "a.b"`` (``base`` itself when ``dotted`` is empty)."""
    for part in filter(None, dotted.split(".")):
        base = cst.Attribute(value=base, attr=cst.Name(part))
    return base



def chain_root(node: cst.CSTNode) -> cst.Name | None:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None



def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a
    return None



def arg(call: cst.Call, index: int, name: str | None = None) -> cst.Arg | None:
    """The argument at positional ``index`` or, failing that, the keyword ``name``."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(positional):
        return positional[index]
    return kwarg(call, name) if name else None



def has_star_args(call: cst.Call) -> bool:
    return any(a.star for a in call.args)



def without_args(call: cst.Call, names: Iterable[str]) -> list[cst.Arg]:
    drop = set(names)
    return [a for a in call.args if not (a.keyword is not None and a.keyword.value in drop)]



def fix_commas(args: Sequence[cst.Arg], like: cst.Call | Sequence[cst.Arg] | None = None) -> list[cst.Arg]:
    """Re-punctuate an argument list after arguments were added, removed or moved.

    With ``like`` (the call, or the argument list, the new list was made from) the new list keeps that list's layout:
    arguments one per line stay one per line, at the same indent, with a trailing comma when it had one; the line
    break before the closing bracket stays before it; comments stay with their argument. Without ``like`` (or for a
    list written on one line) arguments are separated by ``", "`` and the last one has no comma."""
    reference = like.args if isinstance(like, cst.Call) else like
    if reference and _is_multiline(reference, like if isinstance(like, cst.Call) else None):
        return _relayout(args, reference, like if isinstance(like, cst.Call) else None)
    out = []
    for i, a in enumerate(args):
        last = i == len(args) - 1
        if last:
            comma = a.comma
            if isinstance(comma, cst.Comma) and not _comma_has_newline(comma):
                comma = cst.MaybeSentinel.DEFAULT
            out.append(a.with_changes(comma=comma))
        elif a.comma is cst.MaybeSentinel.DEFAULT:
            out.append(a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        else:
            out.append(a)
    return out



def _comma_has_newline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)



def _breaks(ws: cst.BaseParenthesizableWhitespace | cst.MaybeSentinel) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)



def _is_multiline(args: Sequence[cst.Arg], call: cst.Call | None) -> bool:
    if call is not None and _breaks(call.whitespace_before_args):
        return True
    return _breaks(args[-1].whitespace_after_arg) or any(
        isinstance(a.comma, cst.Comma) and _breaks(a.comma.whitespace_after) for a in args
    )



def _plain(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """``ws`` without its comment and blank lines: a line break (and indent) to copy elsewhere."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return ws



def _line_end(ws: cst.BaseParenthesizableWhitespace | cst.MaybeSentinel) -> cst.TrailingWhitespace | None:
    """The end of the line ``ws`` breaks (the comment on it), or ``None`` when ``ws`` breaks no line."""
    return ws.first_line if isinstance(ws, cst.ParenthesizedWhitespace) else None



def _commented(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    """Whether ``comma`` is followed by a comment at the end of its line."""
    return (
        isinstance(comma, cst.Comma)
        and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)
        and comma.whitespace_after.first_line.comment is not None
    )


def _relayout(args: Sequence[cst.Arg], reference: Sequence[cst.Arg], call: cst.Call | None) -> list[cst.Arg]:
    """``args`` punctuated in the multi-line layout of ``reference`` (see :func:`fix_commas`).

    The list keeps its closing punctuation (a trailing comma or not, the line break before the bracket and the comment
    lines above it); separators of new neighbours copy the list's last separator; each kept argument keeps the comment
    at the end of its line, and a dropped argument takes its own with it."""
    last_ref = reference[-1]
    tail_comma = last_ref.comma if isinstance(last_ref.comma, cst.Comma) else None
    tail = tail_comma.whitespace_after if tail_comma is not None else last_ref.whitespace_after_arg
    if len(reference) >= 2 and isinstance(reference[-2].comma, cst.Comma):
        separator = reference[-2].comma.with_changes(whitespace_after=_plain(reference[-2].comma.whitespace_after))
    elif tail_comma is not None and call is not None and _breaks(call.whitespace_before_args):
        separator = cst.Comma(whitespace_after=_plain(call.whitespace_before_args))  # `f(\n    a,\n)`: one per line
    else:
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    one_per_line = _breaks(separator.whitespace_after)
    position = {id(a.value): i for i, a in enumerate(reference)}
    old_last = len(reference) - 1
    out: list[cst.Arg] = []
    for i, a in enumerate(args):
        j = position.get(id(a.value))
        if i == len(args) - 1:
            if j == old_last:
                end = _line_end(tail)
            else:  # a new argument has no comment; an old one keeps the comment at the end of its line
                own_comma = reference[j].comma if j is not None else None
                end = _line_end(own_comma.whitespace_after) if isinstance(own_comma, cst.Comma) else None
            if end is None and not one_per_line:
                end = _line_end(tail)  # the arguments share the line that the comment ends
            ws = tail
            if isinstance(ws, cst.ParenthesizedWhitespace):
                ws = ws.with_changes(first_line=end or cst.TrailingWhitespace())
            if tail_comma is not None:
                closing = tail_comma.with_changes(whitespace_after=ws)
                out.append(a.with_changes(comma=closing, whitespace_after_arg=cst.SimpleWhitespace("")))
            else:
                out.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=ws))
            continue
        own = reference[j].comma if j is not None and j < old_last else None
        if j is None and _commented(a.comma):  # a replaced argument that kept its comma keeps its comment too
            own = a.comma
        if isinstance(own, cst.Comma):
            comma = own  # a separator of the old list (with the comment on it) stays
        elif j == old_last and one_per_line:  # the old last argument keeps the comment at the end of its line
            end = _line_end(tail)
            sep_ws = separator.whitespace_after
            if end is not None and isinstance(sep_ws, cst.ParenthesizedWhitespace):
                sep_ws = sep_ws.with_changes(first_line=end)
            comma = separator.with_changes(whitespace_after=sep_ws)
        else:
            comma = separator
        out.append(a.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace("")))
    return out



def keep_layout(new: cst.Call, reference: cst.Call) -> cst.Call:
    """``new`` (a call made from ``reference``'s arguments) with the layout of ``reference``'s argument list."""
    if not reference.args or not new.args or not _is_multiline(reference.args, reference):
        return new
    args = _relayout(new.args, reference.args, reference)
    changes: dict[str, object] = {"args": args}
    if not _breaks(new.whitespace_before_args):
        changes["whitespace_before_args"] = reference.whitespace_before_args
    return new.with_changes(**changes)



def keep_layout_in(result: cst.BaseExpression, reference: cst.Call) -> cst.BaseExpression:
    """``result`` (a call rewriter's replacement for ``reference``) with the layout of ``reference``'s arguments given
    to the call in ``result`` that took them over (``result`` itself, or a call inside it such as the
    ``export(m, args)`` of ``export(m, args).run_decompositions()``)."""
    if not reference.args or not _is_multiline(reference.args, reference):
        return result
    values = {id(a.value) for a in reference.args}

    def shared(call: cst.Call) -> int:
        return sum(id(a.value) in values for a in call.args)

    if isinstance(result, cst.Call) and shared(result):
        return keep_layout(result, reference)
    best = max(find_all(result, cst.Call), key=shared, default=None)
    if best is None or not shared(best):
        return result
    replaced = result.deep_replace(best, keep_layout(best, reference))
    return replaced if isinstance(replaced, cst.BaseExpression) else result




class _Collector(cst.CSTVisitor, Generic[_N]):
    def __init__(self, kind: type[_N]) -> None:
        super().__init__()
        self.kind = kind
        self.found: list[_N] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self.kind):
            self.found.append(node)
        return True


def find_all(tree: cst.CSTNode, kind: type[_N]) -> list[_N]:
    """Every node of type ``kind`` in ``tree`` (itself included), in visit order: ``libcst.matchers.findall`` for a
    type test, without importing libcst's matchers."""
    collector = _Collector(kind)
    tree.visit(collector)
    return collector.found


def make_kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )



def with_args(call: cst.Call, args: Sequence[cst.Arg]) -> cst.Call:
    """``call`` with the argument list ``args`` (some of ``call``'s own, some new) in ``call``'s layout; with no
    argument left, ``f()``."""
    if not args:
        return call.with_changes(args=[], whitespace_before_args=cst.SimpleWhitespace(""))
    return call.with_changes(args=fix_commas(args, like=call))


def with_kwarg(call: cst.Call, name: str, value: cst.BaseExpression | str) -> cst.Call:
    """``call`` with ``name=value`` appended (a string is taken as a name, e.g. ``"True"``), in the call's layout."""
    expr = cst.Name(value) if isinstance(value, str) else value
    return with_args(call, [*call.args, make_kwarg(name, expr)])



def without_kwargs(call: cst.Call, names: Iterable[str]) -> cst.Call:
    """``call`` without the keyword arguments ``names``, in the call's layout."""
    return with_args(call, without_args(call, names))



_EMPTY_MODULE = cst.Module(body=[])



def code_of(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def handler_names(handler: cst.ExceptHandler) -> set[str]:
    """The identifiers an ``except`` clause's type spells (``{"*"}`` for a bare ``except:``); the stdlib-ast twin is
    ``AstFile.handler_names``."""
    return set(_IDENTIFIER.findall(code_of(handler.type))) if handler.type is not None else {"*"}


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Bound:
    """A call's arguments bound to parameter names the way Python binds them: positional arguments in order, then
    keywords. ``extra`` holds positional arguments beyond the parameters, ``unknown`` keywords that name none of them;
    ``star`` says a ``*args`` / ``**kwargs`` argument may hide any parameter (then an absent name proves nothing)."""

    args: Mapping[str, cst.Arg]
    extra: tuple[cst.Arg, ...] = ()
    unknown: tuple[cst.Arg, ...] = ()
    star: bool = False

    def __contains__(self, name: str) -> bool:
        return name in self.args

    def get(self, name: str) -> cst.Arg | None:
        return self.args.get(name)

    def value(self, name: str) -> cst.BaseExpression | None:
        found = self.args.get(name)
        return None if found is None else found.value

    @property
    def exact(self) -> bool:
        """Every argument is bound to a parameter and none can hide in ``*args`` / ``**kwargs``."""
        return not (self.star or self.extra or self.unknown)


def bind(call: cst.Call, params: Sequence[str]) -> Bound:
    """Bind ``call``'s arguments to ``params`` (the callee's parameter names, in order):
    ``bind(call, ("model", "args", "kwargs")).value("args")``. A keyword that repeats a positional one is left in
    ``unknown`` (Python would raise); positional arguments after a ``*args`` are not bound."""
    bound: dict[str, cst.Arg] = {}
    extra: list[cst.Arg] = []
    unknown: list[cst.Arg] = []
    star = False
    index = 0
    for a in call.args:
        if a.star:
            star = True
            continue
        if a.keyword is None:
            if star:
                continue
            if index < len(params):
                bound[params[index]] = a
            else:
                extra.append(a)
            index += 1
        elif a.keyword.value in params and a.keyword.value not in bound:
            bound[a.keyword.value] = a
        else:
            unknown.append(a)
    return Bound(bound, tuple(extra), tuple(unknown), star)



_PRIMARY = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp
)


def as_receiver(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as the value of an attribute access (``node.attr``): wrapped in parentheses unless it is a primary
    expression already (``a + b`` → ``(a + b)``, so that ``(a + b).detach()`` keeps its meaning)."""
    if isinstance(node, _PRIMARY) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])



def method_call(receiver: cst.BaseExpression, method: str, *args: cst.Arg) -> cst.Call:
    """``receiver.method(args)``, the receiver parenthesized where it must be."""
    return cst.Call(func=cst.Attribute(value=as_receiver(receiver), attr=cst.Name(method)), args=fix_commas(list(args)))


def child_statements(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements (and blocks, clauses and small statements) ``node`` holds directly: what a walk of a module's
    statements goes through, without libcst's ``children`` (a visit that builds every child list, expressions and
    whitespace included). A small statement (an import, an assignment) holds none: statements are never inside
    expressions."""
    if isinstance(node, cst.BaseSmallStatement):
        return []
    found: list[cst.CSTNode] = []
    for name in _BLOCKS:
        child = getattr(node, name, None)
        if isinstance(child, cst.CSTNode):
            found.append(child)
        elif isinstance(child, (list, tuple)):
            found.extend(c for c in child if isinstance(c, cst.CSTNode))
    return found


_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")
"""The fields through which statements hold statements: a module's and a block's ``body``, a compound statement's
block and its clauses (``else``, ``except``, ``finally``, ``case``)."""
