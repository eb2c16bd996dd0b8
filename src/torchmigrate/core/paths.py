"""Where a project starts: the folder its files are read and cached relative to, and the cache folder's name.

Standard library only, and pathlib loaded on first use: the replay of an unchanged run
(:mod:`torchmigrate.run.replay`) looks for its record here before anything else loads.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's (see torchmigrate.run.replay)
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["CACHE_DIR", "project_root", "project_root_of"]

CACHE_DIR = ".torchmigrate_cache"
"""The cache folder, in each project root."""


def project_root_of(path: str) -> str:
    """The git top of ``path``, else the first folder upwards with ``pyproject.toml``, else ``path`` (or its folder)."""
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    candidates = [folder]
    while True:
        parent = os.path.dirname(candidates[-1])
        if parent == candidates[-1]:
            break
        candidates.append(parent)
    for candidate in candidates:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "pyproject.toml")):
            return candidate
    return folder


def project_root(path: Path) -> Path:
    """:func:`project_root_of` as a ``Path``."""
    from pathlib import Path

    return Path(project_root_of(os.fspath(path)))
