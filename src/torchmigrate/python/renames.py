"""Declarative renames: one engine mechanism for every pass that maps old qualified names to new ones.

A pass lists ``renames={old: new}``; :class:`RenameTransformer` rewrites attribute chains, ``import`` and
``from … import`` statements (function-local ones included) and the uses of from-imported names. A pass may subclass it
to extend the renames.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import arg, build_dotted, chain_root, code_of, dotted_name, find_all, kwarg
from torchmigrate.python.transform import PassTransformer, Sink, _Node

if TYPE_CHECKING:
    from torchmigrate.core.passes import Pass
    from torchmigrate.python.codemod import PassContext

__all__ = ["RenameTransformer", "advice_for_target"]


_FUNCTION_NAME = re.compile(r"_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


@lru_cache(maxsize=256)
def _advice_pattern(old: str, new: str) -> tuple[re.Pattern[str], str] | None:
    old_module, _, old_name = old.rpartition(".")
    new_module, _, new_name = new.rpartition(".")
    if old_module != new_module or old_name == new_name or len(old_name) < 10 or not _FUNCTION_NAME.fullmatch(old_name):
        return None  # only a function renamed within its module, with a name too specific to mean anything else
    return re.compile(rf"(?<![\w.])((?:\w+\.)+){re.escape(old_name)}\b"), new_name


def advice_for_target(message: str, later: Sequence[Pass]) -> str:
    """``message`` (a finding's advice) with the functions that passes later in the run rename spelled by their new
    names: a 2.12 finding that says ``funcol.all_gather_tensor`` says ``funcol.all_gather_single`` in a run to 2.13,
    where the old name is deprecated (advice never names an API deprecated on the target). A name is renamed after
    an alias (``funcol.``, ``dist.``) or after the full path of the module the rename is for, never after another
    module's path (``torch.distributed.nn.functional._all_gather_base`` names the user's code, and stays)."""
    if "." not in message:
        return message
    for pass_ in later:
        for old, new in pass_.renames.items():
            found = _advice_pattern(old, new)
            if found is None or not found[0].search(message):
                continue
            module, name = old.rpartition(".")[0], found[1]

            def renamed(match: re.Match[str], module: str = module, name: str = name) -> str:
                prefix = match.group(1)[:-1]  # `funcol` (an alias) or a module path, which must be the renamed one's
                return f"{prefix}.{name}" if "." not in prefix or prefix == module else match.group(0)

            message = found[0].sub(renamed, message)
    return message


def _best_key(qualname: str, renames: dict[str, str]) -> str | None:
    """The longest old name in ``renames`` that is ``qualname`` or a prefix of it."""
    best = None
    for old in renames:
        if (qualname == old or qualname.startswith(old + ".")) and (best is None or len(old) > len(best)):
            best = old
    return best


def _match(qualname: str, renames: dict[str, str]) -> str | None:
    """The new name for ``qualname`` under the longest matching old prefix, or None."""
    best = _best_key(qualname, renames)
    return None if best is None else renames[best] + qualname[len(best) :]


class RenameTransformer(PassTransformer):
    """Applies a pass's ``renames`` (old qualified name → new), import statements included.

    - ``import torch.distributed._tensor [as dt]`` → ``import torch.distributed.tensor [as dt]``
    - ``from torch.distributed._tensor import DTensor`` → ``from torch.distributed.tensor import DTensor``
    - ``from torch.testing import assert_allclose`` → ``from torch.testing import assert_close`` and every use renamed
      (an alias keeps the old local name when the new one is already taken in the file)
    - ``th.distributed._tensor.DTensor`` → ``th.distributed.tensor.DTensor``; ``functorch.vmap`` → ``torch.func.vmap``
    """

    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self.renames = dict(pass_.renames)
        self.local_renames: dict[str, str] = {}
        self.kept_locals: set[str] = set()  # from-imported names kept (via an alias) because a use is suppressed
        self.frozen_locals: set[str] = set()  # from-imported names left as they are: a use sits under a version guard
        self._used_names: set[str] | None = None
        # Imports split off a function-local ``from … import`` line: they stay local, next to it (keyed by the line).
        self._split_imports: dict[int, dict[str, list[cst.ImportAlias]]] = {}
        self._import_depth = 0  # > 0 while the traversal is inside an import statement (no parent metadata needed)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self._import_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node: _Node, updated_node: _Node) -> _Node | cst.RemovalSentinel:
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, (cst.Import, cst.ImportFrom)):
            self._import_depth -= 1
        return result

    def used_names(self) -> set[str]:
        if self._used_names is None:
            module = self.context.module
            collector = _NameCollector()
            if module is not None:
                module.visit(collector)
            self._used_names = collector.names
        return self._used_names

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        if not self.allowed(original_node):
            return updated_node
        names = []
        changed = False
        for alias in updated_node.names:
            full = dotted_name(alias.name) or ""
            new = _match(full, self.renames)
            keeps_binding = new is not None and (alias.asname is not None or new.split(".")[0] == full.split(".")[0])
            if new is not None and keeps_binding:
                alias = alias.with_changes(name=cst.parse_expression(new))
                changed = True
            names.append(alias)
        if not changed:
            return updated_node
        self.edited(original_node, f"import renamed ({self.pass_.title})")
        return updated_node.with_changes(names=names)

    def visit_Module(self, node: cst.Module) -> bool:
        # Decide the local renames first, so uses that come before their import (in file order) are renamed too.
        # Imports under a version guard are left as they are, and so are the names they bind; a name also used under
        # a guard keeps its import (the guarded code relies on it).
        scan = _GuardedScan(self.is_guard)
        node.visit(scan)
        for statement in scan.imports:
            if statement.relative or statement.module is None or isinstance(statement.names, cst.ImportStar):
                continue
            module = dotted_name(statement.module) or ""
            if _match(module, self.renames) is not None and not self._names_renamed_apart(module, statement.names):
                continue
            if not self.allowed(statement):
                continue  # a suppressed import stays as it is, and so do the uses of the names it binds
            for alias in statement.names:
                plan = self._plan(module, alias)
                if plan is not None and plan[3] is not None:
                    old_local, new_local = plan[3]
                    if old_local in scan.guarded_names:
                        self.frozen_locals.add(old_local)
                    elif self._has_suppressed_use(node, old_local):
                        # `from m import old as old`: the suppressed line keeps working, untouched, on the new API
                        self.kept_locals.add(old_local)
                    else:
                        self.local_renames[old_local] = new_local
        return True

    def _has_suppressed_use(self, module: cst.Module, name: str) -> bool:
        if not self.sink.suppressed:
            return False
        for use in find_all(module, cst.Name):
            if use.value == name and not self._inside_import(use) and not self.allowed(use):
                return True
        return False

    def _plan(self, module: str, alias: cst.ImportAlias) -> tuple[str, str, str | None, tuple[str, str] | None] | None:
        """For ``from module import alias``: (new module, new name, asname, (old local, new local) or None)."""
        imported = dotted_name(alias.name) or ""
        new = _match(f"{module}.{imported}", self.renames)
        if new is None:
            return None
        target_module, _, target_name = new.rpartition(".")
        old_local = (dotted_name(alias.asname.name) if alias.asname else imported) or imported
        if old_local in self.frozen_locals and alias.asname is None and target_name != old_local:
            return None  # its name is used under a version guard: the import stays
        if alias.asname is not None:
            return (target_module, target_name, None if old_local == target_name else old_local, None)
        if target_name == old_local:
            return (target_module, target_name, None, None)
        if target_name in self.used_names() or old_local in self.kept_locals:
            return (target_module, target_name, old_local, None)  # keep the old local name (taken, or suppressed use)
        return (target_module, target_name, None, (old_local, target_name))

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if updated_node.relative or updated_node.module is None or not self.allowed(original_node):
            return updated_node
        module = dotted_name(updated_node.module) or ""
        new_module = _match(module, self.renames)
        if new_module is not None and not self._names_renamed_apart(module, updated_node.names):
            self.edited(original_node, f"import renamed ({self.pass_.title})")
            return updated_node.with_changes(module=cst.parse_expression(new_module))
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        plans = [(alias, self._plan(module, alias)) for alias in updated_node.names]
        if all(plan is None for _, plan in plans):
            return updated_node
        self.edited(original_node, f"import renamed ({self.pass_.title})")
        targets = {plan[0] for _, plan in plans if plan is not None}
        in_place = len(targets) == 1 and all(plan is not None for _, plan in plans)
        kept: list[cst.ImportAlias] = []
        for alias, plan in plans:
            if plan is None:
                kept.append(alias)
                continue
            target_module, target_name, asname, _ = plan
            if target_module == module or in_place:
                kept.append(
                    alias.with_changes(
                        name=cst.Name(target_name),
                        asname=cst.AsName(name=cst.Name(asname)) if asname else None,
                    )
                )
            else:
                self._add_split_import(original_node, target_module, target_name, asname)
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=updated_node.names[-1].comma)  # keep a trailing comma style
        if in_place:
            return updated_node.with_changes(module=cst.parse_expression(targets.pop()), names=kept)
        return updated_node.with_changes(names=kept)

    def _add_split_import(self, node: cst.ImportFrom, module: str, name: str, asname: str | None) -> None:
        line = self.get_metadata(ParentNodeProvider, node, None)
        if not isinstance(line, cst.SimpleStatementLine) or isinstance(
            self.get_metadata(ParentNodeProvider, line, None), cst.Module
        ):
            add_needed_import(self.context, module, name, asname)
            return
        alias = cst.ImportAlias(name=cst.Name(name), asname=cst.AsName(name=cst.Name(asname)) if asname else None)
        self._split_imports.setdefault(id(line), {}).setdefault(module, []).append(alias)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        split = self._split_imports.pop(id(original_node), None)
        if not split:
            return updated_node
        lines: list[cst.BaseStatement] = [updated_node] if updated_node.body else []
        for module, aliases in split.items():
            names = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in aliases[:-1]]
            dotted = build_dotted(module)
            assert isinstance(dotted, (cst.Attribute, cst.Name))
            statement = cst.ImportFrom(module=dotted, names=[*names, aliases[-1]])
            lines.append(cst.SimpleStatementLine(body=[statement], leading_lines=() if lines else updated_node.leading_lines))
        return cst.FlattenSentinel(lines)

    def _names_renamed_apart(self, module: str, names: cst.ImportStar | Sequence[cst.ImportAlias]) -> bool:
        """Some name imported from ``module`` has a more specific rename than the module itself.

        ``{"a._x": "a.x", "a._x.y.Spec": "a.x._spec.Spec"}``: ``from a._x.y import Spec, Other`` must import ``Spec``
        from ``a.x._spec`` and ``Other`` from ``a.x.y``, so the names are planned one by one.
        """
        if isinstance(names, cst.ImportStar):
            return False
        module_key = _best_key(module, self.renames)
        return any(_best_key(f"{module}.{dotted_name(alias.name) or ''}", self.renames) != module_key for alias in names)

    def _inside_import(self, node: cst.CSTNode) -> bool:
        parent = self.get_metadata(ParentNodeProvider, node, None)
        while parent is not None:
            if isinstance(parent, (cst.Import, cst.ImportFrom)):
                return True
            if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
                return False
            parent = self.get_metadata(ParentNodeProvider, parent, None)
        return False

    def _rename_expr(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = self.qualname(original)
        if name is None or name not in self.renames or self._import_depth:
            return updated
        if not self.allowed(original):
            return updated
        new = self.renames[name]
        if isinstance(original, cst.Name):
            local = self.local_renames.get(original.value)
            if local is None:
                return updated
            self.edited(original, f"{name} → {new}")
            return cst.Name(local)
        replacement = self.ref(new, like=original)
        if replacement.deep_equals(updated):
            return updated
        self.edited(original, f"{name} → {new}")
        old_root, new_root = chain_root(original), chain_root(replacement)
        if old_root is None or new_root is None or old_root.value != new_root.value:
            self.drop_imports_of(original)  # the old root may now be unused (functorch.vmap → torch.func.vmap)
        return replacement

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._rename_expr(original_node, updated_node)

    # -- the same dotted paths spelled in strings: mock.patch targets, importlib.import_module, __import__ --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node or not isinstance(original_node.func, (cst.Name, cst.Attribute)):
            return result
        if not original_node.args or not self.allowed(original_node):
            return result
        callee = self.qualname(original_node.func)
        spelled = dotted_name(original_node.func)
        if callee in _OBJECT_PATCHERS:
            return self._patch_object(original_node, updated_node)
        if callee in _PATH_TAKERS:
            kind, keyword = _PATH_TAKERS[callee]
        elif spelled == "__import__" and callee is None and "__import__" not in self.global_names():
            kind, keyword = "module", "name"
        elif spelled in ("monkeypatch.setattr", "monkeypatch.delattr") and callee is None:
            kind, keyword = "target", "target"
        else:
            return result
        packaged = callee == "importlib.import_module" and len(original_node.args) > 1
        if kind == "module" and (packaged or kwarg(original_node, "package") is not None):
            return result  # import_module(name, package): not a full path
        return self._rename_string(original_node, updated_node, keyword, kind)

    def _rename_string(self, original: cst.Call, updated: cst.Call, keyword: str, kind: str) -> cst.Call:
        given, now = arg(original, 0, keyword), arg(updated, 0, keyword)
        if given is None or now is None:
            return updated
        value = given.value
        if not isinstance(value, cst.SimpleString):
            if isinstance(value, (cst.FormattedString, cst.ConcatenatedString, cst.BinaryOperation)):
                words = set(re.findall(r"[A-Za-z_][\w.]*", code_of(value)))
                if any(_best_key(word, self.renames) is not None for word in words):
                    self.finding(value, f"this string builds a path the pass renames ({self.pass_.title}): update it by hand")
            return updated
        path = value.evaluated_value
        if not isinstance(path, str) or path.startswith("."):
            return updated
        key = _best_key(path, self.renames)
        if key is None:
            return updated
        new = self.renames[key] + path[len(key) :]
        if kind == "target" and key == path and path.rpartition(".")[2] != new.rpartition(".")[2] and self._is_module(new):
            self.finding(value, f'"{path}" names a module that moved to {new}: a patch target names an attribute; fix it by hand')
            return updated
        self.edited(value, f'"{path}" → "{new}" (the renamed path, spelled in a string)')
        args = [a.with_changes(value=_same_quotes(value, new)) if a is now else a for a in updated.args]
        return updated.with_changes(args=args)

    def _is_module(self, path: str) -> bool:
        return any(target.startswith(path + ".") for target in self.renames.values())

    def _patch_object(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``patch.object(owner, "name")``: the owner expression is renamed like any attribute chain; the name string
        follows a rename of ``owner.name`` when the owner's module keeps it, else a finding."""
        owner, name = arg(original, 0, "target"), arg(original, 1, "attribute")
        if owner is None or name is None or not isinstance(name.value, cst.SimpleString):
            return updated
        owner_name, attribute = self.qualname(owner.value), name.value.evaluated_value
        if owner_name is None or not isinstance(attribute, str):
            return updated
        full = f"{owner_name}.{attribute}"
        key = _best_key(full, self.renames)
        if key is None or len(key) <= len(owner_name):
            return updated  # only the owner was renamed (or nothing): its expression is handled as an attribute chain
        new = self.renames[key] + full[len(key) :]
        new_owner, _, new_attribute = new.rpartition(".")
        if new_owner != (_match(owner_name, self.renames) or owner_name):
            self.finding(name.value, f"{full} moved to {new}: patch.object must patch {new_owner}; fix it by hand")
            return updated
        if new_attribute == attribute:
            return updated
        self.edited(name.value, f'"{attribute}" → "{new_attribute}" (the renamed attribute, spelled in a string)')
        now = arg(updated, 1, "attribute")
        return updated.with_changes(
            args=[a.with_changes(value=_same_quotes(name.value, new_attribute)) if a is now else a for a in updated.args]
        )

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._rename_expr(original_node, updated_node)


