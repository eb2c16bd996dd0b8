"""The `migrate` command through a real process: diffs that git applies, exit codes, streams."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run

LEGACY = (
    "import torch\n"
    "from torch.export import export_for_inference as efi\n"
    "\n"
    "def export(model, x, table):\n"
    "    return torch.export.export_for_inference(model, (x,), decomp_table=table), efi(model, (x,))\n"
)
MODERN = "import torch\n\nep = torch.export.export(model, (x,))\n"




@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_text(LEGACY)
    (tmp_path / "pkg" / "modern.py").write_text(MODERN)
    (tmp_path / "pkg" / "crlf.py").write_bytes(LEGACY.replace("\n", "\r\n").encode())
    return tmp_path


def test_diff_applies_with_git_and_writes_nothing(project: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    proc = run("--to", "2.12", "--diff", "pkg", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before
    patch = proc.stdout
    assert patch.startswith(b"--- a/pkg/"), patch[:200]
    assert b"torchmigrate:" not in patch  # the summary goes to stderr
    assert b"2 would change" in proc.stderr
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "fix.patch").write_bytes(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=project, check=True)
    applied = {p: p.read_bytes() for p in project.rglob("*.py")}
    # Applying the diff gives exactly what write mode gives.
    for path, data in before.items():
        path.write_bytes(data)
    assert run("--to", "2.12", "pkg", cwd=project).returncode == 0
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == applied
    assert b"\r\n" in (project / "pkg" / "crlf.py").read_bytes()
    assert b"\n" not in (project / "pkg" / "crlf.py").read_bytes().replace(b"\r\n", b"")


def test_check_exit_codes(project: Path) -> None:
    proc = run("--to", "2.12", "--check", "pkg", cwd=project)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert run("--to", "2.12", "--check", "pkg/modern.py", cwd=project).returncode == 0
    assert run("--to", "2.7", "--check", "pkg", cwd=project).returncode == 0


def test_check_names_the_files_that_would_change(project: Path) -> None:
    """`--check` in text mode lists each file that would change, sorted, with its edits (as ruff's "Would fix")."""
    (project / "pkg" / "another.py").write_text("import torch\n\nep = torch.export.export_for_training(m, (x,))\n")
    proc = run("--to", "2.12", "--check", "pkg", cwd=project, text=True)
    assert proc.returncode == 1 and proc.stdout == ""
    listed = [line for line in proc.stderr.splitlines() if line.startswith("Would fix:")]
    assert listed == [
        "Would fix: pkg/another.py (1 edit)",
        "Would fix: pkg/crlf.py (4 edits)",
        "Would fix: pkg/legacy.py (4 edits)",
    ]
    assert proc.stderr.index("Would fix:") < proc.stderr.index("torchmigrate: 4 files scanned, 3 would change")
    assert "Would fix" not in run("--to", "2.12", "--check", "pkg/modern.py", cwd=project, text=True).stderr
    assert "Would fix" not in run("--to", "2.12", "--diff", "pkg", cwd=project, text=True).stderr


def test_syntax_error_exits_2_and_the_rest_is_migrated(project: Path) -> None:
    broken = b"import torch\nep = torch.export.export_for_inference(m, (x,)\n"
    (project / "pkg" / "broken.py").write_bytes(broken)
    proc = run("--to", "2.12", "pkg", cwd=project)
    assert proc.returncode == 2
    assert b"pkg/broken.py: error: cannot parse" in proc.stderr
    assert (project / "pkg" / "broken.py").read_bytes() == broken
    assert "torch.export.export(" in (project / "pkg" / "legacy.py").read_text()


def test_findings_go_to_stderr_with_location(project: Path) -> None:
    (project / "pkg" / "kw.py").write_text("import torch\nep = torch.export.export_for_inference(m, a, **kw)\n")
    proc = run("--to", "2.12", "--diff", "pkg/kw.py", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert b"pkg/kw.py:2:6: export-for-inference " in proc.stderr
    assert run("--to", "2.12", "--check", "pkg/kw.py", cwd=project).returncode == 1


def test_list_explain_version(project: Path) -> None:
    listing = run("--list", "--to", "2.8", cwd=project)
    assert listing.returncode == 0
    assert b"export-for-inference" in listing.stdout and b"export-for-training" not in listing.stdout
    explain = run("--explain", "export-for-inference", cwd=project)
    assert explain.returncode == 0 and b"## Examples" in explain.stdout and b"Before:" in explain.stdout
    assert run("--version", cwd=project).stdout.startswith(b"torchmigrate ")
    module = subprocess.run([sys.executable, "-m", "torchmigrate", "--version"], capture_output=True, cwd=project)
    assert module.returncode == 0 and module.stdout.startswith(b"torchmigrate ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "2.99", "pkg"], b"unknown PyTorch release"),
        (["--to", "two", "pkg"], b"malformed version"),
        (["--to", "2.8", "--from", "2.10", "pkg"], b"above --to"),
        (["--to", "2.12", "--select", "no-such-pass", "pkg"], b"unknown pass id"),
        (["--to", "2.12", "missing-dir"], b"no such file or folder"),
        (["pkg"], b"missing --to"),
    ],
)
def test_bad_command_lines_exit_2_and_write_nothing(project: Path, args: list[str], message: bytes) -> None:
    before = (project / "pkg" / "legacy.py").read_bytes()
    proc = run(*args, cwd=project)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert (project / "pkg" / "legacy.py").read_bytes() == before


def test_from_defaults_to_the_projects_pin(project: Path) -> None:
    (project / "requirements.txt").write_text("torch==2.8.1\nnumpy\n")
    # Code pinned to 2.8 already expects 2.6's torch.load default (a behaviour change): that pass does not run...
    (project / "pkg" / "restore.py").write_text("import torch\nmodel.load_state_dict(torch.load(path))\n")
    proc = run("--to", "2.12", "--diff", ".", cwd=project)
    assert b"restore.py" not in proc.stdout
    # ...but removed APIs are rewritten whatever the pin says: they fail on the target all the same.
    assert b"-from torch.export import export_for_inference as efi" in proc.stdout  # legacy.py: removed in 2.8
    assert os.path.exists(project / "pkg" / "legacy.py")
    unpinned = run("--to", "2.12", "--from", "2.0", "--diff", "pkg/restore.py", cwd=project)
    assert b"+model.load_state_dict(torch.load(path, weights_only=True))" in unpinned.stdout


def test_the_command_annotations_are_objects_typer_need_not_compile() -> None:
    """typer reads the command's annotations twice per run (``inspect.signature`` and ``get_type_hints``); as strings
    (``from __future__ import annotations``) each is compiled and evaluated both times, ≈10 ms of every warm run."""
    from torchmigrate import cli

    annotations = cli.migrate.__annotations__
    assert annotations and not [name for name, value in annotations.items() if isinstance(value, str)]
