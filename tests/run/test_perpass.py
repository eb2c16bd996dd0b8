"""A migration one pass at a time, through the real command: ``--git-commit --commit-per-pass`` makes one commit per
applied pass in release order, ``--diff --split-by-pass DIR`` one patch per pass that applies in order with ``git
apply``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support import cli

from torchmigrate.api import make_options
from torchmigrate.core.registry import get_pass
from torchmigrate.core.results import FileResult
from torchmigrate.run import handlers, perpass

# a.py needs two passes in a chain: export_for_inference (2.8) → export_for_training, which 2.11 makes export.
LEGACY = (
    "import torch\n"
    "\n"
    "def export(model, x, table):\n"
    "    return torch.export.export_for_inference(model, (x,), decomp_table=table)\n"
)
AFTER_2_8 = "torch.export.export_for_training(model, (x,), strict=True).run_decompositions(decomp_table=table)"
AFTER_2_11 = "torch.export.export(model, (x,), strict=True).run_decompositions(decomp_table=table)"
TRAINING = "import torch\n\nep = torch.export.export_for_training(m, (x,))\n"
CLOSE = "import torch\n\n\ndef test_close(out, ref):\n    torch.testing.assert_allclose(out, ref)\n"
FINDING = "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n"
ORDER = ["assert-allclose", "export-for-inference", "export-for-training"]  # releases 1.12, 2.8, 2.11


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    cli.write_tree(
        path,
        # a configured line length the migrated lines keep within (nothing configured: 79, and they would be split)
        {".flake8": "[flake8]\nmax-line-length = 120\n", "requirements.txt": "torch>=2.7\n", "src/a.py": LEGACY, "src/b.py": TRAINING, "tests/test_c.py": CLOSE, "d.py": FINDING},
    )
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    hook = path / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/HOOK_RAN"\n')
    hook.chmod(0o755)
    return path


def test_commit_per_pass_makes_one_commit_per_pass_in_release_order(repo: Path, tmp_path: Path) -> None:
    proc = cli.run(
        "--to", "2.12", "--unsafe-fixes", "--git-branch", "torch-2.12", "--git-commit", "--commit-per-pass", "--report", "r.json",
        "--no-progress", "repo", cwd=tmp_path, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "branch", "--show-current").strip() == "torch-2.12"
    assert git(repo, "status", "--porcelain") == ""
    assert not (repo / "HOOK_RAN").exists()
    subjects = git(repo, "log", "--format=%s", "main..HEAD").splitlines()[::-1]  # oldest first
    assert subjects == [
        "torchmigrate: assert-allclose (PyTorch 1.12, review)",
        "torchmigrate: export-for-inference (PyTorch 2.8, safe)",
        "torchmigrate: export-for-training (PyTorch 2.11, safe)",
    ]
    files = [sorted(git(repo, "show", "--name-only", "--format=", f"HEAD~{n}").split()) for n in (2, 1, 0)]
    assert files == [["tests/test_c.py"], ["src/a.py"], ["src/a.py", "src/b.py"]]

    # Each commit holds its pass's step: a.py after the 2.8 pass still calls export_for_training.
    assert AFTER_2_8 in git(repo, "show", "HEAD~1:src/a.py")
    assert AFTER_2_11 in git(repo, "show", "HEAD:src/a.py") == (repo / "src" / "a.py").read_text()

    # The messages name the pass, its release and safety, what to review, and the files with their edits.
    review = git(repo, "log", "-1", "--format=%B", "HEAD~2")
    assert "Pass 1 of 3 of the migration to PyTorch 2.12." in review
    assert "- tests/test_c.py (1 edit)" in review
    assert f"What to review: {get_pass('assert-allclose').review_note}" in review
    last = git(repo, "log", "-1", "--format=%B", "HEAD")
    assert "- src/a.py (1 edit)\n- src/b.py (1 edit)\n" in last and "What to review" not in last

    # The JSON report and the table name every commit.
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["repos"][0]["git"]["commits"] == git(repo, "rev-list", "--reverse", "main..HEAD").split()
    assert "3 commits, last " in proc.stderr

    # A reviewer can revert one pass: reverting the 2.11 commit brings back the 2.8 step and nothing else.
    git(repo, "revert", "--no-edit", "HEAD")
    assert AFTER_2_8 in (repo / "src" / "a.py").read_text()
    assert (repo / "src" / "b.py").read_text() == TRAINING
    assert "assert_close" in (repo / "tests" / "test_c.py").read_text()


def test_commit_per_pass_keeps_the_users_staged_work_out(repo: Path, tmp_path: Path) -> None:
    (repo / "notes.txt").write_text("draft\n")
    git(repo, "add", "notes.txt")  # staged by the user: not part of any migration commit
    proc = cli.run("--to", "2.12", "--unsafe-fixes", "--git-commit", "--commit-per-pass", "--allow-dirty", "repo", cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    shown = git(repo, "log", "--name-only", "--format=", "main~3..main").split()
    assert "notes.txt" not in shown and sorted(set(shown)) == ["src/a.py", "src/b.py", "tests/test_c.py"]
    assert git(repo, "status", "--porcelain") == "A  notes.txt\n"


def test_split_by_pass_patches_apply_in_order(repo: Path, tmp_path: Path) -> None:
    proc = cli.run("--to", "2.12", "--unsafe-fixes", "--diff", "--split-by-pass", "../patches", "--no-progress", ".", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    whole = cli.run("--to", "2.12", "--unsafe-fixes", "--diff", "--no-progress", ".", cwd=repo)
    assert proc.stdout == whole.stdout != b""  # stdout still carries the whole diff
    assert b"3 patches in ../patches" in proc.stderr
    assert git(repo, "status", "--porcelain") == ""  # --diff writes nothing in the repository
    patches = sorted((tmp_path / "patches").iterdir())
    assert [p.name for p in patches] == [f"{n:04d}-{pass_id}.patch" for n, pass_id in enumerate(ORDER, start=1)]
    head = patches[1].read_text().splitlines()
    assert head[0] == "torchmigrate pass 2/3: export-for-inference (PyTorch 2.8, safe)"
    assert "  src/a.py (1 edit)" in head

    # Applied in order to a clean clone, the patches end where the migration in write mode does.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    later_first = subprocess.run(["git", "-C", str(clone), "apply", "--check", str(patches[2])], capture_output=True)
    assert later_first.returncode != 0  # the 2.11 patch needs the 2.8 one first: the split is real
    for patch in patches:
        subprocess.run(["git", "-C", str(clone), "apply", str(patch)], check=True, capture_output=True)
        if patch is patches[1]:
            assert AFTER_2_8 in (clone / "src" / "a.py").read_text()
    written = tmp_path / "written"
    shutil.copytree(repo, written)
    assert cli.run("--to", "2.12", "--unsafe-fixes", "--no-progress", ".", cwd=written).returncode == 0
    for name in ("src/a.py", "src/b.py", "tests/test_c.py", "d.py"):
        assert (clone / name).read_text() == (written / name).read_text(), name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--git-commit", "--commit-per-pass", "--diff"], "cannot go with --diff"),
        (["--commit-per-pass"], "--commit-per-pass splits the commit of --git-commit: add --git-commit"),
        (["--split-by-pass", "out"], "--split-by-pass DIR splits the diff of --diff: add --diff"),
        (["--diff", "--split-by-pass", "src"], "--split-by-pass: src is not empty"),
    ],
)
def test_review_aid_options_are_checked(repo: Path, args: list[str], message: str) -> None:
    proc = cli.run("--to", "2.12", *args, ".", cwd=repo, text=True)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert git(repo, "status", "--porcelain") == "" and not (repo / "out").exists()


def test_a_file_whose_replay_fails_is_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    options = make_options("2.12")
    result = handlers.migrate_file_text(Path("a.py"), LEGACY, options, "a.py")
    split = perpass.split_result(Path("a.py"), result, options)
    assert split is not None and split.split and [s.pass_id for s in split.steps] == ORDER[1:]
    assert AFTER_2_8 in split.steps[0].text and split.steps[1].text == result.new

    monkeypatch.setattr(handlers, "migrate_file_text", lambda *a, **k: FileResult(path="a.py", error="boom"))
    whole = perpass.split_result(Path("a.py"), result, options)
    assert whole is not None and not whole.split
    assert [(s.pass_id, s.text) for s in whole.steps] == [("export-for-training", result.new)]
    message = perpass.pass_message("export-for-training", 1, 1, "2.12", [("a.py", 1)], split=whole.split)
    assert "could not be split by pass" in message


def test_split_by_pass_on_the_example_project_with_notebook_and_project_files(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "legacy_project"
    project = tmp_path / "project"
    shutil.copytree(example, project)
    proc = cli.run("--to", "2.12", "--unsafe-fixes", "--diff", "--no-cache", "--split-by-pass", "../patches", ".", cwd=project)
    assert proc.returncode == 0, proc.stderr
    patches = sorted((tmp_path / "patches").iterdir())
    touched = {line[6:] for p in patches for line in p.read_text().splitlines() if line.startswith("+++ b/")}
    assert {"notebooks/explore.ipynb", "requirements.txt", "pyproject.toml"} <= touched and len(patches) > 3
    applied, written = tmp_path / "applied", tmp_path / "written"
    shutil.copytree(example, applied)
    shutil.copytree(example, written)
    for patch in patches:
        done = subprocess.run(["git", "apply", str(patch)], cwd=applied, capture_output=True, text=True)
        assert done.returncode == 0, (patch.name, done.stderr)
    assert cli.run("--to", "2.12", "--unsafe-fixes", "--no-cache", ".", cwd=written).returncode == 0
    for path in sorted(p for p in written.rglob("*") if p.is_file()):
        assert path.read_bytes() == (applied / path.relative_to(written)).read_bytes(), path
