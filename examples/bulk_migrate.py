"""Migrate several repositories with torchmigrate's Python API, and commit each one on a branch.

    python examples/bulk_migrate.py --to 2.12 --branch torch-2.12 ~/src/repo-a ~/src/repo-b ~/src/repo-c

Without ``--branch`` it only reports (like ``migrate --diff``, writing nothing). The same run from the command line:
``migrate --to 2.12 --git-branch torch-2.12 --git-commit repo-a repo-b repo-c``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torchmigrate
from torchmigrate.api import make_options
from torchmigrate.run import gitops
from torchmigrate.run.bulk import RepoOutcome, commit_message


def migrate_repo(repo: Path, to: str, branch: str | None) -> str:
    """Migrate one repository; with ``branch``, write and commit there. Returns a one-line status."""
    top = gitops.toplevel(repo) if branch else None
    if branch:
        if top is None:
            return "skipped: not a git repository"
        if gitops.dirty_files(top):
            return "skipped: uncommitted changes"
        if gitops.branch_exists(top, branch):
            return f"skipped: branch {branch} exists"
    report = torchmigrate.migrate_paths([repo], to=to, write=branch is not None, jobs=None, cache=True)
    for result in report.results:
        for finding in result.findings:
            print(finding.render(result.path), file=sys.stderr)
        if result.error:
            print(f"{result.path}: error: {result.error}", file=sys.stderr)
    s = report.summary
    status = f"{s.scanned} files, {s.changed} changed, {s.findings} findings, {s.errors} errors"
    written = [Path(r.path) for r in report.changed if r.written]
    if branch and top is not None and written:
        outcome = RepoOutcome(path=str(repo), options=make_options(to), summary=s)
        outcome.passes_applied = {p for r in report.changed for p in r.passes_applied}
        gitops.create_branch(top, branch)
        sha = gitops.commit(top, written, commit_message(outcome))
        status += f", committed {sha[:12]} on {branch}"
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--to", required=True, help="target PyTorch release, e.g. 2.12")
    parser.add_argument("--branch", help="write, and commit on this new branch in each repository")
    args = parser.parse_args()
    for repo in args.repos:
        print(f"{repo}: {migrate_repo(repo, args.to, args.branch)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
