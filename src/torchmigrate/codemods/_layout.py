"""Argument-list layout for the passes that drop, replace or append arguments: the new list keeps the call's own
layout (one argument per line or all on one, a trailing comma, where the closing bracket sits)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def _separator(call: cst.Call) -> cst.Comma:
    """The comma that separates two arguments in ``call``'s style."""
    old = list(call.args)
    if len(old) >= 2 and isinstance(old[0].comma, cst.Comma):
        return old[0].comma
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=call.whitespace_before_args)  # `(\n    a\n)`: the next one on its own line
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def relayout(call: cst.Call, args: Sequence[cst.Arg]) -> cst.Call:
    """``call`` with ``args`` (some of them ``call``'s own, some new) laid out the way ``call`` laid out its own: the
    space before the closing bracket and a trailing comma stay at the end, new arguments are separated as the old
    ones were."""
    old = list(call.args)
    if not args:
        return call.with_changes(args=[], whitespace_before_args=cst.SimpleWhitespace(""))
    if not old:
        spaced = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]]
        return call.with_changes(args=[*spaced, args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    last = old[-1]
    separator = _separator(call)
    out: list[cst.Arg] = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            own = any(a is o for o in old[:-1]) and isinstance(a.comma, cst.Comma)
            out.append(a.with_changes(comma=a.comma if own else separator, whitespace_after_arg=cst.SimpleWhitespace("")))
        else:
            out.append(a.with_changes(comma=last.comma, whitespace_after_arg=last.whitespace_after_arg))
    return call.with_changes(args=out)
