"""Many repositories in one run: per-repository options and totals, and optionally a branch and a commit in each.

Each PATH is one repository (a row of the summary table). All files of all repositories stream through one
:class:`~torchmigrate.run.runner.Runner`, so workers stay busy across repository boundaries; a repository is *finished*
(its branch created and its commit made) as soon as its last result has come back.

With git options, each repository is first checked: a PATH outside a git work tree, a work tree with uncommitted
changes to tracked files (unless ``allow_dirty``) or an existing branch of the requested name is refused — nothing of
it is written, the run goes on with the others, and the run exits 2.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from torchmigrate.core.registry import Options, get_pass
from torchmigrate.core.results import FileResult, Summary
from torchmigrate.run import gitops, perpass
from torchmigrate.run.plan import ProjectReads, plan_tasks
from torchmigrate.run.runner import Runner, Task

__all__ = ["GitPlan", "RepoOutcome", "BulkRun", "commit_message", "read_repo_list"]


@dataclass(frozen=True)
class GitPlan:
    """``branch``: create it (from HEAD) to hold the migration; ``commit``: commit it; ``allow_dirty``: skip the check;
    ``per_pass``: one commit per applied pass (release order) instead of one for the whole migration."""

    branch: str | None = None
    commit: bool = False
    allow_dirty: bool = False
    per_pass: bool = False


@dataclass
class RepoOutcome:
    """One PATH's totals and what git did with it."""

    path: str
    options: Options
    summary: Summary = field(default_factory=Summary)
    passes_applied: set[str] = field(default_factory=set)
    written: list[Path] = field(default_factory=list)
    git_top: Path | None = None
    branch: str | None = None
    commit: str | None = None
    error: str | None = None  # a repository-level problem (refused, git failed): exit 2
    refused: bool = False
    pass_files: list[perpass.SplitFile] = field(default_factory=list)  # changed files, pass by pass (when split)
    commits: list[str] = field(default_factory=list)  # with a commit per pass: every commit made, oldest first

    @property
    def git_status(self) -> str:
        if self.refused or self.error:
            return f"error: {self.error}"
        if len(self.commits) > 1 and self.commit:
            return f"{len(self.commits)} commits, last {self.commit[:12]} on {self.branch or 'the current branch'}"
        if self.commit:
            return f"committed {self.commit[:12]} on {self.branch or 'the current branch'}"
        if self.branch:
            return f"branch {self.branch} (not committed)"
        return ""

    def to_dict(self) -> dict[str, object]:
        s = self.summary
        return {
            "path": self.path,
            "to": str(self.options.to),
            "from": str(self.options.from_),
            "min_torch": str(self.options.floor),
            "files": s.scanned,
            "changed": s.changed,
            "edits": s.edits,
            "findings": s.findings,
            "errors": s.errors,
            "unsafe_fixes": s.unsafe_fixes,
            "passes_applied": sorted(self.passes_applied),
            "git": self._git_dict(),
            "error": self.error,
        }


    def _git_dict(self) -> dict[str, object] | None:
        if not (self.branch or self.commit):
            return None
        found: dict[str, object] = {"branch": self.branch, "commit": self.commit}
        if self.commits:
            found["commits"] = list(self.commits)
        return found


def read_repo_list(source: str) -> list[str]:
    """PATHs from a file (or ``-`` for stdin), one a line; blank lines and ``#`` comments are skipped.

    Relative paths are taken from the current directory, as on the command line.
    """
    import sys

    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    repos = []
    for line in text.splitlines():
        entry = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
        if entry:
            repos.append(entry)
    return repos


def commit_message(repo: RepoOutcome) -> str:
    lines = [f"Migrate to PyTorch {repo.options.to} with torchmigrate", "", "Passes applied:"]
    for pass_id in sorted(repo.passes_applied, key=lambda i: (get_pass(i).version, i)):
        p = get_pass(pass_id)
        lines.append(f"- {p.id} ({p.release}, {p.safety.value}): {p.title}")
    s = repo.summary
    lines += ["", f"{s.changed} files changed, {s.edits} edits, {s.findings} findings left for review."]
    return "\n".join(lines) + "\n"


