"""Planning a run: validated options, and one task per file under each PATH with that PATH's own ``--from``."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from torchmigrate.core.registry import Layout, Options, unknown_ids, unrunnable
from torchmigrate.core.versions import OLDEST, Version, VersionError, parse_version
from torchmigrate.project.kinds import CI_GLOBS
from torchmigrate.run.cache import CACHE_DIR, CacheSet, options_fingerprint, project_root
from torchmigrate.run.files import discover
from torchmigrate.run.runner import Task


def make_options(
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    unsafe_fixes: bool = False,
    min_torch: str | Version | None = None,
    min_torch_source: str | None = None,
) -> Options:
    """Validated :class:`Options`; raises ``VersionError`` / ``ValueError`` with a one-line reason.

    ``min_torch``: the support floor (see :class:`~torchmigrate.core.registry.Options`); ``None`` reads it from each
    PATH's torch requirement (:func:`root_options`), else it is the target."""
    target = to if isinstance(to, Version) else parse_version(to)
    start = OLDEST if from_ is None else (from_ if isinstance(from_, Version) else parse_version(from_))
    if start > target:
        raise VersionError(f"--from {start} is above --to {target}: nothing can migrate backwards")
    chosen = None if select is None else frozenset(select)
    ignored = frozenset(ignore)
    unknown = unknown_ids([*(chosen or ()), *ignored])
    if unknown:
        raise ValueError(f"unknown pass id(s): {', '.join(unknown)} (see `migrate --list`)")
    _check_selection(chosen, start, target, explicit_from=from_ is not None)
    floor = None if min_torch is None else (min_torch if isinstance(min_torch, Version) else parse_version(min_torch))
    if floor is not None and floor > target:
        raise VersionError(f"--min-torch {floor} is above --to {target}: the migrated code targets torch {target}")
    return Options(
        to=target,
        from_=start,
        select=chosen,
        ignore=ignored,
        unsafe_fixes=unsafe_fixes,
        min_torch=floor,
        min_torch_source=(min_torch_source or f"--min-torch {floor}") if floor is not None else "",
    )



def _check_selection(chosen: frozenset[str] | None, start: Version, target: Version, explicit_from: bool) -> None:
    """``--select`` of a pass the run cannot apply is an error, never silence (for a ``--from`` read from a project's
    pins, :func:`selection_warnings` says it per PATH instead)."""
    skipped = unrunnable(chosen, from_=start, to=target)
    above = [p for p, _ in skipped if p.version > target]
    if above:
        named = ", ".join(f"{p.id} ({p.release})" for p in above)
        raise ValueError(f"--select names a pass above --to {target}: {named}; raise --to or drop it")
    if explicit_from and skipped:
        named = "; ".join(f"{p.id} ({why})" for p, why in skipped)
        raise ValueError(f"--select names a pass that --from {start} does not run: {named}; lower --from or drop it")


def selection_warnings(
    root: str | os.PathLike[str], options: Options, detect_from: bool, reads: ProjectReads | None = None
) -> list[str]:
    """Why a ``--select``ed pass does nothing under ``root``, whose ``--from`` comes from its torch pin (one line each).
    ``reads``: the run's project readings (else the project is read for this call)."""
    if not detect_from or not options.select:
        return []
    chosen = (reads or ProjectReads()).options(root, options, detect_from)
    return [
        f"--select {p.id} does nothing for {Path(root).as_posix()}: {why} (--from {chosen.from_} is read from its "
        f"torch requirement; pass --from explicitly to run it)"
        for p, why in unrunnable(chosen.select, from_=chosen.from_, to=chosen.to)
    ]


