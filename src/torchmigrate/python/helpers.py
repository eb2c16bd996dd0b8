"""Small libcst helpers passes use: dotted names, arguments, keyword edits."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst


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



def fix_commas(args: Sequence[cst.Arg]) -> list[cst.Arg]:
    """Re-punctuate an argument list after arguments were added or removed."""
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



def make_kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )



def with_kwarg(call: cst.Call, name: str, value: cst.BaseExpression | str) -> cst.Call:
    """``call`` with ``name=value`` appended (a string is taken as a name, e.g. ``"True"``), commas mended."""
    expr = cst.Name(value) if isinstance(value, str) else value
    return append_arg(call, make_kwarg(name, expr))



def append_arg(call: cst.Call, new: cst.Arg) -> cst.Call:
    """``call`` with ``new`` appended after its last argument, in the call's own layout: in a call written one
    argument per line, ``new`` gets a line of its own with the same indentation (and the trailing comma, if the call
    had one); otherwise it follows ``, `` on the same line."""
    args = list(call.args)
    separator: cst.BaseParenthesizableWhitespace | None = None
    if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
        separator = args[-2].comma.whitespace_after
    elif len(args) == 1:
        separator = call.whitespace_before_args
    if not args or not isinstance(separator, cst.ParenthesizedWhitespace):
        return call.with_changes(args=fix_commas([*args, new]))
    between = cst.Comma(whitespace_after=separator.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[]))
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma: it moves to the new last argument
        closing = last.comma.whitespace_after
        if isinstance(closing, cst.ParenthesizedWhitespace):  # a comment after the old last argument stays there
            between = between.with_changes(whitespace_after=between.whitespace_after.with_changes(first_line=closing.first_line))
            closing = closing.with_changes(first_line=cst.TrailingWhitespace())
        args[-1] = last.with_changes(comma=between)
        new = new.with_changes(comma=last.comma.with_changes(whitespace_after=closing))
    else:  # the line break before ``)`` sits after the last argument: it moves too
        args[-1] = last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))
        new = new.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new])



_EMPTY_MODULE = cst.Module(body=[])



def code_of(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


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
