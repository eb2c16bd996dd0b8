"""Where a project starts: the folder its files are read and cached relative to."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["project_root"]


def project_root(path: Path) -> Path:
    """The git top of ``path``, else the first folder upwards with ``pyproject.toml``, else ``path`` (or its folder)."""
    start = Path(os.path.abspath(path))
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate
    return folder
