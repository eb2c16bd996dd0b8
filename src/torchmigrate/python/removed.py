"""Findings for APIs that are gone and have no mechanical replacement: each import and each use of them, once.

A pass lists ``qualified name → message`` (a module covers everything under it; the longest entry wins) and uses
:class:`RemovedAPIs` (or a subclass that sets ``REMOVED``). Reported are

- ``import a.removed`` / ``import a.removed as r`` and ``from a.removed import x`` / ``from a import removed``: at the
  imported name, once per statement and message (so uses of the names such an import binds — ``a.removed.x`` after
  ``import a.removed`` — are not reported again);
- ``a.removed.x`` reached through an import that is not itself removed (``import torchaudio`` …
  ``torchaudio.info(p)``): at the whole chain, whose most specific entry gives the message.

Version-gated code (``try: … except ImportError``, ``if hasattr(…)``) and suppressed lines are left alone, as for every
pass.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import libcst as cst

from torchmigrate.core.passes import Analyser
from torchmigrate.python.helpers import chain_root, dotted_name
from torchmigrate.python.sites import AstFile, Site, analyser, children_in_source_order
from torchmigrate.python.transform import PassTransformer

__all__ = ["RemovedAPIs", "removed_analyser", "removed_message"]


def removed_message(qualname: str, removed: Mapping[str, str]) -> str | None:
    """The message of the longest entry of ``removed`` that is ``qualname`` or a module above it."""
    best: str | None = None
    for key in removed:
        if (qualname == key or qualname.startswith(key + ".")) and (best is None or len(key) > len(best)):
            best = key
    return None if best is None else removed[best]


class RemovedAPIs(PassTransformer):
    """Reports imports and uses of the names in ``REMOVED`` (subclasses set it; give the pass ``qualnames=`` its keys)."""

    REMOVED: ClassVar[Mapping[str, str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reported_imports: set[str] = set()  # `import a.removed` (no alias): uses of `a.removed.x` are covered

    def message(self, qualname: str | None) -> str | None:
        return removed_message(qualname, self.REMOVED) if qualname else None

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            text = self.message(full)
            if text is not None:
                self.finding(alias, f"import {full}: {text}")
                if alias.asname is None:
                    self._reported_imports.add(full)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or node.module is None:
            return False
        module = dotted_name(node.module) or ""
        if isinstance(node.names, cst.ImportStar):
            text = self.message(module)
            if text is not None:
                self.finding(node, f"from {module} import *: {text}")
            return False
        grouped: dict[str, list[tuple[cst.ImportAlias, str]]] = {}  # one finding per message: `from m import a, b`
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            text = self.message(f"{module}.{name}")
            if text is not None:
                grouped.setdefault(text, []).append((alias, name))
        for text, aliases in grouped.items():
            names = ", ".join(name for _, name in aliases)
            self.finding(aliases[0][0], f"from {module} import {names}: {text}")
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = self.qualname(node)
        text = self.message(name)
        if name is None or text is None:
            return True
        root = chain_root(node)
        if root is None or self.message(self.qualname(root)) is not None:
            return False  # not a dotted name (`f(x).attr`), or bound by an import of the removed name: reported there
        if any(name == full or name.startswith(full + ".") for full in self._reported_imports):
            return False  # `import a.removed` … `a.removed.x`: reported at the import
        self.finding(node, f"{name}: {text}")  # the whole chain: the most specific entry names the replacement
        return False


def removed_analyser(pass_id: str, removed: Mapping[str, str]) -> Analyser:
    """``Pass.analyse`` for a pass that uses :class:`RemovedAPIs` with ``removed`` and nothing else (no ``renames``,
    no call rewriters): its findings, exactly, from the stdlib ast (it never edits, so a file reaches libcst for it
    only where a statement may be a version guard by the transformers' fuller rule)."""

    def detect(file: AstFile) -> Iterator[Site]:
        reported: set[str] = set()

        def message(qualname: str | None) -> str | None:
            return removed_message(qualname, removed) if qualname else None

        stack: list[ast.AST] = [file.tree]
        while stack:
            node = stack.pop()
            if file.is_version_guard(node):
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    text = message(alias.name)
                    if text is not None:
                        yield file.finding(alias, f"import {alias.name}: {text}")
                        if alias.asname is None:
                            reported.add(alias.name)
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level or node.module is None:
                    continue
                if len(node.names) == 1 and node.names[0].name == "*":
                    text = message(node.module)
                    if text is not None:
                        yield file.finding(node, f"from {node.module} import *: {text}")
                    continue
                grouped: dict[str, list[ast.alias]] = {}
                for alias in node.names:
                    text = message(f"{node.module}.{alias.name}")
                    if text is not None:
                        grouped.setdefault(text, []).append(alias)
                for text, aliases in grouped.items():
                    names = ", ".join(alias.name for alias in aliases)
                    yield file.finding(aliases[0], f"from {node.module} import {names}: {text}")
                continue
            if isinstance(node, ast.Attribute):
                name = file.qualname(node)
                text = message(name)
                if name is not None and text is not None:
                    root = node.value
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    if not isinstance(root, ast.Name) or message(file.qualname(root)) is not None:
                        continue  # not a dotted name, or bound by an import of the removed name: reported there
                    if any(name == full or name.startswith(full + ".") for full in reported):
                        continue  # `import a.removed` … `a.removed.x`: reported at the import
                    yield file.finding(node, f"{name}: {text}")
                    continue
            stack.extend(reversed(children_in_source_order(node)))

    return analyser(pass_id, detect, exact=True)

