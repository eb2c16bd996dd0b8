"""Renamed, removed and no-op keys of torch's config modules (``torch._dynamo.config``, ``torch._inductor.config``, …),
in every form code sets or reads them.

A pass lists its keys (:class:`Key`) on a :class:`ConfigKeys` subclass. For each key the transformer handles:

- ``torch._dynamo.config.key = v`` and reads of ``cfg.key`` through any alias of the config module, nested namespaces
  included (``cfg.cuda.key``);
- ``config.patch(key=v)``, ``config.patch({"key": v})`` and ``config.patch("key", v)`` (also as a decorator or in a
  ``with``);
- inductor keys inside ``torch.compile(..., options={...})`` and the AOTInductor entry points' option dicts.

A ``rename`` rewrites the key; a ``delete`` removes an assignment (or the keyword / dict entry) of a key that does
nothing, and reports a read; a ``report`` key gets a finding wherever it appears. What cannot be rewritten exactly (a
cross-module rename inside ``patch`` or an option dict) gets a finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import build_dotted, fix_commas, kwarg
from torchmigrate.python.transform import PassTransformer

__all__ = ["DELETE", "OPTION_DICTS", "RENAME", "REPORT", "ConfigKeys", "Key"]

RENAME, DELETE, REPORT = "rename", "delete", "report"

INDUCTOR = "torch._inductor.config"
# Calls whose keyword takes a dict of inductor config keys (dotted for nested namespaces: "triton.cudagraphs").
OPTION_DICTS: Mapping[str, str] = {
    "torch.compile": "options",
    "torch._inductor.aoti_compile_and_package": "inductor_configs",
    "torch._inductor.aot_compile": "options",
    "torch._export.aot_compile": "options",
}


@dataclass(frozen=True)
class Key:
    """One config key: ``module`` is the config module, ``key`` its name there (``cuda.x`` for a nested namespace)."""

    module: str
    key: str
    action: str
    why: str
    new_module: str = ""  # for a rename: the config module of the new key (default: the same module)
    new_key: str = ""

    @property
    def old(self) -> str:
        return f"{self.module}.{self.key}"

    @property
    def target_module(self) -> str:
        return self.new_module or self.module

    @property
    def new(self) -> str:
        return f"{self.target_module}.{self.new_key}"

    @property
    def leaf(self) -> str:
        return self.key.rpartition(".")[2]


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _quoted(like: cst.SimpleString, text: str) -> cst.SimpleString:
    quote = like.quote
    return cst.SimpleString(f"{like.prefix}{quote}{text}{quote}")


class ConfigKeys(PassTransformer):
    """Subclasses set ``KEYS``."""

    KEYS: Sequence[Key] = ()

    def _keys(self) -> dict[str, Key]:
        return {k.old: k for k in self.KEYS}

    def _modules(self) -> set[str]:
        return {k.module for k in self.KEYS}

    def _key_at(self, node: cst.BaseExpression) -> Key | None:
        if not isinstance(node, cst.Attribute):
            return None
        name = self.qualname(node)
        return self._keys().get(name or "")

    def _module_expr(self, node: cst.Attribute, key: Key) -> cst.BaseExpression | None:
        """The part of ``cfg.cuda.key`` that names the config module (``cfg``)."""
        current: cst.BaseExpression = node
        for _ in key.key.split("."):
            if not isinstance(current, cst.Attribute):
                return None
            current = current.value
        return current

    def _renamed(self, original: cst.Attribute, updated: cst.Attribute, key: Key) -> cst.BaseExpression:
        if key.target_module == key.module:
            base = self._module_expr(updated, key)
            if base is not None:
                new: cst.BaseExpression = base
                for part in key.new_key.split("."):
                    new = cst.Attribute(value=new, attr=cst.Name(part))
                return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return self._attribute_ref(key.target_module, key.new_key)

    def _attribute_ref(self, module: str, key: str) -> cst.BaseExpression:
        """``module.key`` as an attribute chain (never a from-import: an assignment must reach the config module),
        through the file's own ``import torch [as th]`` when it has one; the module is imported as needed."""
        add_needed_import(self.context, module)
        for full, local in self.module_imports():
            if module == full or module.startswith(full + "."):
                return build_dotted(local + module[len(full):] + "." + key)
        return build_dotted(f"{module}.{key}")

    # -- assignments --
    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if len(original_node.body) != 1 or not self.allowed(original_node):
            return updated_node
        statement = original_node.body[0]
        targets: list[cst.BaseExpression] = []
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            targets = [statement.targets[0].target]
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
            targets = [statement.target]
        key = self._key_at(targets[0]) if targets else None
        if key is None:
            return updated_node
        if key.action == DELETE:
            self.edited(original_node, f"removed {key.old} ({key.why})")
            return self.remove_statement(original_node, updated_node)
        return updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        key = self._key_at(original_node)
        if key is None or not self.allowed(original_node):
            return updated_node
        parent = self.get_metadata(ParentNodeProvider, original_node, None)
        assigned = (
            isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
            and getattr(parent, "target", None) is original_node
        )
        if key.action == RENAME:
            self.edited(original_node, f"{key.old} → {key.new} ({key.why})")
            return self._renamed(original_node, updated_node, key)
        if key.action == DELETE and assigned:
            return updated_node  # the statement goes (leave_SimpleStatementLine)
        what = "read" if not assigned else "set"
        self.finding(original_node, f"{key.old} is {what} here: {key.why}")
        return updated_node

    # -- patch(...) and option dicts --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node or not self.allowed(original_node):
            return result
        func = original_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "patch":
            module = self.qualname(func.value)
            if module in self._modules():
                return self._patch(original_node, updated_node, module)
        name = self.qualname(func)
        if name is not None and name in OPTION_DICTS:
            return self._options(original_node, updated_node, OPTION_DICTS[name])
        return result

    def _lookup(self, module: str, key: str) -> Key | None:
        return self._keys().get(f"{module}.{key}")

    def _patch(self, original: cst.Call, updated: cst.Call, module: str) -> cst.Call:
        args: list[cst.Arg | None] = list(updated.args)
        changed = False
        for i, arg in enumerate(updated.args):
            if arg.keyword is not None:
                key = self._lookup(module, arg.keyword.value)
                if key is None:
                    continue
                new_arg = self._entry_change(original, key, arg.value)
                if new_arg is _DROP:
                    args[i] = None
                    changed = True
                elif isinstance(new_arg, tuple):
                    args[i] = arg.with_changes(keyword=cst.Name(new_arg[0]), value=new_arg[1])
                    changed = True
        first = updated.args[0] if updated.args and updated.args[0].keyword is None else None
        if first is not None and isinstance(first.value, cst.Dict):
            new_dict = self._dict(original, first.value, module)
            if new_dict is not first.value:
                args[0] = first.with_changes(value=new_dict)
                changed = True
        elif first is not None and (name := _string_value(first.value)) is not None:
            key = self._lookup(module, name)
            if key is not None:
                value = updated.args[1].value if len(updated.args) > 1 else None
                change = self._entry_change(original, key, value, keyword=False)
                if isinstance(change, tuple) and isinstance(first.value, cst.SimpleString):
                    args[0] = first.with_changes(value=_quoted(first.value, change[0]))
                    second = args[1] if len(args) > 1 else None
                    if value is not None and second is not None:
                        args[1] = second.with_changes(value=change[1])
                    changed = True
                elif change is _DROP:
                    self.finding(original, f"{module}.patch({name!r}, …) patches {key.old}: {key.why}; remove this patch")
        if not changed:
            return updated
        return updated.with_changes(args=fix_commas([a for a in args if a is not None]))

    def _options(self, original: cst.Call, updated: cst.Call, keyword: str) -> cst.Call:
        arg = kwarg(updated, keyword)
        if arg is None or not isinstance(arg.value, cst.Dict):
            return updated
        new_dict = self._dict(original, arg.value, INDUCTOR)
        if new_dict is arg.value:
            return updated
        return updated.with_changes(args=[a.with_changes(value=new_dict) if a is arg else a for a in updated.args])

    def _dict(self, original: cst.Call, node: cst.Dict, module: str) -> cst.Dict:
        elements: list[cst.BaseDictElement] = []
        changed = False
        for element in node.elements:
            name = _string_value(element.key) if isinstance(element, cst.DictElement) else None
            key = self._lookup(module, name) if name is not None else None
            if key is None or not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                elements.append(element)
                continue
            change = self._entry_change(original, key, element.value, keyword=False)
            if change is _DROP:
                changed = True
                continue
            if isinstance(change, tuple):
                elements.append(element.with_changes(key=_quoted(element.key, change[0]), value=change[1]))
                changed = True
                continue
            elements.append(element)
        if not changed:
            return node
        if elements:
            last = elements[-1]
            if isinstance(node.elements[-1].comma, cst.MaybeSentinel):
                elements[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(elements=elements)

    def _entry_change(
        self, original: cst.Call, key: Key, value: cst.BaseExpression | None, keyword: bool = True
    ) -> tuple[str, cst.BaseExpression] | object | None:
        """What to do with one ``key=value`` entry: ``(new key, new value)``, ``_DROP``, or ``None`` (a finding)."""
        if key.action == DELETE:
            self.edited(original, f"dropped {key.old} ({key.why})")
            return _DROP
        if key.action == REPORT:
            self.finding(original, f"{key.old}: {key.why}")
            return None
        if key.target_module != key.module or (keyword and "." in key.new_key):
            self.finding(original, f"{key.old} → {key.new} ({key.why}): patch the new key in its own module")
            return None
        self.edited(original, f"{key.old} → {key.new} ({key.why})")
        return (key.new_key, value if value is not None else build_dotted("None"))


_DROP = object()
