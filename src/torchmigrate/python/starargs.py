"""What a ``**kwargs`` argument visibly holds: the keys a dict built in the same function sets.

``torch.load(path, **kw)`` after ``kw = {"weights_only": False}`` (or ``kw["weights_only"] = True``,
``kw.update(weights_only=...)``, ``kw = dict(weights_only=...)``) passes ``weights_only``: a pass that would report
the argument as missing must not. Only what is certain counts: a dict whose every assignment and every change is in
view is *complete* (its keys are all known); one that is a parameter, a global, or is handed to other code is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import Assignment, GlobalScope, ParentNodeProvider, ScopeProvider

if TYPE_CHECKING:
    from torchmigrate.python.transform import PassTransformer

__all__ = ["StarKeys", "star_keys"]


@dataclass(frozen=True)
class StarKeys:
    """The keyword names the ``**`` arguments of a call visibly set (``keys``), and whether that is all they can hold
    (``complete``: no ``*args``, and every ``**`` dict is fully in view)."""

    keys: frozenset[str] = frozenset()
    complete: bool = True

    def sets(self, name: str) -> bool:
        return name in self.keys


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _literal_keys(node: cst.BaseExpression) -> tuple[set[str], bool] | None:
    """(keys, complete) of a dict display, a ``dict(...)`` call or a conditional choosing between them, or ``None``
    for anything else."""
    if isinstance(node, cst.IfExp):
        body, orelse = _literal_keys(node.body), _literal_keys(node.orelse)
        if body is None or orelse is None:
            return None
        return body[0] | orelse[0], body[1] and orelse[1]
    if isinstance(node, cst.Dict):
        keys: set[str] = set()
        complete = True
        for element in node.elements:
            if isinstance(element, cst.DictElement) and (key := _string(element.key)) is not None:
                keys.add(key)
            else:
                complete = False
        return keys, complete
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        keys, complete = set(), True
        for argument in node.args:
            if argument.keyword is not None and not argument.star:
                keys.add(argument.keyword.value)
            elif not argument.star and isinstance(argument.value, cst.Dict):
                inner = _literal_keys(argument.value)
                assert inner is not None
                keys |= inner[0]
                complete &= inner[1]
            else:
                complete = False
        return keys, complete
    return None


def _name_keys(transformer: PassTransformer, name: cst.Name) -> tuple[set[str], bool]:
    """(keys, complete) of a local dict variable at the place ``name`` uses it."""
    scope = transformer.get_metadata(ScopeProvider, name, None)
    if scope is None:
        return set(), False
    keys: set[str] = set()
    assignments = [a for a in scope[name.value] if isinstance(a, Assignment)]
    if not assignments:
        return set(), False
    # A module-level dict can be changed from anywhere: what is in view counts as set, but the list is never complete.
    complete = not any(isinstance(a.scope, GlobalScope) for a in assignments)
    for assignment in assignments:
        node = getattr(assignment, "node", None)
        parent = transformer.get_metadata(ParentNodeProvider, node, None) if node is not None else None
        value: cst.BaseExpression | None = None
        if isinstance(parent, cst.AssignTarget):
            statement = transformer.get_metadata(ParentNodeProvider, parent, None)
            value = statement.value if isinstance(statement, cst.Assign) else None
        elif isinstance(parent, cst.AnnAssign) and parent.target is node:
            value = parent.value
        found = _literal_keys(value) if value is not None else None
        if found is None:
            complete = False  # a parameter, a loop variable, a call's result…
            continue
        keys |= found[0]
        complete &= found[1]
    for assignment in assignments:
        for reference in assignment.references:
            change = _change(transformer, reference.node)
            if change is None:
                complete = False
            elif isinstance(change, set):
                keys |= change
    return keys, complete


def _change(transformer: PassTransformer, use: cst.CSTNode) -> set[str] | bool | None:
    """What a use of the dict does to it: the keys it sets, ``True`` for a use that changes nothing (``**kw``,
    ``"k" in kw``, ``kw.get(...)``), ``None`` when it may change it in ways not in view."""
    parent = transformer.get_metadata(ParentNodeProvider, use, None)
    if isinstance(parent, cst.Arg) and parent.star == "**":
        return True
    if isinstance(parent, (cst.ComparisonTarget, cst.Comparison)):
        return True
    if isinstance(parent, cst.Subscript):
        subscript = parent
        if subscript.value is use and len(subscript.slice) == 1:
            index = subscript.slice[0].slice
            key = _string(index.value) if isinstance(index, cst.Index) else None
            target = transformer.get_metadata(ParentNodeProvider, subscript, None)
            if isinstance(target, cst.AssignTarget):
                return {key} if key is not None else None
            return True  # read: kw["k"]
        return None
    if isinstance(parent, cst.Attribute) and parent.value is use:
        call = transformer.get_metadata(ParentNodeProvider, parent, None)
        method = parent.attr.value
        if method in ("get", "keys", "items", "values", "copy") and isinstance(call, cst.Call):
            return True
        if method == "setdefault" and isinstance(call, cst.Call) and call.args:
            key = _string(call.args[0].value)
            return {key} if key is not None else None
        if method == "update" and isinstance(call, cst.Call):
            keys: set[str] = set()
            for argument in call.args:
                if argument.keyword is not None and not argument.star:
                    keys.add(argument.keyword.value)
                    continue
                found = _literal_keys(argument.value) if not argument.star else None
                if found is None or not found[1]:
                    return None
                keys |= found[0]
            return keys
        if method in ("pop", "popitem", "clear"):
            return None
        return None
    return None


def star_keys(transformer: PassTransformer, call: cst.Call) -> StarKeys:
    """The keys ``call``'s ``**`` arguments visibly set (look ``call`` up in the *original* tree)."""
    keys: set[str] = set()
    complete = True
    for argument in call.args:
        if argument.star == "*":
            complete = False
        elif argument.star == "**":
            value = argument.value
            found = _literal_keys(value)
            if found is None and isinstance(value, cst.Name):
                found = _name_keys(transformer, value)
            if found is None:
                complete = False
                continue
            keys |= found[0]
            complete &= found[1]
    return StarKeys(frozenset(keys), complete)
