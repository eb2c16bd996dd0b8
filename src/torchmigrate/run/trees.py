"""Which PATHs of a run are one repository.

A folder named on the command line is a repository of its own (``migrate repoA repoB``). Files named one by one — as
pre-commit names them — are grouped by the tree they lie in (the top of their git work tree, else the first folder
upwards with a ``pyproject.toml``, else their folder: the cache's project root), so that 60 staged files of one
repository are one repository, not 60. Files of one tree are grouped only when the same configuration applies to
them; a lone file keeps its own name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from torchmigrate.run.cache import project_root
from torchmigrate.run.config import RootPlan

__all__ = ["Repository", "repositories"]


@dataclass(frozen=True)
class Repository:
    """A repository of the run: the PATH shown for it and the plans (PATHs of the command line) it holds."""

    root: Path
    plans: tuple[RootPlan, ...]


def _shown(tree: Path) -> Path:
    relative = os.path.relpath(tree, Path.cwd())
    return Path(relative) if not relative.startswith("..") else tree


def repositories(plans: Sequence[RootPlan]) -> list[Repository]:
    """The run's repositories, in the order of their first PATH."""
    order: list[object] = []
    members: dict[object, list[RootPlan]] = {}
    trees: dict[object, Path] = {}
    roots: dict[Path, Path] = {}  # folder → its tree (one lookup per folder)
    for number, plan in enumerate(plans):
        key: object
        if plan.root.is_dir():
            key = ("folder", number)
        else:
            folder = Path(os.path.abspath(plan.root)).parent
            if folder not in roots:
                roots[folder] = project_root(folder)
            tree = roots[folder]
            key = ("tree", tree, plan.config, plan.options, plan.detect_from)
            trees[key] = tree
        if key not in members:
            order.append(key)
            members[key] = []
        members[key].append(plan)
    out = []
    for key in order:
        group = members[key]
        root = group[0].root if len(group) == 1 else _shown(trees[key])
        out.append(Repository(root, tuple(group)))
    return out
