"""The few git operations a bulk migration needs: find the work tree, check it is clean, branch, commit.

Every call runs ``git`` with hooks switched off (``core.hooksPath`` pointing at the null device, where no hook can be
found, and ``--no-verify``): a repository's hooks are its own code, and torchmigrate never runs user code.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["GitError", "branch_exists", "commit", "create_branch", "dirty_files", "head", "toplevel"]


class GitError(Exception):
    """A git command failed; the message is git's own."""


_NO_HOOKS = os.devnull


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    proc = subprocess.run(
        ["git", "-c", f"core.hooksPath={_NO_HOOKS}", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    if check and proc.returncode != 0:
        message = (proc.stderr or proc.stdout).strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed with exit {proc.returncode}")
    return proc


def toplevel(path: Path) -> Path | None:
    """The top of the git work tree ``path`` lies in, or ``None``."""
    folder = path if path.is_dir() else path.parent
    try:
        proc = git(folder, "rev-parse", "--show-toplevel", check=False)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    return Path(proc.stdout.strip())


def dirty_files(repo: Path) -> list[str]:
    """Tracked files with uncommitted changes (staged or not). Untracked files do not count: a commit never takes them."""
    proc = git(repo, "status", "--porcelain", "--untracked-files=no")
    return [line[3:] for line in proc.stdout.splitlines() if line.strip()]


def branch_exists(repo: Path, name: str) -> bool:
    return git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}", check=False).returncode == 0


def create_branch(repo: Path, name: str) -> None:
    """Create ``name`` at HEAD and switch to it, keeping the work tree's changes."""
    git(repo, "switch", "--quiet", "-c", name)


def commit(repo: Path, files: Sequence[Path], message: str) -> str:
    """Commit exactly ``files`` (nothing else that may be staged) and return the new commit's hash."""
    relative = [os.path.relpath(os.path.realpath(f), os.path.realpath(repo)) for f in files]
    git(repo, "add", "--", *relative)
    git(repo, "commit", "--quiet", "--no-verify", "-m", message, "--", *relative)
    return head(repo)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()
