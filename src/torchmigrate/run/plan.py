"""Planning a run: validated options, and one task per file under each PATH with that PATH's own ``--from``."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from torchmigrate.core.registry import Options, unknown_ids
from torchmigrate.core.versions import OLDEST, Version, VersionError, parse_version
from torchmigrate.project.detect import detect_pinned_version
from torchmigrate.run.cache import project_root
from torchmigrate.run.codestyle import detect_layout
from torchmigrate.run.files import discover
from torchmigrate.run.runner import Task


def make_options(
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    unsafe_fixes: bool = True,
) -> Options:
    """Validated :class:`Options`; raises ``VersionError`` / ``ValueError`` with a one-line reason."""
    target = to if isinstance(to, Version) else parse_version(to)
    start = OLDEST if from_ is None else (from_ if isinstance(from_, Version) else parse_version(from_))
    if start > target:
        raise VersionError(f"--from {start} is above --to {target}: nothing can migrate backwards")
    chosen = None if select is None else frozenset(select)
    ignored = frozenset(ignore)
    unknown = unknown_ids([*(chosen or ()), *ignored])
    if unknown:
        raise ValueError(f"unknown pass id(s): {', '.join(unknown)} (see `migrate --list`)")
    return Options(to=target, from_=start, select=chosen, ignore=ignored, unsafe_fixes=unsafe_fixes)



def root_options(root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
    """``options`` for one PATH: with ``detect_from``, ``--from`` comes from the torch pin found for it; the layout
    (line length, formatter) comes from the project's lint and format configuration."""
    if detect_from:
        pinned = detect_pinned_version(Path(root))
        if pinned is not None and pinned <= options.to:
            options = replace(options, from_=pinned)
    layout = detect_layout(Path(root))
    return options if layout == options.layout else replace(options, layout=layout)



def plan_tasks(
    paths: Sequence[str | os.PathLike[str]], options: Options, detect_from: bool, first_repo: int = 0
) -> Iterator[Task]:
    """One task per source file under ``paths``; with ``detect_from``, ``--from`` comes from each root's torch pin.

    Each PATH is one repository for the runner: its files are tagged with its index and its cache's project root.
    """
    for number, root in enumerate(paths, start=first_repo):
        root_path = Path(root)
        chosen = root_options(root_path, options, detect_from)
        cache_root = project_root(root_path)
        for path in discover([root_path]):
            yield Task(path, chosen, number, cache_root)
