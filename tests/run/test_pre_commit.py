"""pre-commit as a user runs it: a real `pre-commit` (installed with pip into a temporary virtual environment) on a
temporary git repository whose .pre-commit-config.yaml names this checkout (its package files, committed as they
are now in a repository of their own) as the hook repository. Skipped, saying why, where pre-commit or the hook's environment cannot be installed.

Also, without pre-commit: file arguments from one tree are one repository (no per-repository table)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run, write_tree

ROOT = Path(__file__).resolve().parents[2]
TRAINING = "import torch\nep = torch.export.export_for_training(m, (x,))\n"
FILES = {
    "pyproject.toml": '[project]\nname = "demo"\n\n[tool.torchmigrate]\nto = "2.12"\n',
    "train.py": TRAINING,
    "pkg/model.py": TRAINING,
    "pkg/clean.py": "import torch\n",
    "requirements/base.txt": "torch==2.7.1\nnumpy\n",
    ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - run: pip install torch==2.7.1\n",
    "docker/Dockerfile": "FROM python:3.11-slim\nRUN pip install torch==2.7.1\n",
    "README.md": "torch==2.7.1 is what we use\n",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True, capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    path = write_tree(tmp_path / "repo", FILES)
    git(path, "init", "-q")
    git(path, "add", ".")
    git(path, "commit", "-qm", "init")
    return path


def test_file_arguments_from_one_tree_are_one_repository(repo: Path) -> None:
    names = ["train.py", "pkg/model.py", "pkg/clean.py", "requirements/base.txt", "pyproject.toml"]
    proc = run("--check", *names, cwd=repo, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "repository" not in proc.stderr  # one tree: no per-repository table
    assert [line for line in proc.stderr.splitlines() if line.startswith("Would fix:")] == [
        "Would fix: pkg/model.py (1 edit)",
        "Would fix: requirements/base.txt (1 edit)",
        "Would fix: train.py (1 edit)",
    ]
    # Two folders are two repositories: the table is back, one row each.
    write_tree(repo.parent / "other", {"m.py": TRAINING})
    proc = run("--to", "2.12", "--check", "repo/pkg", "other", cwd=repo.parent, text=True)
    rows = [line.split()[0] for line in proc.stderr.splitlines() if line.startswith(("repo/pkg ", "other "))]
    assert rows == ["repo/pkg", "other"], proc.stderr


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("pre-commit-venv")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
        pip = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pre-commit"], capture_output=True, text=True,
            timeout=240,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot create a virtual environment for pre-commit: {exc}")
    if pip.returncode != 0:
        pytest.skip(f"pre-commit cannot be installed with pip here: {pip.stderr.strip().splitlines()[-1:]}")
    return venv / "bin" / "pre-commit"


def hook_repository(dest: Path) -> str:
    """This checkout as pre-commit sees a hook repository: its package files, committed (uncommitted edits too) in a
    git repository of their own; the commit's id."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "--", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()
    for name in listed:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    git(dest, "init", "-q")
    git(dest, "add", ".")
    git(dest, "commit", "-qm", "hooks")
    return git(dest, "rev-parse", "HEAD").strip()


def test_a_real_pre_commit_run(pre_commit: Path, repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    hooks = tmp_path / "hooks"
    rev = hook_repository(hooks)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: torchmigrate-check\n      - id: torchmigrate\n"
    )

    def try_repo(hook: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(pre_commit), "run", hook, "--all-files", "--verbose"], cwd=repo, env=env, capture_output=True, text=True,
            timeout=400,
        )

    check = try_repo("torchmigrate-check")
    if "An unexpected error has occurred" in check.stdout + check.stderr or "Installing environment" in check.stderr and (
        "torchmigrate (check)" not in check.stdout
    ):
        pytest.skip(f"pre-commit could not install the hook's environment here: {(check.stdout + check.stderr)[-400:]}")
    out = check.stdout
    assert check.returncode == 1, out + check.stderr
    assert "torchmigrate (check)" in out and "Failed" in out
    # Every kind of file the tool reads was handed to it (README.md was not): one run, one repository, one summary.
    assert [line for line in out.splitlines() if line.startswith("Would fix:")] == [
        "Would fix: .github/workflows/ci.yml (1 edit)",
        "Would fix: docker/Dockerfile (1 edit)",
        "Would fix: pkg/model.py (1 edit)",
        "Would fix: requirements/base.txt (1 edit)",
        "Would fix: train.py (1 edit)",
    ], out
    assert "repository" not in out
    summaries = [line for line in out.splitlines() if line.startswith("torchmigrate:")]
    assert summaries == ["torchmigrate: 7 files scanned, 5 would change, 0 findings, 0 errors"], out
    # The fix hook rewrites them (pre-commit fails the run because files changed); then the check passes.
    fix = try_repo("torchmigrate")
    assert fix.returncode == 1 and "files were modified by this hook" in fix.stdout, fix.stdout
    assert "torch.export.export(m, (x,))" in (repo / "pkg" / "model.py").read_text()
    assert (repo / "requirements" / "base.txt").read_text() == "torch==2.12.1\nnumpy\n"
    assert (repo / "README.md").read_text() == FILES["README.md"]
    again = try_repo("torchmigrate-check")
    assert again.returncode == 0, again.stdout
