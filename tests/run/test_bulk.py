"""Bulk migration through the real command: three git repositories, a report, branches and commits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support import cli

LEGACY = (
    "import torch\n"
    "from torch.export import export_for_inference as efi\n"
    "\n"
    "def export(model, x, table):\n"
    "    return torch.export.export_for_inference(model, (x,), decomp_table=table), efi(model, (x,))\n"
)
TRAINING = "import torch\n\nep = torch.export.export_for_training(m, (x,))\n"
FINDING = "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n"
MODERN = "import torch\n\nep = torch.export.export(model, (x,))\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def make_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    (path / "requirements.txt").write_text("torch>=2.7\n")  # admits 2.12: the pin needs no change
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    # A hook that would prove the tool ran repository code.
    hook = path / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/HOOK_RAN"\n')
    hook.chmod(0o755)
    return path


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, Path]:
    return {
        "alpha": make_repo(tmp_path / "alpha", {"src/a.py": LEGACY, "src/b.py": TRAINING, "src/c.py": FINDING}),
        "beta": make_repo(tmp_path / "beta", {"m.py": MODERN}),
        "gamma": make_repo(tmp_path / "gamma", {"g.py": TRAINING, "notes.py": MODERN}),
    }


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return cli.run(*args, cwd=cwd, text=True)


def test_three_repos_report_branches_and_commits(repos: dict[str, Path], tmp_path: Path) -> None:
    gamma = repos["gamma"]
    (gamma / "notes.py").write_text(MODERN + "# work in progress\n")  # uncommitted: gamma is refused
    (tmp_path / "repos.txt").write_text("# the fleet\nbeta\n\ngamma  \n")
    proc = run(
        "--to",
        "2.12",
        "--git-branch",
        "torch-2.12",
        "--git-commit",
        "--report",
        "report.json",
        "--repos-from",
        "repos.txt",
        "--no-progress",
        "alpha",
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr  # gamma was refused
    assert proc.stdout == ""
    assert "gamma: error: uncommitted changes (notes.py)" in proc.stderr

    # alpha: on the new branch, one commit that lists the passes, the work tree clean, no hook run.
    alpha = repos["alpha"]
    assert git(alpha, "branch", "--show-current").strip() == "torch-2.12"
    assert git(alpha, "status", "--porcelain") == ""
    message = git(alpha, "log", "-1", "--format=%B")
    assert message.startswith("Migrate to PyTorch 2.12 with torchmigrate")
    assert "- export-for-inference (2.8, safe)" in message and "- export-for-training (2.11, safe)" in message
    assert sorted(git(alpha, "show", "--name-only", "--format=", "HEAD").split()) == ["src/a.py", "src/b.py"]
    assert git(alpha, "rev-parse", "HEAD~1") == git(alpha, "rev-parse", "main")
    assert "torch.export.export(m, (x,))" in (alpha / "src" / "b.py").read_text()
    assert not (alpha / "HOOK_RAN").exists()
    # beta: nothing to migrate, so no branch; gamma: refused, untouched, still on main.
    assert git(repos["beta"], "branch", "--list", "torch-2.12") == ""
    assert git(gamma, "branch", "--show-current").strip() == "main"
    assert "export_for_training" in (gamma / "g.py").read_text()

    # The per-repository table on stderr.
    table = proc.stderr[proc.stderr.index("repository") : proc.stderr.index("\npass ")]
    # Each column says what it counts; the per-pass table that follows is drawn the same way.
    header = table.splitlines()[0].split("  ")
    assert [cell.strip() for cell in header if cell.strip()] == [
        "repository", "files scanned", "files changed", "edits applied", "findings", "errors", "git"
    ]
    passes = proc.stderr[proc.stderr.index("\npass ") + 1 :].splitlines()
    assert [c.strip() for c in passes[0].split("  ") if c.strip()] == ["pass", "files", "edits applied", "findings"]
    assert set(passes[1]) == {"-", " "} and passes[2].split() == ["export-for-inference", "2", "2", "1"]
    assert [line.split()[0] for line in table.splitlines() if line and not line.startswith(("-", "torchmigrate:"))] == [
        "repository",
        "alpha",
        "beta",
        "gamma",
        "total",
    ]
    alpha_row = next(line for line in table.splitlines() if line.startswith("alpha"))
    assert alpha_row.split()[1:6] == ["4", "2", "5", "1", "0"] and "committed" in alpha_row
    gamma_row = next(line for line in table.splitlines() if line.startswith("gamma"))
    assert gamma_row.split()[1:6] == ["0", "0", "0", "0", "1"] and "error: uncommitted changes" in gamma_row

    # The JSON report.
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["schema_version"] == 1 and report["run"] == {"to": "2.12", "mode": "write"}
    by_path = {f["path"]: f for f in report["files"]}
    a = by_path["alpha/src/a.py"]
    assert a["repo"] == "alpha" and a["changed"] and a["written"]
    assert a["passes_applied"] == ["export-for-inference", "export-for-training"]
    assert {(e["line"], e["col"], e["pass_id"]) for e in a["edits"]} >= {(5, 12, "export-for-inference")}
    c = by_path["alpha/src/c.py"]
    assert c["findings"][0]["line"] == 3 and c["findings"][0]["pass_id"] == "export-for-inference" and not c["changed"]
    rows = {r["path"]: r for r in report["repos"]}
    assert [r["path"] for r in report["repos"]] == ["alpha", "beta", "gamma"]
    assert rows["alpha"]["changed"] == 2 and rows["alpha"]["findings"] == 1 and rows["alpha"]["from"] == "2.7"
    assert rows["alpha"]["git"]["commit"] == git(alpha, "rev-parse", "HEAD").strip()
    assert rows["gamma"]["error"].startswith("uncommitted changes") and rows["gamma"]["files"] == 0
    assert report["summary"] == {
        "repos": 3, "files": 6, "changed": 2, "edits": 5, "findings": 1, "errors": 0, "unsafe_fixes": 0
    }

    # With --allow-dirty gamma is migrated; only the migrated file is committed, the user's edit stays uncommitted.
    again = run("--to", "2.12", "--git-branch", "torch-2.12", "--git-commit", "--allow-dirty", "gamma", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert git(gamma, "show", "--name-only", "--format=", "HEAD").split() == ["g.py"]
    assert git(gamma, "status", "--porcelain") == " M notes.py\n"


def test_git_refusals_are_per_repository(repos: dict[str, Path], tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "p.py").write_text(TRAINING)
    git(repos["alpha"], "branch", "torch-2.12")  # the branch exists already: alpha is refused
    proc = run("--to", "2.12", "--git-branch", "torch-2.12", "--git-commit", "alpha", "plain", "gamma", cwd=tmp_path)
    assert proc.returncode == 2
    assert "alpha: error: branch 'torch-2.12' already exists" in proc.stderr
    assert "plain: error: not in a git work tree" in proc.stderr
    # The two refusals are the run's errors (exit 2): the summary counts them.
    assert proc.stderr.splitlines()[-1].endswith(", 2 errors"), proc.stderr
    assert "export_for_training" in (plain / "p.py").read_text()  # refused: not written
    assert "export_for_inference" in (repos["alpha"] / "src" / "a.py").read_text()
    assert git(repos["gamma"], "branch", "--show-current").strip() == "torch-2.12"  # the others go on
    assert git(repos["gamma"], "status", "--porcelain") == ""


def test_commit_on_the_current_branch_and_bad_combinations(repos: dict[str, Path], tmp_path: Path) -> None:
    proc = run("--to", "2.12", "--git-commit", "gamma", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert git(repos["gamma"], "branch", "--show-current").strip() == "main"
    assert git(repos["gamma"], "log", "--format=%s").splitlines()[0] == "Migrate to PyTorch 2.12 with torchmigrate"
    bad = run("--to", "2.12", "--diff", "--git-commit", "alpha", cwd=tmp_path)
    assert bad.returncode == 2 and "cannot go with --diff" in bad.stderr
    missing = run("--to", "2.12", "--repos-from", "nope.txt", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot read --repos-from" in missing.stderr
