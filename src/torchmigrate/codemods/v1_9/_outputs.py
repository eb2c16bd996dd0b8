"""Shared by the linalg passes: rewrite a call whose *first output* alone is used.

Old linear-algebra functions returned tuples (`torch.solve` → `(solution, LU)`, `torch.triangular_solve` →
`(solution, cloned_coefficient)`) whose replacements return only the first element. Such a call can be rewritten
exactly when the code keeps only that element:

- `old(...).solution` (the first field's name) or `old(...)[0]`  → `new(...)`
- `x, _ = old(...)`                                                 → `x = new(...)`

Anywhere else the call gets a finding with the replacement to write by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import Analyser, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.sites import AstFile, Site, analyser, calls_to
from torchmigrate.python.transform import PassTransformer

# builds the replacement for the first output from the (updated) call, or returns None after reporting a finding
Builder = Callable[["FirstOutputTransformer", cst.Call, cst.Call], "cst.BaseExpression | None"]


class FirstOutputTransformer(PassTransformer):
    """Subclasses fill ``FIRST`` (qualified name → (first field names, builder, finding text))."""

    FIRST: dict[str, tuple[tuple[str, ...], Builder, str]] = {}

    def _entry(self, call: cst.CSTNode) -> tuple[str, tuple[tuple[str, ...], Builder, str]] | None:
        if not isinstance(call, cst.Call):
            return None
        name = self.qualname(call.func)
        if name is None or name not in self.FIRST:
            return None
        return name, self.FIRST[name]

    def _first_only(self, original: cst.Call, fields: tuple[str, ...]) -> bool:
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if isinstance(parent, cst.Attribute) and parent.value is original:
            return parent.attr.value in fields
        if isinstance(parent, cst.Subscript) and parent.value is original:
            return _is_index_zero(parent)
        if isinstance(parent, cst.Assign) and parent.value is original:
            return _discarded_second(parent) is not None
        return False

    def whole_result(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        """Rewrite when the whole result is used; default: cannot (the caller reports a finding)."""
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        entry = self._entry(original_node)
        if entry is None:
            return super().leave_Call(original_node, updated_node)
        name, (fields, _, advice) = entry
        if self._first_only(original_node, fields) or not self.allowed(original_node):
            return updated_node
        replacement = self.whole_result(name, original_node, updated_node)
        if replacement is None:
            self.finding(original_node, advice)
            return updated_node
        self.edited(original_node, f"{name} → migrated")
        self.drop_imports_of(original_node.func)
        return replacement

    def _rewrite_first(self, original_call: cst.Call, updated_call: cst.BaseExpression) -> cst.BaseExpression | None:
        entry = self._entry(original_call)
        if entry is None or not isinstance(updated_call, cst.Call) or not self.allowed(original_call):
            return None
        name, (_, build, _) = entry
        new = build(self, original_call, updated_call)
        if new is not None:
            self.edited(original_call, f"{name} → migrated (first output only)")
            self.drop_imports_of(original_call.func)
        return new

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if isinstance(original_node.value, cst.Call):
            entry = self._entry(original_node.value)
            if entry is not None and original_node.attr.value in entry[1][0]:
                new = self._rewrite_first(original_node.value, updated_node.value)
                if new is not None:
                    return new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if isinstance(original_node.value, cst.Call) and _is_index_zero(original_node):
            new = self._rewrite_first(original_node.value, updated_node.value)
            if new is not None:
                return new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        first = _discarded_second(original_node)
        if first is None or not isinstance(original_node.value, cst.Call):
            return updated_node
        new = self._rewrite_first(original_node.value, updated_node.value)
        if new is None:
            return updated_node
        updated_first = _discarded_second(updated_node)
        target = updated_first if updated_first is not None else first
        return updated_node.with_changes(targets=[cst.AssignTarget(target=target)], value=new)


def _is_index_zero(node: cst.Subscript) -> bool:
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


def _discarded_second(node: cst.Assign) -> cst.BaseAssignTargetExpression | None:
    """For ``x, _ = call(...)``: the first target ``x``; None for any other assignment."""
    if len(node.targets) != 1:
        return None
    target = node.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
        return None
    first, second = target.elements
    if isinstance(first, cst.StarredElement) or isinstance(second, cst.StarredElement):
        return None
    if not (isinstance(second.value, cst.Name) and second.value.value.startswith("_")):
        return None
    value = first.value
    if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
        return value.with_changes(lpar=[], rpar=[]) if isinstance(value, cst.Name) else value
    return None


def argument(call: cst.Call, index: int, name: str) -> cst.Arg | None:
    """Positional ``index`` or keyword ``name`` (``None`` when absent)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(positional):
        return positional[index]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a
    return None


def literal_bool(arg: cst.Arg | None, default: bool) -> bool | None:
    """True/False for an absent argument or a literal, None for an expression."""
    if arg is None:
        return default
    if isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
        return arg.value.value == "True"
    return None


def kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def pos(value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value)


def call_with(func: cst.BaseExpression, args: list[cst.Arg]) -> cst.Call:
    """``func(args...)`` with fresh punctuation (``, `` between arguments)."""
    fixed = []
    for i, a in enumerate(args):
        comma: cst.Comma | cst.MaybeSentinel = (
            cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        )
        fixed.append(a.with_changes(comma=comma))
    return cst.Call(func=func, args=fixed)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` wrapped in parentheses unless it is atomic (name, attribute, call, subscript, literal)."""
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)
    if isinstance(node, atomic) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def negated(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return cst.Name("False" if node.value == "True" else "True")
    return cst.UnaryOperation(operator=cst.Not(), expression=parenthesized(node))


def keep_out(call: cst.Call, args: list[cst.Arg]) -> list[cst.Arg]:
    """``args`` plus the call's ``out=`` keyword, when it has one (the linalg replacements take it too)."""
    out = kwarg(call, "out")
    return [*args, kw("out", out.value)] if out is not None else args


def first_output_analyser(pass_: Pass, transformer: type[FirstOutputTransformer]) -> Analyser:
    """A bound from the stdlib ast for a pass made of a ``FirstOutputTransformer`` and call rewriters: both act only
    on calls of their qualified names, so a file without one is settled without libcst (declare it after the
    rewriters)."""
    first = calls_to(frozenset(transformer.FIRST))
    rewritten = calls_to(frozenset(pass_.call_rewriters), pass_.call_filter)

    def detect(file: AstFile) -> Iterator[Site]:
        return chain(first(file), rewritten(file))

    return analyser(pass_.id, detect)