class BulkRun:
    """Plan and run a migration over several PATHs. Iterate :meth:`results`; then read :attr:`repos`."""

    def __init__(
        self,
        roots: Sequence[tuple[Path, Options, bool]],
        planner: Callable[[int], Iterable[Task]] | None = None,
        *,
        write: bool,
        runner: Runner,
        git: GitPlan | None = None,
        split_by_pass: bool = False,
        reads: ProjectReads | None = None,
    ) -> None:
        """``roots``: (PATH, its options, whether ``--from`` comes from its torch pin). ``planner(i)``: the tasks of
        root ``i`` (default: every source file under it). ``split_by_pass``: also replay each changed file pass by pass
        into :attr:`RepoOutcome.pass_files` (for ``--split-by-pass``; a commit per pass does it anyway). ``reads``: the
        run's project readings, to share with ``planner`` (each project is read here, before anything is written)."""
        self.paths = [Path(root) for root, _, _ in roots]
        self.write = write
        self.runner = runner
        self.git = git if git is not None and (git.branch or git.commit) else None
        self.reads = reads or ProjectReads()
        self.repos = [
            RepoOutcome(path=str(root), options=self.reads.options(root, options, detect)) for root, options, detect in roots
        ]
        self._planner = planner or (
            lambda index: plan_tasks([self.paths[index]], self.repos[index].options, False, reads=self.reads)
        )
        self._on_branch: set[Path] = set()
        self.split_by_pass = split_by_pass or (self.git is not None and self.git.commit and self.git.per_pass)

    # -- git, before and after --
    def _preflight(self, repo: RepoOutcome) -> None:
        assert self.git is not None
        top = gitops.toplevel(Path(repo.path))
        if top is None:
            repo.refused, repo.error = True, "not in a git work tree (needed for --git-branch/--git-commit)"
            return
        repo.git_top = top
        if not self.git.allow_dirty:
            dirty = gitops.dirty_files(top)
            if dirty:
                shown = ", ".join(dirty[:3]) + (" …" if len(dirty) > 3 else "")
                repo.refused = True
                repo.error = f"uncommitted changes ({shown}); commit or stash them, or pass --allow-dirty"
                return
        if self.git.branch and top not in self._on_branch and gitops.branch_exists(top, self.git.branch):
            repo.refused, repo.error = True, f"branch {self.git.branch!r} already exists"

    def _finish(self, repo: RepoOutcome) -> None:
        if self.git is None or repo.refused or repo.git_top is None or not repo.written:
            return
        top = repo.git_top
        try:
            if self.git.branch and top not in self._on_branch:
                gitops.create_branch(top, self.git.branch)
                self._on_branch.add(top)
            if self.git.branch:
                repo.branch = self.git.branch
            if self.git.commit and self.git.per_pass:
                repo.commits = perpass.commit_per_pass(top, repo.pass_files, str(repo.options.to))
                repo.commit = repo.commits[-1] if repo.commits else None
            elif self.git.commit:
                repo.commit = gitops.commit(top, repo.written, commit_message(repo))
        except (gitops.GitError, OSError) as exc:
            repo.error = f"git: {exc}"

    # -- the run --
    def tasks(self) -> Iterator[Task]:
        for number, repo in enumerate(self.repos):
            if repo.refused:
                continue
            for task in self._planner(number):
                yield task if task.repo == number else replace(task, repo=number)

    def preflight(self) -> None:
        if self.git is not None:
            for repo in self.repos:
                self._preflight(repo)

    def results(self, tasks: Iterator[Task] | None = None) -> Iterator[tuple[RepoOutcome, FileResult]]:
        """Every file's result, in order, tagged with its repository. Call :meth:`preflight` first."""
        done = 0  # repositories before this index are finished
        for task, result in self._run(tasks if tasks is not None else self.tasks()):
            while done < task.repo:
                self._finish(self.repos[done])
                done += 1
            repo = self.repos[task.repo]
            repo.summary.add(result)
            repo.passes_applied.update(result.passes_applied)
            if result.written:
                repo.written.append(task.path)
            if self.split_by_pass and (result.written or not self.write):
                split = perpass.split_result(task.path, result, task.options)
                if split is not None:
                    repo.pass_files.append(split)
            yield repo, result
        while done < len(self.repos):
            self._finish(self.repos[done])
            done += 1

    def _run(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, FileResult]]:
        ahead: deque[Task] = deque()  # tasks the runner has taken but not yet answered (bounded by its window)

        def remember() -> Iterator[Task]:
            for task in tasks:
                ahead.append(task)
                yield task

        for result in self.runner.run(remember(), write=self.write):
            yield ahead.popleft(), result

    @property
    def exit_error(self) -> bool:
        return any(r.error for r in self.repos) or any(r.summary.errors for r in self.repos)

