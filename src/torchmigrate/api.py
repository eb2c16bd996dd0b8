"""The Python API that scripts use.

>>> from torchmigrate import migrate_source
>>> migrate_source("import torch\\nep = torch.export.export_for_training(m, (x,))\\n", to="2.12").code
'import torch\\nep = torch.export.export(m, (x,))\\n'
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

from torchmigrate.core.results import FileResult, Report
from torchmigrate.core.versions import Version
from torchmigrate.run.cache import CacheSet
from torchmigrate.run.plan import ProjectReads, make_options, plan_tasks, selection_warnings
from torchmigrate.run.runner import run_tasks

__all__ = ["make_options", "migrate_paths", "migrate_source", "plan_tasks"]


def migrate_source(
    code: str,
    to: str | Version,
    from_: str | Version | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    path: str = "<string>",
    unsafe_fixes: bool = False,
    min_torch: str | Version | None = None,
) -> FileResult:
    """Migrate one source text. The result has ``.code``, ``.edits``, ``.findings`` and ``.error``.

    ``unsafe_fixes``: apply the edits of ``review`` passes too (ruff's unsafe fixes); without it each one is a finding
    whose ``fix`` holds the suggested change. ``min_torch``: the support floor, the oldest torch the code must still
    run on (default: ``to``); an edit whose new form needs a newer torch is a finding instead."""
    options = make_options(to, from_, select, ignore, unsafe_fixes, min_torch)
    from torchmigrate.python.engine import migrate_text  # libcst is imported only when something is migrated

    return migrate_text(code, options.passes(), path, gate=options.gate())


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
    unsafe_fixes: bool = False,
    min_torch: str | Version | None = None,
) -> Report:
    """Migrate every Python file, notebook and project file under ``paths``; write changes only when ``write`` is true.

    ``unsafe_fixes``: apply ``review`` edits too (else each is a finding with its suggested change). ``min_torch``: the
    support floor; by default each PATH's torch requirements as the migration leaves them set it (else ``to``).

    ``jobs``: worker processes (``None``: one per CPU; 1: this process). ``cache``: use and update
    ``.torchmigrate_cache/`` at each PATH's project root. ``executor="ray"`` runs the work as Ray tasks
    (``ray_address`` or ``RAY_ADDRESS``; a local Ray when unset). Results are the same whatever these say.
    """
    options = make_options(to, from_, select, ignore, unsafe_fixes, min_torch)
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    caches = CacheSet() if cache else None
    reads = ProjectReads(caches)  # each project's files are read once for the warnings and the plan
    for root in paths:
        for line in selection_warnings(root, options, detect_from=from_ is None, reads=reads):
            warnings.warn(line, UserWarning, stacklevel=2)
    tasks = plan_tasks(paths, options, detect_from=from_ is None, reads=reads)
    results = run_tasks(tasks, write=write, jobs=jobs, cache=cache, executor=executor, ray_address=ray_address, caches=caches)
    return Report.of(results)
