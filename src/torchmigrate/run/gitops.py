"""The few git operations a bulk migration needs: find the work tree, check it is clean, branch, commit.

Every call runs ``git`` with hooks switched off (``core.hooksPath`` pointing at the null device, where no hook can be
found, and ``--no-verify``): a repository's hooks are its own code, and torchmigrate never runs user code.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = [
    "GitError",
    "branch_exists",
    "changed_against_head",
    "commit",
    "commit_contents",
    "create_branch",
    "dirty_files",
    "head",
    "reset_index",
    "toplevel",
]


class GitError(Exception):
    """A git command failed; the message is git's own."""


_NO_HOOKS = os.devnull


def git(
    repo: Path, *args: str, check: bool = True, env_extra: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env_extra or {})}
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


def commit_contents(repo: Path, contents: Mapping[str, bytes], message: str) -> str:
    """Commit ``contents`` (path relative to the top → the file's bytes) on top of HEAD and move the branch there;
    the new commit's hash. Neither the work tree nor the index is touched: the tree is built in a temporary index, the
    bytes go through git's clean filters as ``git add`` would take them (``hash-object --path``)."""
    with tempfile.TemporaryDirectory(prefix="torchmigrate-git-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        parent = git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
        if parent:
            git(repo, "read-tree", parent, env_extra=env)
        for number, (relative, data) in enumerate(sorted(contents.items())):
            blob_file = os.path.join(tmp, f"blob{number}")
            with open(blob_file, "wb") as handle:
                handle.write(data)
            blob = git(repo, "hash-object", "-w", f"--path={relative}", blob_file).stdout.strip()
            mode = _mode(repo, relative, env)
            git(repo, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{relative}", env_extra=env)
        tree = git(repo, "write-tree", env_extra=env).stdout.strip()
        message_file = os.path.join(tmp, "message")
        with open(message_file, "w", encoding="utf-8") as handle:
            handle.write(message)
        made = git(repo, "commit-tree", tree, *(["-p", parent] if parent else []), "-F", message_file).stdout.strip()
        git(repo, "update-ref", "-m", "torchmigrate: commit per pass", "HEAD", made, *([parent] if parent else []))
    return made


def _mode(repo: Path, relative: str, env: Mapping[str, str]) -> str:
    """The file mode the index has for ``relative``, else the one its file on disk asks for."""
    listed = git(repo, "ls-files", "--stage", "--", relative, env_extra=env).stdout.split()
    if listed:
        return listed[0]
    executable = os.stat(os.path.join(repo, relative)).st_mode & stat.S_IXUSR
    return "100755" if executable else "100644"


def reset_index(repo: Path, paths: Sequence[str]) -> None:
    """Set the index entries of ``paths`` (relative to the top) to HEAD's, leaving the work tree alone."""
    git(repo, "reset", "--quiet", "HEAD", "--", *paths)


def changed_against_head(repo: Path, paths: Sequence[str]) -> list[str]:
    """Those of ``paths`` whose file in the work tree differs from HEAD's."""
    proc = git(repo, "diff", "--name-only", "HEAD", "--", *paths)
    return [line for line in proc.stdout.splitlines() if line]