# Functions that take a dotted path as a string: (what the path names, the parameter's keyword).
_PATH_TAKERS = {
    "unittest.mock.patch": ("target", "target"),
    "mock.patch": ("target", "target"),
    "unittest.mock.patch.dict": ("target", "in_dict"),
    "mock.patch.dict": ("target", "in_dict"),
    "importlib.import_module": ("module", "name"),
}
_OBJECT_PATCHERS = frozenset({"unittest.mock.patch.object", "mock.patch.object"})


def _same_quotes(node: cst.SimpleString, text: str) -> cst.SimpleString:
    """A string literal holding ``text`` (a dotted path: nothing to escape), quoted as ``node`` is."""
    return node.with_changes(value=f"{node.prefix}{node.quote}{text}{node.quote}")


class _GuardedScan(cst.CSTVisitor):
    """The ``from … import`` statements outside version guards, and the names used inside them."""

    def __init__(self, is_guard: Callable[[cst.CSTNode], bool]) -> None:
        super().__init__()
        self.is_guard = is_guard
        self.imports: list[cst.ImportFrom] = []
        self.guarded_names: set[str] = set()
        self._guards: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.If, cst.IfExp, cst.Try)) and self.is_guard(node):
            self._guards.append(node)
        elif isinstance(node, cst.ImportFrom) and not self._guards:
            self.imports.append(node)
        elif isinstance(node, cst.Name) and self._guards:
            self.guarded_names.add(node.value)
        elif isinstance(node, cst.Attribute):  # `x.name`: a use of `x`, not of `name`
            node.value.visit(self)
            return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._guards and self._guards[-1] is original_node:
            self._guards.pop()


class _NameCollector(cst.CSTVisitor):
    """Names used as variables (bindings and loads), not attribute names or import paths."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.names.add((dotted_name(alias.asname.name) if alias.asname else dotted_name(alias.name)) or "")
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.names.add((dotted_name(alias.asname.name) if alias.asname else dotted_name(alias.name)) or "")
        return False
