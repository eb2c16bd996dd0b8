"""Planning a run: validated options, and one task per file under each PATH with that PATH's own ``--from``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from torchmigrate.core.registry import Options, unknown_ids, unrunnable
from torchmigrate.core.versions import OLDEST, Version, VersionError, parse_version
from torchmigrate.project.detect import ci_tested_floor, declared_floor, detect_pinned_version, detect_support_floor
from torchmigrate.run.cache import project_root
from torchmigrate.run.codestyle import detect_layout
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
    """:func:`root_options` once per project folder in a run.

    What it reads (requirements, CI files, lint and format configuration) depends only on the folder of a PATH (the
    PATH itself, or a file's folder) and its parents, so PATHs of one folder share one reading, and a run's
    repositories are read once each, before anything is written (a PATH planned after another PATH's files were
    written reads the project as the user left it, whatever the order of the PATHs)."""

    def __init__(self) -> None:
        self._chosen: dict[tuple[Path, Options, bool], Options] = {}

    def options(self, root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
        """:func:`root_options` of ``root``, read on the first call for its folder."""
        start = Path(os.path.abspath(root))
        key = (start if start.is_dir() else start.parent, options, detect_from)
        chosen = self._chosen.get(key)
        if chosen is None:
            chosen = self._chosen[key] = root_options(root, options, detect_from)
            # what is read is settled in ``chosen``: reading the folder again with it gives it back
            self._chosen.setdefault((key[0], chosen, False), chosen)
        return chosen


def root_options(root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
    """``options`` for one PATH: with ``detect_from``, ``--from`` comes from the torch pin found for it; the project's
    declared torch floor (after migration) is read for the project file passes; without a ``min_torch``, the support
    floor comes from its torch requirements as the migration leaves them; the layout (line length, formatter) comes
    from the project's lint and format configuration."""
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
