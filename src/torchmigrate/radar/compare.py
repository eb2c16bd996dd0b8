"""The differences between two scans that can break user code, each a draft catalog row with file:line evidence."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from torchmigrate.radar.scan import DEPRECATION_CATEGORIES, Function, Param, Scan, is_public_module

__all__ = ["KINDS", "Change", "compare"]

# Every kind of change, in report order, with its heading.
KINDS: dict[str, str] = {
    "module-removed": "public modules that disappeared",
    "name-removed": "public names that disappeared",
    "stub": "functions that now only raise (removed, an error stub left in place)",
    "parameter": "signature changes of public functions (parameters removed, renamed, now keyword-only or required)",
    "default": "changed defaults of public functions",
    "deprecation": "new deprecation warnings",
    "category": "deprecation warnings whose category changed",
    "undeprecation": "deprecation warnings that are gone (the function stays)",
    "config-removed": "config keys removed or moved",
    "config-renamed": "config keys that became aliases of another key (renamed)",
    "config-deprecated": "config keys newly deprecated",
    "config-default": "config defaults changed",
    "raises": "new errors raised by existing public functions",
    "metadata": "package metadata (Requires-Python, dependencies)",
}


@dataclass(frozen=True)
class Change:
    kind: str
    name: str  # the API, in its public spelling
    detail: str  # one line for a maintainer
    old: str  # the catalog row's columns
    new: str
    status: str
    evidence: str
    rewrite: str
    uncertain: bool = False

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _at(scan: Scan, path: str, line: int) -> str:
    return f"{scan.label} {path}:{line}"


def compare(old: Scan, new: Scan) -> list[Change]:
    """Every change from ``old`` to ``new``, grouped by kind (see :data:`KINDS`), then by name."""
    found: list[Change] = []
    for producer in (_modules, _names, _members, _stubs, _signatures, _warnings, _config, _raises, _metadata):
        found.extend(producer(old, new))
    order = {kind: i for i, kind in enumerate(KINDS)}
    unique = {(c.kind, c.name, c.detail): c for c in found}
    return sorted(unique.values(), key=lambda c: (order[c.kind], c.name, c.detail))


# --- names ---------------------------------------------------------------------------------------------------------


def _modules(old: Scan, new: Scan) -> Iterator[Change]:
    gone = sorted(n for n, m in old.modules.items() if m.public and n not in new.modules)
    for name in gone:
        parent = name.rpartition(".")[0]
        if parent in gone:
            continue  # reported with its package
        if parent in new.modules and new.modules[parent].lazy:
            uncertain = True
        else:
            uncertain = False
        module = old.modules[name]
        yield Change("module-removed", name, f"module {name} is gone", f"import {name}", "-",
                     "REMOVED (ModuleNotFoundError)", _at(old, module.path, 1) + f" (no such file in {new.label})",
                     "report", uncertain)


def _relocated(old: Scan, new: Scan, module: str, name: str) -> str | None:
    """Where a name that left ``module`` can still be imported from: the module it was re-exported from."""
    target = old.modules[module].imports.get(name)
    if target:
        home, _, leaf = target.rpartition(".")
        if home in new.modules and leaf in new.modules[home].bound:
            return target
    return None


def _names(old: Scan, new: Scan) -> Iterator[Change]:
    """Public names of a module that the new release no longer binds: its ``__all__`` (or, without one, its public
    definitions and re-exports), and also public definitions and relocated re-exports that ``__all__`` leaves out —
    ``from torch.utils.cpp_extension import FileBaton`` worked whatever ``__all__`` said."""
    for name, module in sorted(old.modules.items()):
        after = new.modules.get(name)
        if not module.public or after is None or module.config:
            continue
        candidates = dict(module.exported)
        for local in (module.defined | set(module.imports)) - set(candidates):
            if not local.startswith("_") and local in module.bound:
                candidates[local] = module.bound[local]
        for local, line in sorted(candidates.items()):
            if local in after.bound or local in after.exported:
                continue
            qualname = f"{name}.{local}"
            home = _relocated(old, new, name, local)
            listed = local in module.exported
            if home:
                yield Change("name-removed", qualname, f"{qualname} is no longer re-exported; import it from {home}",
                             f"from {name} import {local}", f"from {home.rpartition('.')[0]} import {local}",
                             "re-export gone (ImportError)", _at(old, module.where(local), line) + f" (not bound in {new.label})",
                             "rename import (safe)")
            elif listed or local in module.defined:
                note = "" if listed else " (it was not in __all__)"
                yield Change("name-removed", qualname, f"{qualname} is gone{note}", qualname, "-",
                             "REMOVED (AttributeError/ImportError)",
                             _at(old, module.where(local), line) + f" (not bound in {new.label})", "report",
                             uncertain=after.lazy)


def _members(old: Scan, new: Scan) -> Iterator[Change]:
    for cls in sorted(old.classes):
        if cls not in new.classes or not (old.is_public(cls) or new.is_public(cls)):
            continue
        module = cls.rpartition(".")[0]
        while module and module not in old.modules:
            module = module.rpartition(".")[0]
        if module in old.modules and old.modules[module].config:
            continue  # a namespace of config keys
        before, after = old.members(cls), new.members(cls)
        for member, line in sorted(before.items()):
            if member.startswith("_") or member in after:
                continue
            shown = f"{new.shown(cls)}.{member}"
            path = old.modules[module].path if module in old.modules else "?"
            yield Change("name-removed", shown, f"{shown} is gone (a member of {cls})", shown, "-",
                         "REMOVED (AttributeError)", _at(old, path, line) + f" (not in {new.label})", "report")


def _stubs(old: Scan, new: Scan) -> Iterator[Change]:
    def stub_of(scan: Scan, fn: Function | None, depth: int = 0) -> str | None:
        if fn is None or depth > 3:
            return None
        if fn.stub:
            return fn.stub
        return stub_of(scan, scan.functions.get(fn.wraps or ""), depth + 1) if fn.wraps else None

    for qualname, fn in sorted(new.functions.items()):
        error = stub_of(new, fn)
        if error is None or not (new.is_public(qualname) or old.is_public(qualname)):
            continue
        before = old.functions.get(qualname)
        if before is not None and stub_of(old, before):
            continue
        shown = new.shown(qualname)
        how = "raises" if fn.stub else f"calls {new.shown(fn.wraps or '')}, which raises"
        yield Change("stub", shown, f"{shown} now {how} {error}", f"{shown}(...)", _hint(error, new.package, shown),
                     "REMOVED (error stub)", _at(new, fn.path, fn.line), "rewrite (see the message)")


def _hint(message: str, package: str, shown: str) -> str:
    """The replacement an error stub's message names: after "use" / "in favor of", else the first other API of the
    package it spells."""
    text = message.split(":", 1)[-1]
    named = _replacement(text)
    if named != "-":
        return named
    for match in re.finditer(rf"`?({re.escape(package)}\.[A-Za-z_][\w.]*)", text):
        if match.group(1).rstrip(".") != shown:
            return match.group(1).rstrip(".")
    return "-"


def _signatures(old: Scan, new: Scan) -> Iterator[Change]:
    for qualname, after in sorted(new.functions.items()):
        before = old.functions.get(qualname)
        if before is None or before.overload or after.overload or after.stub or after.local:
            continue
        if not (new.is_public(qualname) or old.is_public(qualname)):
            continue
        yield from _parameters(old, new, before, after)


def _moved(before: tuple[Param, ...], after: tuple[Param, ...], name: str, added: set[str]) -> str | None:
    """How a positional parameter's place changed for positional callers, if it did: its rank among the parameters
    both versions have, or a new parameter inserted before it (a removal before it is reported as the removal)."""
    positional = ("pos", "posonly")
    common = [p.name for p in before if p.kind in positional and any(q.name == p.name for q in after)]
    common_after = [q.name for q in after if q.kind in positional and q.name in common]
    if common.index(name) != common_after.index(name):
        return f"moved from position {common.index(name)} to {common_after.index(name)} among the others"
    inserted = []
    for q in after:
        if q.name == name:
            break
        if q.kind in positional and q.name in added:
            inserted.append(q.name)
    if inserted:
        return f"is now behind the new positional parameter(s) {', '.join(inserted)}"
    return None


def _parameters(old: Scan, new: Scan, before: Function, after: Function) -> Iterator[Change]:
    shown = new.shown(after.qualname)
    was = {p.name: (i, p) for i, p in enumerate(before.params)}
    now = {p.name: (i, p) for i, p in enumerate(after.params)}
    named = ("pos", "posonly", "kwonly")
    removed = [p for p in before.params if p.name not in now and p.kind in named]
    added = [p for p in after.params if p.name not in was and p.kind in named]
    takes_kwargs = any(p.kind == "**" for p in after.params)
    evidence = f"{_at(old, before.path, before.line)} -> {_at(new, after.path, after.line)}"
    renamed: dict[str, Param] = {}
    for p in removed:
        index = was[p.name][0]
        taken = {r.name for r in renamed.values()}
        partner = next((a for a in added if a.kind == p.kind and a.name not in taken
                        and abs(now[a.name][0] - index) <= 1), None)
        if partner is None and len(removed) == 1 and len(added) == 1 and added[0].kind == p.kind:
            partner = added[0]
        if partner is not None:
            renamed[p.name] = partner
            yield Change("parameter", shown, f"{shown}: parameter {p.name} renamed to {partner.name}",
                         f"{shown}({p.name}=...)", f"{shown}({partner.name}=...)", "RENAMED (TypeError)", evidence,
                         "rename keyword (safe)")
        else:
            status = "REMOVED (goes to **kwargs)" if takes_kwargs else "REMOVED (TypeError)"
            yield Change("parameter", shown, f"{shown}: parameter {p.name} removed", f"{shown}({p.name}=...)",
                         f"{shown}()", status, evidence, "drop keyword or report")
    for a in added:
        if a.name in {r.name for r in renamed.values()}:
            continue
        if a.default is None and a.kind in named:
            yield Change("parameter", shown, f"{shown}: new required parameter {a.name}", f"{shown}(...)",
                         f"{shown}(..., {a.name}=...)", "new required parameter (TypeError)", evidence, "report")
    for name, (_, p) in was.items():
        if name not in now:
            continue
        q = now[name][1]
        if p.kind in ("pos", "posonly") and q.kind == "kwonly":
            yield Change("parameter", shown, f"{shown}: parameter {name} is now keyword-only", f"{shown}(..., <{name}>)",
                         f"{shown}(..., {name}=...)", "keyword-only (TypeError when positional)", evidence,
                         "pass by keyword (safe)")
        if p.kind == q.kind and p.kind in ("pos", "posonly"):
            moved = _moved(before.params, after.params, name, {a.name for a in added} - set(r.name for r in renamed.values()))
            if moved:
                yield Change("parameter", shown, f"{shown}: parameter {name} {moved}", f"{shown}(<positional {name}>)",
                             f"{shown}({name}=...)", "positional order changed", evidence, "pass by keyword (safe)")
        if p.default is not None and q.default is not None and p.default != q.default:
            yield Change("default", shown, f"{shown}: default of {name} changed from {p.default} to {q.default}",
                         f"{shown}() # {name}={p.default}", f"{shown}() # {name}={q.default}", "behaviour change",
                         evidence, f"pass {name}={p.default} to keep the old behaviour (report)")


# --- warnings, errors -------------------------------------------------------------------------------------------


def _warnings(old: Scan, new: Scan) -> Iterator[Change]:
    before = {w.key: w for w in old.warnings}
    before_messages = {w.message for w in old.warnings}
    after = {w.key: w for w in new.warnings}
    for key, w in sorted(after.items()):
        shown = _scope_name(new, w.scope)
        if key in before:
            if before[key].category != w.category and w.category in DEPRECATION_CATEGORIES | {before[key].category}:
                yield Change("category", shown, f"{shown}: {before[key].category} -> {w.category}: {_short(w.message)}",
                             shown, "-", f"{before[key].category} -> {w.category}", _at(new, w.path, w.line), "report")
            continue
        if w.message in before_messages and any(b.message == w.message and b.scope.startswith(w.scope.rsplit(".", 1)[0])
                                                for b in old.warnings):
            continue  # moved within the same module or class
        yield Change("deprecation", shown, f"{shown}: {w.category}: {_short(w.message)}", shown, _replacement(w.message),
                     f"deprecated ({w.category})", _at(new, w.path, w.line), "report, or rewrite per the message")
    after_messages = {w.message for w in new.warnings}
    for key, w in sorted(before.items()):
        scope = w.scope
        if key in after or w.message in after_messages or w.category not in DEPRECATION_CATEGORIES:
            continue
        if scope in new.functions and scope in old.functions and not new.functions[scope].stub:
            shown = _scope_name(new, scope)
            yield Change("undeprecation", shown, f"{shown} no longer warns: {_short(w.message)}", shown, shown,
                         "un-deprecated", _at(old, w.path, w.line) + f" (gone in {new.label})",
                         "revisit passes that migrate away from it")


def _scope_name(scan: Scan, scope: str) -> str:
    return scan.shown(scope)


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _replacement(message: str) -> str:
    """The API a warning points to ("use `torch.compile`", "in favor of torch.linalg.qr"): a name in backticks, or a
    dotted one; plain words ("use a list instead") are not names."""
    pattern = r"(?:use|in favou?r of|replaced (?:with|by)|switch to)\s+(`[A-Za-z_][\w.]*(?:\(\))?`|[A-Za-z_]\w*\.[\w.]+)"
    match = re.search(pattern, message, re.IGNORECASE)
    return match.group(1).strip("`").rstrip(".") if match else "-"


def _raises(old: Scan, new: Scan) -> Iterator[Change]:
    before = {(r.scope, r.exception, r.message) for r in old.raises}
    before_messages = {(r.exception, r.message) for r in old.raises}
    for r in sorted(new.raises, key=lambda r: (r.scope, r.line)):
        if (r.scope, r.exception, r.message) in before or (r.exception, r.message) in before_messages:
            continue
        fn = new.functions.get(r.scope)
        if fn is None or fn.stub or r.scope not in old.functions or old.functions[r.scope].stub:
            continue
        if not (new.is_public(r.scope) or old.is_public(r.scope)):
            continue
        shown = new.shown(r.scope)
        yield Change("raises", shown, f"{shown} now raises {r.exception}: {_short(r.message)}", shown, "-",
                     f"now {r.exception}", _at(new, r.path, r.line), "report")


# --- config, metadata ----------------------------------------------------------------------------------------------


def _config(old: Scan, new: Scan) -> Iterator[Change]:
    for name, key in sorted(old.config.items()):
        after = new.config.get(name)
        if after is None:
            if key.module not in new.modules:
                continue  # the whole module went: reported as a module
            leaf = key.key.rpartition(".")[2]
            moved = sorted((k.name for k in new.config.values() if k.module == key.module and k.key.rpartition(".")[2] == leaf),
                           key=lambda n: (n in old.config, n))
            if moved:
                yield Change("config-removed", name, f"{name} moved to {moved[0]}", f"{name} = v", f"{moved[0]} = v",
                             "MOVED (AttributeError)", _at(old, key.path, key.line) + f" -> {_at(new, *_where(new, moved[0]))}",
                             "rename (safe)")
            else:
                yield Change("config-removed", name, f"{name} removed", f"{name} = v", "-", "REMOVED (AttributeError)",
                             _at(old, key.path, key.line) + f" (gone in {new.label})", "report")
            continue
        evidence = _at(new, after.path, after.line)
        if after.alias and after.alias != key.alias:
            yield Change("config-renamed", name, f"{name} is now an alias of {after.alias}"
                         + (" (deprecated)" if after.deprecated else ""), f"{name} = v", f"{after.alias} = v",
                         "deprecated alias" if after.deprecated else "alias", evidence, "rename (safe)")
        elif after.deprecated and not key.deprecated:
            note = f": {after.message}" if after.message else ""
            yield Change("config-deprecated", name, f"{name} is deprecated{note}", f"{name} = v",
                         "delete" if "not do anything" in (after.message or "") or "no-op" in (after.message or "") else "-",
                         "deprecated", evidence, "delete (no-op) or report")
        if (key.default is not None and after.default is not None and key.default != after.default
                and not after.alias and not key.alias):
            yield Change("config-default", name, f"{name}: default {key.default} -> {after.default}",
                         f"{name} # default {key.default}", f"{name} # default {after.default}", "default changed",
                         evidence, "report")


def _where(scan: Scan, name: str) -> tuple[str, int]:
    key = scan.config[name]
    return key.path, key.line


def _metadata(old: Scan, new: Scan) -> Iterator[Change]:
    evidence = f"METADATA of {old.label} and {new.label}"
    for field in ("Requires-Python",):
        a, b = old.metadata.get(field), new.metadata.get(field)
        if a != b and (a or b):
            yield Change("metadata", field, f"{field}: {', '.join(a or ['-'])} -> {', '.join(b or ['-'])}",
                         f"{field}: {', '.join(a or ['-'])}", f"{field}: {', '.join(b or ['-'])}", "changed", evidence,
                         "project files (report)")
    a_deps = _requirements(old.metadata.get("Requires-Dist", []))
    b_deps = _requirements(new.metadata.get("Requires-Dist", []))
    for dep in sorted(set(a_deps) | set(b_deps)):
        if a_deps.get(dep) != b_deps.get(dep):
            yield Change("metadata", f"Requires-Dist {dep}", f"{dep}: {a_deps.get(dep, '-')} -> {b_deps.get(dep, '-')}",
                         f"{dep} {a_deps.get(dep, '-')}", f"{dep} {b_deps.get(dep, '-')}", "changed", evidence,
                         "none (informational)")


def _requirements(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)(.*)", line)
        if match:
            found[match.group(1).lower()] = match.group(2).strip() or "(any)"
    return found


def public_module_count(scan: Scan) -> int:
    return sum(1 for name in scan.modules if is_public_module(name))
