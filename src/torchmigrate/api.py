"""The Python API that scripts use.

>>> from torchmigrate import migrate_source
>>> migrate_source("import torch\\nep = torch.export.export_for_training(m, (x,))\\n", to="2.12").code
'import torch\\nep = torch.export.export(m, (x,))\\n'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from torchmigrate.cache import project_root
from torchmigrate.files import discover
from torchmigrate.passes import Options, unknown_ids
from torchmigrate.report import Report
from torchmigrate.results import FileResult
from torchmigrate.runner import Task, run_tasks
from torchmigrate.versions import OLDEST, Version, VersionError, detect_pinned_version, parse_version

__all__ = ["make_options", "migrate_paths", "migrate_source", "plan_tasks", "root_options"]


def make_options(
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
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
    return Options(to=target, from_=start, select=chosen, ignore=ignored)


def migrate_source(
    code: str,
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    path: str = "<string>",
) -> FileResult:
    """Migrate one source text. The result has ``.code``, ``.edits``, ``.findings`` and ``.error``."""
    options = make_options(to, from_, select, ignore)
    from torchmigrate.engine import migrate_text  # libcst is imported only when something is migrated

    return migrate_text(code, options.passes(), path)


def root_options(root: str | os.PathLike[str], options: Options, detect_from: bool) -> Options:
    """``options`` for one PATH: with ``detect_from``, ``--from`` comes from the torch pin found for it."""
    if detect_from:
        pinned = detect_pinned_version(Path(root))
        if pinned is not None and pinned <= options.to:
            return Options(options.to, pinned, options.select, options.ignore)
    return options


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


def migrate_paths(
    paths: Sequence[str | os.PathLike[str]],
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    write: bool = False,
    jobs: int | None = 1,
    cache: bool = False,
    executor: str = "local",
    ray_address: str | None = None,
) -> Report:
    """Migrate every Python file, notebook and project file under ``paths``; write changes only when ``write`` is true.

    ``jobs``: worker processes (``None``: one per CPU; 1: this process). ``cache``: use and update
    ``.torchmigrate_cache/`` at each PATH's project root. ``executor="ray"`` runs the work as Ray tasks
    (``ray_address`` or ``RAY_ADDRESS``; a local Ray when unset). Results are the same whatever these say.
    """
    options = make_options(to, from_, select, ignore)
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    tasks = plan_tasks(paths, options, detect_from=from_ is None)
    return Report.of(run_tasks(tasks, write=write, jobs=jobs, cache=cache, executor=executor, ray_address=ray_address))
