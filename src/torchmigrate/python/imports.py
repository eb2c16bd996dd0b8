"""Import bookkeeping after a pass: adding the imports new code needs, dropping the ones it no longer uses.

Both respect suppressed import lines (``protected``: the code of import statements a ``# migrate: ignore`` covers).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import libcst as cst

from torchmigrate.python.codemod import PassContext, codemod_context
from torchmigrate.python.guards import is_version_guard
from torchmigrate.python.helpers import code_of, dotted_name
from torchmigrate.python.precheck import ast_chain, ast_parse

if TYPE_CHECKING:
    from libcst.codemod import CodemodContext

__all__ = ["add_imports", "ScheduledImport", "drop_unused_imports", "import_lines", "place_imports"]


def add_imports(module: cst.Module, context: PassContext, protected: Iterable[str] = ()) -> cst.Module:
    """Add the imports scheduled in ``context`` (libcst's ``AddImportsVisitor``), a new statement rather than a merge
    into a suppressed import line (``protected``)."""
    visitor = _add_imports_visitor()(codemod_context(context), protected)
    return visitor.transform_module(module)  # type: ignore[no-any-return]


@cache
def _add_imports_visitor() -> type[Any]:
    from libcst.codemod.visitors import AddImportsVisitor  # loaded when a pass first schedules an import

    class AddImports(AddImportsVisitor):
        """libcst's ``AddImportsVisitor`` that adds a new statement instead of merging into a suppressed import line."""

        def __init__(self, context: CodemodContext, protected: Iterable[str] = ()) -> None:
            super().__init__(context)
            self.protected = frozenset(protected)

        def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
            if self.protected and code_of(original_node) in self.protected:
                return updated_node
            return super().leave_ImportFrom(original_node, updated_node)

    return AddImports


ScheduledImport = tuple[str, "str | None", "str | None"]
_ImportNode = TypeVar("_ImportNode", cst.Import, cst.ImportFrom)


def drop_unused_imports(module: cst.Module, scheduled: Iterable[ScheduledImport], protected: Iterable[str] = ()) -> cst.Module:
    """Remove the scheduled imports (``(module, obj, asname)``, as libcst's ``RemoveImportsVisitor`` takes them) that the
    new code no longer uses. Never an import on a suppressed line (``protected``).

    Cheaper than ``RemoveImportsVisitor``, which runs a scope analysis of its own: this looks at the new code with the
    stdlib ``ast`` and keeps an import whenever its name is loaded anywhere in the file, or appears in a string
    (``__all__``, string annotations) — so it may keep an import libcst would drop, never the reverse.
    """
    try:
        tree = ast_parse(module.code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return module  # keep every import: the caller's verification reports the broken text
    loaded: set[str] = set()
    chains: set[str] = set()
    words: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            loaded.add(node.id)
        elif isinstance(node, ast.Attribute):
            chain = ast_chain(node)
            if chain is not None:
                chains.add(chain)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(re.findall(r"[A-Za-z_][\w.]*", node.value))

    def unused(module_name: str, obj: str | None, asname: str | None) -> bool:
        if obj is None and asname is None and "." in module_name:  # `import a.b`: used through `a.b...` chains
            used = any(c == module_name or c.startswith(module_name + ".") for c in chains)
            return not used and module_name not in words
        bound = asname or obj or module_name
        return bound not in loaded and bound not in words

    drop = {(m_, o, a) for m_, o, a in scheduled if unused(m_, o, a)}
    if not drop:
        return module
    return module.visit(_DropImports(drop, frozenset(protected)))


class _DropImports(cst.CSTTransformer):
    def __init__(self, drop: set[ScheduledImport], protected: frozenset[str]) -> None:
        super().__init__()
        self.drop = drop
        self.protected = protected
        self.removed: set[int] = set()  # statement lines removed whole (their blank lines and comments move on)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression):
            return False
        if isinstance(node, (cst.If, cst.Try)) and is_version_guard(node):
            return False  # a version-gated import block is left as it is
        return super().on_visit(node)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        if original_node.body and not updated_node.body:
            self.removed.add(id(original_node))
            return cst.RemoveFromParent()
        return updated_node

    def _carry(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement] | None:
        """``updated`` with the leading lines of removed statements given to the statement after them, so that the
        blank line before an import section (or a comment) is not lost with the import that followed it."""
        if not self.removed or not any(id(s) in self.removed for s in original):
            return None
        out: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []
        remaining = iter(updated)
        for statement in original:
            if id(statement) in self.removed and isinstance(statement, cst.SimpleStatementLine):
                carried.extend(statement.leading_lines)
                continue
            kept = next(remaining)
            if carried and isinstance(kept, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                own = list(kept.leading_lines)
                if any(line.comment is None for line in own):  # it has blank lines of its own: no more of them
                    carried = [line for line in carried if line.comment is not None]
                kept = kept.with_changes(leading_lines=[*carried, *own])
                carried = []
            out.append(kept)
        out.extend(remaining)
        return out

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._carry(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _keep(self, names: Sequence[cst.ImportAlias], module: str | None) -> list[cst.ImportAlias]:
        kept = []
        for alias in names:
            name = dotted_name(alias.name) or ""
            asname = dotted_name(alias.asname.name) if alias.asname else None
            key = (name, None, asname) if module is None else (module, name, asname)
            if key not in self.drop:
                kept.append(alias)
        return kept

    @staticmethod
    def _apply(updated: _ImportNode, total: int, kept: list[cst.ImportAlias]) -> _ImportNode | cst.RemovalSentinel:
        if len(kept) == total:
            return updated
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import | cst.RemovalSentinel:
        if self.protected and code_of(original_node) in self.protected:
            return updated_node
        return self._apply(updated_node, len(updated_node.names), self._keep(updated_node.names, None))

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if updated_node.relative or updated_node.module is None or isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        if self.protected and code_of(original_node) in self.protected:
            return updated_node
        module = dotted_name(updated_node.module) or ""
        return self._apply(updated_node, len(updated_node.names), self._keep(updated_node.names, module))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if not updated_node.body:  # a function whose only statement was the import
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        body = self._carry(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)


# --- where a new or renamed import goes: isort / ruff order among its neighbours -------------------------------------


def import_lines(module: cst.Module) -> frozenset[tuple[bool, str]]:
    """What every import statement line of ``module`` (any depth) imports from: ``(straight import, module)``, to tell
    later which import lines a pass added or pointed at another module."""
    return frozenset(_module_of(line) for line in _import_statement_lines(module))


def import_codes(module: cst.Module) -> frozenset[str]:
    """The code of every import statement line of ``module`` (any depth): which lines a pass left as they were."""
    return frozenset(code_of(line.body[0]) for line in _import_statement_lines(module))


def _import_statement_lines(module: cst.Module) -> list[cst.SimpleStatementLine]:
    """The statement lines of ``module`` (any depth) that hold one import and nothing else (a walk of statements,
    never of expressions)."""
    collector = _ImportLines()
    module.visit(collector)
    return collector.lines


class _ImportLines(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[cst.SimpleStatementLine] = []

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if _single_import(node) is not None:
            self.lines.append(node)
        return False  # never into expressions

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        return False


def _single_import(statement: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            return small
    return None


def place_imports(module: cst.Module, before: frozenset[tuple[bool, str]]) -> cst.Module:
    """``module`` with each import statement whose module is not in ``before`` (new, or renamed by a pass) moved to where
    isort's and ruff's order puts it among its neighbours: into the section (a run of imports between blank lines)
    that imports from the same top-level package, at its sorted place — as long as that section was sorted
    (``import x`` before ``from x import``, or by module only, as ``force-sort-within-sections`` does). Imports the pass
    did not touch never move; a section that was not sorted keeps its order."""
    return module.visit(_PlaceImports(before))


class _PlaceImports(cst.CSTTransformer):
    def __init__(self, before: frozenset[tuple[bool, str]]) -> None:
        super().__init__()
        self.before = before

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        return False

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = _placed(updated_node.body, self.before)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = _placed(updated_node.body, self.before)
        return updated_node if body is None else updated_node.with_changes(body=body)


def _placed(body: Sequence[cst.BaseStatement], before: frozenset[tuple[bool, str]]) -> list[cst.BaseStatement] | None:
    """``body`` with the touched imports of each import area placed, or ``None`` when nothing moves."""
    out: list[cst.BaseStatement] = []
    moved = False
    index = 0
    while index < len(body):
        if _single_import(body[index]) is None:
            out.append(body[index])
            index += 1
            continue
        end = index
        while end < len(body) and _single_import(body[end]) is not None:
            end += 1
        area = [s for s in body[index:end] if isinstance(s, cst.SimpleStatementLine)]
        placed = _place_area(area, before)
        if placed is not None:
            moved = True
            out.extend(placed)
        else:
            out.extend(area)
        index = end
    return out if moved else None


def _is_blank(line: cst.EmptyLine) -> bool:
    return line.comment is None


def _sections(area: list[cst.SimpleStatementLine]) -> list[list[cst.SimpleStatementLine]]:
    sections: list[list[cst.SimpleStatementLine]] = []
    for statement in area:
        if not sections or any(_is_blank(line) for line in statement.leading_lines):
            sections.append([statement])
        else:
            sections[-1].append(statement)
    return sections


def _module_of(statement: cst.SimpleStatementLine) -> tuple[bool, str]:
    """(a straight ``import``, the module it names) of an import statement line."""
    node = _single_import(statement)
    if isinstance(node, cst.Import):
        return True, dotted_name(node.names[0].name) or ""
    assert isinstance(node, cst.ImportFrom)
    dots = "." * len(node.relative)
    return False, dots + ((dotted_name(node.module) or "") if node.module is not None else "")


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.findall(r"\d+|\D+", text.lower()))


def _key_straight_first(statement: cst.SimpleStatementLine) -> tuple[object, ...]:
    straight, module = _module_of(statement)
    return (0 if straight else 1, _natural(module))


def _key_by_module(statement: cst.SimpleStatementLine) -> tuple[object, ...]:
    straight, module = _module_of(statement)
    return (_natural(module), 0 if straight else 1)


def _root(statement: cst.SimpleStatementLine) -> str:
    module = _module_of(statement)[1]
    return "" if module.startswith(".") else module.split(".")[0]


def _is_sorted(section: list[cst.SimpleStatementLine], key: Callable[[cst.SimpleStatementLine], tuple[object, ...]]) -> bool:
    keys = [key(s) for s in section]
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _place_area(area: list[cst.SimpleStatementLine], before: frozenset[tuple[bool, str]]) -> list[cst.SimpleStatementLine] | None:
    touched_ids = {id(s) for s in area if _module_of(s) not in before}
    if not touched_ids or len(touched_ids) == len(area):
        return None
    sections = _sections(area)
    lead = [list(section[0].leading_lines) for section in sections]  # blank lines and comments before a section
    own = {id(s): list(s.leading_lines) if k else [] for section in sections for k, s in enumerate(section)}
    home = {id(s): n for n, section in enumerate(sections) for s in section}
    kept = [[s for s in section if id(s) not in touched_ids] for section in sections]
    for statement in (s for s in area if id(s) in touched_ids):
        root = _root(statement)
        target = home[id(statement)]
        if root and not any(_root(s) == root for s in kept[target]):
            target = next((n for n, section in enumerate(kept) if any(_root(s) == root for s in section)), target)
        section = kept[target]
        key = _key_straight_first if _is_sorted(section, _key_straight_first) else _key_by_module
        if not _is_sorted(section, key):
            return None  # an unsorted section: every import stays where the pass put it
        position = next((n for n, other in enumerate(section) if key(statement) < key(other)), len(section))
        section.insert(position, statement)
    out: list[cst.SimpleStatementLine] = []
    for n, section in enumerate(kept):
        if not section:
            if any(not _is_blank(line) for line in lead[n]):
                return None  # a section emptied: its comment would have nowhere to go
            continue
        for k, statement in enumerate(section):
            lines = [*(lead[n] if k == 0 else []), *own[id(statement)]]
            out.append(statement if list(statement.leading_lines) == lines else statement.with_changes(leading_lines=lines))
    if len(out) != len(area) or all(a is b for a, b in zip(out, area, strict=True)):
        return None
    return out


def merge_imports(module: cst.Module, before: frozenset[str]) -> cst.Module:
    """``module`` with each ``from m import …`` line a pass made (its code is not in ``before``) merged into a line of
    the same block that the pass left as it was and that imports from the same module — as isort, ruff and usort
    would merge them (``from torch.distributed._composable.fsdp import fully_shard`` renamed beside an existing ``from
    torch.distributed.fsdp import FSDPModule``). The names go where the existing line's order puts them: isort's and
    ruff's (constants, classes, then the rest) or usort's (case-insensitive), whichever the file's imports follow.
    Lines with comments, star imports and relative imports are left as they are."""
    names_order = _names_order(module)
    return module.visit(_MergeImports(before, names_order))


def _plain_from(statement: cst.BaseStatement) -> cst.ImportFrom | None:
    node = _single_import(statement)
    if not isinstance(node, cst.ImportFrom) or node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return None
    if "#" in code_of(node) or (
        isinstance(statement, cst.SimpleStatementLine) and statement.trailing_whitespace.comment is not None
    ):
        return None  # a comment inside or after it: its place among the names is the author's
    return node


def _alias_key(alias: cst.ImportAlias) -> tuple[str, str]:
    return code_of(alias.name), code_of(alias.asname) if alias.asname else ""


def _by_type(name: str) -> tuple[int, str]:
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _case_insensitive(name: str) -> tuple[str, str]:
    return name.lower(), name


def _names_of(node: cst.ImportFrom) -> list[str]:
    assert not isinstance(node.names, cst.ImportStar)
    return [dotted_name(alias.name) or "" for alias in node.names]


def _sorted_by(names: list[str], key: Callable[[str], tuple[object, ...]]) -> bool:
    keys = [key(n) for n in names]
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _names_order(module: cst.Module) -> Callable[[str], tuple[object, ...]]:
    """usort's order when every multi-name ``from`` import of the file follows it and one breaks isort's, else isort's."""
    collector = _FromNames()
    module.visit(collector)
    lists = [names for names in collector.lists if len(names) > 1]
    if lists and all(_sorted_by(n, _case_insensitive) for n in lists) and not all(_sorted_by(n, _by_type) for n in lists):
        return _case_insensitive
    return _by_type


class _FromNames(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.lists: list[list[str]] = []

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            self.lists.append(_names_of(node))
        return False


class _MergeImports(cst.CSTTransformer):
    def __init__(self, before: frozenset[str], order: Callable[[str], tuple[object, ...]]) -> None:
        super().__init__()
        self.before = before
        self.order = order

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._merged(updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = self._merged(updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _merged(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
        out = list(body)
        changed = False
        for index, statement in enumerate(body):
            made = _plain_from(statement)
            if made is None or code_of(made) in self.before:
                continue
            assert isinstance(statement, cst.SimpleStatementLine)
            module = dotted_name(made.module) if made.module is not None else None
            twin_at = next(
                (
                    n
                    for n, other in enumerate(out)
                    if n != index
                    and (kept := _plain_from(other)) is not None
                    and code_of(kept) in self.before
                    and kept.module is not None
                    and dotted_name(kept.module) == module
                ),
                None,
            )
            if twin_at is None or out[index] is not statement:
                continue
            twin = out[twin_at]
            assert isinstance(twin, cst.SimpleStatementLine)
            merged = self._with_names(twin, made)
            if merged is None:
                continue
            follower = index + 1
            if statement.leading_lines:  # the removed line's blank lines or comments go to the line after it
                after = out[follower] if follower < len(out) else None
                if not isinstance(after, cst.SimpleStatementLine) or after.leading_lines or follower == twin_at:
                    continue
                out[follower] = after.with_changes(leading_lines=statement.leading_lines)
            out[twin_at] = merged
            out[index] = None  # type: ignore[call-overload]
            changed = True
        if not changed:
            return None
        return [s for s in out if s is not None]

    def _with_names(self, twin: cst.SimpleStatementLine, made: cst.ImportFrom) -> cst.SimpleStatementLine | None:
        node = _single_import(twin)
        assert isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar)
        assert not isinstance(made.names, cst.ImportStar)
        have = {_alias_key(a) for a in node.names}
        new = [a for a in made.names if _alias_key(a) not in have]
        aliases = list(node.names)
        if not new:
            return twin
        multiline = node.lpar is not None and "\n" in code_of(node)
        if multiline and (aliases[-1].comma is cst.MaybeSentinel.DEFAULT or len(aliases) < 2):
            return None  # a parenthesized list without a trailing comma: its layout is the author's
        separator = aliases[0].comma if multiline else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        last_comma = aliases[-1].comma
        names = _names_of(node)
        in_order = _sorted_by(names, self.order)
        pool = [a.with_changes(comma=separator) for a in aliases] + [a.with_changes(comma=separator) for a in new]
        if in_order:
            pool.sort(key=lambda a: self.order(dotted_name(a.name) or ""))
        pool[-1] = pool[-1].with_changes(comma=last_comma)
        return twin.with_changes(body=[node.with_changes(names=pool)])