class ProjectReads:
    """:func:`root_options` once per project folder in a run, and across runs through the projects' caches.

    What it reads (requirements, CI files, lint and format configuration) depends only on the folder of a PATH (the
    PATH itself, or a file's folder) and its parents, so PATHs of one folder share one reading, and a run's
    repositories are read once each, before anything is written. With ``caches`` (the run's result caches), a
    reading is kept in the project's cache under the :func:`project_signature` of its folder and served while the
    signature holds: a warm run reads no CI file and never runs the project passes to see where a requirement would
    move."""

    def __init__(self, caches: CacheSet | None = None) -> None:
        self.caches = caches
        self._chosen: dict[tuple[Path, Options, bool], Options] = {}

    def options(self, root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
        """:func:`root_options` of ``root``, read on the first call for its folder."""
        start = Path(os.path.abspath(root))
        folder = start if start.is_dir() else start.parent
        key = (folder, options, detect_from)
        chosen = self._chosen.get(key)
        if chosen is None:
            chosen = self._chosen[key] = self._read(root, folder, options, detect_from)
            # what is read is settled in ``chosen``: reading the folder again with it gives it back
            self._chosen.setdefault((folder, chosen, False), chosen)
        return chosen

    def _read(self, root: str | os.PathLike[str], folder: Path, options: Options, detect_from: bool) -> Options:
        if self.caches is None:
            return root_options(root, options, detect_from)
        signature = project_signature(folder)
        if signature is None:  # a file changed a moment ago: a change in the same tick would not show
            return root_options(root, options, detect_from)
        cache = self.caches.for_root(project_root(folder))
        name = "|".join(
            (cache.tool_fingerprint(), options_fingerprint(options), str(detect_from), str(folder), os.getcwd())
        )
        stored = cache.project_get(name, signature)
        if stored is not None:
            try:
                return _from_reading(options, stored)
            except (ValueError, KeyError, TypeError):
                pass  # a damaged row is a miss
        chosen = root_options(root, options, detect_from)
        cache.project_put(name, signature, _reading(chosen))
        return chosen


# Subfolders of a project folder whose files the readers open: those of the CI files the support floor is read from.
_READ_SUBFOLDERS = tuple(sorted({str(PurePosixPath(glob).parent) for glob in CI_GLOBS} - {"."}))
# A file modified this recently (ns) may change again within the same timestamp tick: its reading is not kept.
_RACY_NS = 2_000_000_000


def project_signature(folder: Path, now_ns: int | None = None) -> str | None:
    """What :func:`root_options` can consult for ``folder``: from it up to the first folder holding ``.git`` (or the
    filesystem root), the names of the entries of each folder and the size and modification time of each file among
    them, and the same for its CI subfolders (``.github/workflows``, ``.circleci``); the cache folder is left out.
    ``None`` when a file among them was modified less than two seconds ago (as git treats a "racy" file: a change in
    the same tick of a coarse clock would leave its time as it is), so that such a reading is never kept or served."""
    digest = hashlib.sha256()
    newest = 0
    for candidate in (folder, *folder.parents):
        for place in (candidate, *(candidate / sub for sub in _READ_SUBFOLDERS)):
            try:
                entries = sorted(os.scandir(place), key=lambda entry: entry.name)
            except FileNotFoundError:
                digest.update(f"{place}|absent\n".encode())
                continue
            except NotADirectoryError:
                digest.update(f"{place}|not a folder\n".encode())
                continue
            except OSError:
                return None
            digest.update(f"{place}\n".encode())
            for entry in entries:
                if entry.name == CACHE_DIR:
                    continue
                try:
                    found = entry.stat()
                except OSError:
                    digest.update(f"{entry.name}|unreadable\n".encode())
                    continue
                if stat.S_ISDIR(found.st_mode):
                    digest.update(f"{entry.name}/\n".encode())
                    continue
                digest.update(f"{entry.name}|{found.st_size}|{found.st_mtime_ns}\n".encode())
                newest = max(newest, found.st_mtime_ns)
        if os.path.exists(candidate / ".git"):
            break
    if newest > (time.time_ns() if now_ns is None else now_ns) - _RACY_NS:
        return None
    return digest.hexdigest()


def _version(value: object) -> Version | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(part, int) for part in value):
        raise ValueError(f"not a version: {value!r}")
    return Version(value[0], value[1])


def _reading(chosen: Options) -> str:
    """What :func:`root_options` settles, as JSON: the fields it sets."""

    def version(value: Version | None) -> list[int] | None:
        return None if value is None else [value.major, value.minor]

    return json.dumps(
        {
            "from": version(chosen.from_),
            "project_floor": version(chosen.project_floor),
            "min_torch": version(chosen.min_torch),
            "min_torch_source": chosen.min_torch_source,
            "min_torch_kind": chosen.min_torch_kind,
            "line_length": chosen.layout.line_length,
            "formatter": chosen.layout.formatter,
        }
    )


def _from_reading(options: Options, text: str) -> Options:
    data = json.loads(text)
    start = _version(data["from"])
    line_length, formatter = data["line_length"], data["formatter"]
    if start is None or not isinstance(data["min_torch_source"], str) or not isinstance(data["min_torch_kind"], str):
        raise ValueError("not a reading")
    if not (line_length is None or isinstance(line_length, int)) or not (formatter is None or isinstance(formatter, str)):
        raise ValueError("not a layout")
    chosen = replace(
        options,
        from_=start,
        project_floor=_version(data["project_floor"]),
        min_torch=_version(data["min_torch"]),
        min_torch_source=data["min_torch_source"],
        min_torch_kind=data["min_torch_kind"],
        layout=Layout(line_length=line_length, formatter=formatter),
    )
    return options if chosen == options else chosen


def root_options(root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
    """``options`` for one PATH: with ``detect_from``, ``--from`` comes from the torch pin found for it; the project's
    declared torch floor (after migration) is read for the project file passes; without a ``min_torch``, the support
    floor comes from its torch requirements as the migration leaves them; the layout (line length, formatter) comes
    from the project's lint and format configuration."""
    # the readers (and their patterns) load here: a warm run whose readings the cache keeps never needs them
    from torchmigrate.project.detect import ci_tested_floor, declared_floor, detect_pinned_version, detect_support_floor
    from torchmigrate.run.codestyle import detect_layout

    chosen = options
    floor = declared_floor(Path(root), options.to)
    if floor != options.project_floor:
        chosen = replace(chosen, project_floor=floor)
    if detect_from:
        pinned = detect_pinned_version(Path(root))
        if pinned is not None and pinned <= options.to:
            chosen = replace(chosen, from_=pinned)
    if options.min_torch is None:
        moved = "torch-pin" not in options.ignore and (options.select is None or "torch-pin" in options.select)
        # no declared torch requirement: the oldest torch its CI still installs is the floor it supports
        found = detect_support_floor(Path(root), options.to, moved=moved, migrate=_project_rewrite(chosen))
        kind = "requirement"
        if found is None:
            found, kind = ci_tested_floor(Path(root)), "ci"
        if found is not None:
            floor, source = found
            chosen = replace(chosen, min_torch=floor, min_torch_source=source, min_torch_kind=kind)
    layout = detect_layout(Path(root))
    return chosen if layout == chosen.layout else replace(chosen, layout=layout)


def _project_rewrite(options: Options) -> Callable[[Path, str], str]:
    """What this run writes into a project file (the project passes under the run's fix-safety gate). The passes load
    on the first call only: a project with no torch requirement (and a warm run's planning) never loads them."""

    def rewrite(path: Path, text: str) -> str:
        from torchmigrate.project.context import migrate_project_text

        passes = options.project_passes()
        result = migrate_project_text(text, path, passes, options.to, floor=options.project_floor, gate=options.gate())
        return result.new if result.error is None and result.new is not None else text

    return rewrite


def plan_tasks(
    paths: Sequence[str | os.PathLike[str]],
    options: Options,
    detect_from: bool,
    first_repo: int = 0,
    reads: ProjectReads | None = None,
) -> Iterator[Task]:
    """One task per source file under ``paths``; with ``detect_from``, ``--from`` comes from each root's torch pin.

    Each PATH is one repository for the runner: its files are tagged with its index and its cache's project root.
    ``reads``: the run's project readings, shared with whatever else in the run reads the same projects.
    """
    reads = reads or ProjectReads()
    for number, root in enumerate(paths, start=first_repo):
        root_path = Path(root)
        chosen = reads.options(root_path, options, detect_from)
        cache_root = project_root(root_path)
        stubbed: dict[Path, bool] = {}
        for path in discover([root_path]):
            if path != root_path and path.suffix == ".py" and _beside_torch_stubs(path.parent, stubbed):
                continue
            yield Task(path, chosen, number, cache_root)


def _beside_torch_stubs(folder: Path, seen: dict[Path, bool]) -> bool:
    """Whether ``folder`` holds a torch stub package of the project's own (``torch/__init__.pyi``): its Python files
    type-check those stubs (xformers' ``stubs/torch_stub_tests.py``, run by pyre, never by Python), so rewriting them
    for the real torch would break what they test. They are left alone."""
    found = seen.get(folder)
    if found is None:
        found = seen[folder] = (folder / "torch" / "__init__.pyi").is_file()
    return found
