"""Bad command lines: one stderr line saying what is wrong and what is accepted, exit 2, nothing on stdout, nothing written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.cli import MIGRATE, run
from typer.testing import CliRunner

from torchmigrate.cli import app
from torchmigrate.core.registry import all_passes
from torchmigrate.core.versions import KNOWN_RELEASES

LEGACY = "import torch\n\nep = torch.export.export_for_inference(model, (x,))\n"
RANGE = f"known releases are {KNOWN_RELEASES[0]} to {KNOWN_RELEASES[-1]} (or latest)"
FORMAT = "expected MAJOR.MINOR or MAJOR.MINOR.PATCH, such as 2.12, or latest"

CASES = [
    (["--to", "2.99", "pkg"], f"--to: unknown PyTorch release '2.99': {RANGE}"),
    (["--to", "1.0", "pkg"], f"--to: unknown PyTorch release '1.0': {RANGE}"),
    (["--to", "two", "pkg"], f"--to: malformed version 'two': {FORMAT}"),
    (["--to", "", "pkg"], f"--to: malformed version '': {FORMAT}"),
    (["--to", "2", "pkg"], f"--to: malformed version '2': {FORMAT}"),
    (["--to", "2.12", "--from", "2.x", "pkg"], f"--from: malformed version '2.x': {FORMAT}"),
    (["--to", "2.12", "--from", "0.4", "pkg"], f"--from: unknown PyTorch release '0.4': {RANGE}"),
    (["--to", "2.8", "--from", "2.10", "pkg"], "--from 2.10 is above --to 2.8: nothing can migrate backwards"),
    (["--to", "2.12", "--select", "no-such-pass", "pkg"], "unknown pass id(s): no-such-pass (see `migrate --list`)"),
    (["--to", "2.12", "--ignore", "zeta,alpha", "pkg"], "unknown pass id(s): alpha, zeta (see `migrate --list`)"),
    (
        ["--to", "2.8", "--select", "export-for-training", "pkg"],
        "--select names a pass above --to 2.8: export-for-training (2.11); raise --to or drop it",
    ),
    (
        ["--to", "2.12", "--from", "2.10", "--select", "onnx-dynamo-default", "pkg"],
        "--select names a pass that --from 2.10 does not run: onnx-dynamo-default (it migrates a behaviour change of "
        "2.9, and code written for --from 2.10 already expects the new behaviour); lower --from or drop it",
    ),
    (["--to", "2.12", "pkg", "missing-dir", "gone.py"], "no such file or folder: missing-dir, gone.py"),
    (["pkg"], "missing --to VERSION (the PyTorch release to migrate to, e.g. --to 2.12)"),
    (["--to", "2.12"], "no PATH given: name the files or folders to migrate"),
    (["--check"], "no PATH given: name the files or folders to migrate, and the release with --to VERSION (e.g. migrate --to 2.12 src/)"),
    (["--explain", "no-such-pass"], "unknown pass id 'no-such-pass' (see `migrate --list`)"),
    (["--list", "--to", "newest"], f"--to: malformed version 'newest': {FORMAT}"),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_text(LEGACY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a) or "empty" for a, _ in CASES])
def test_one_line_exit_2_nothing_written(project: Path, args: list[str], message: str) -> None:
    before = snapshot(project)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"migrate: error: {message}"]
    assert result.stdout == ""
    assert snapshot(project) == before


def test_what_is_accepted_is_where_the_message_points(project: Path) -> None:
    """`migrate --list` (named by the unknown-id message) lists every pass id; the range the release message names works."""
    listing = CliRunner().invoke(app, ["--list"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [p.id for p in all_passes()]
    for accepted in (KNOWN_RELEASES[0], KNOWN_RELEASES[-1]):  # both ends of the range the message names are accepted
        assert CliRunner().invoke(app, ["--list", "--to", str(accepted)]).exit_code == 0


def test_a_real_process_exits_2_with_one_line(project: Path) -> None:
    proc = subprocess.run([str(MIGRATE), "--to", "2.8", "--from", "2.10", "pkg"], cwd=project, capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == b"migrate: error: --from 2.10 is above --to 2.8: nothing can migrate backwards\n"
    assert (project / "pkg" / "legacy.py").read_text() == LEGACY


def test_select_of_a_pass_the_pin_skips_warns_and_still_runs_the_rest(tmp_path: Path) -> None:
    """A --from read from the project's pin can make a --select'ed behaviour-change pass do nothing: a real process says
    so on stderr (it is a warning: other PATHs may pin older releases), and a selected removal pass still runs."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torch==2.10.0\n")
    (tmp_path / "app.py").write_text(
        "import torch\n\ntorch.onnx.export(m, x, 'm.onnx', dynamic_axes=axes)\n"
        "s = torch.optim.lr_scheduler.StepLR(opt, 1, verbose=False)\n"
    )
    proc = run("--to", "2.12", "--diff", "--select", "onnx-dynamo-default,lr-verbose", ".", cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    warning = [line for line in proc.stderr.splitlines() if line.startswith("migrate: warning:")]
    assert warning == [
        "migrate: warning: --select onnx-dynamo-default does nothing for .: it migrates a behaviour change of 2.9, and "
        "code written for --from 2.10 already expects the new behaviour (--from 2.10 is read from its torch "
        "requirement; pass --from explicitly to run it)"
    ]
    assert "+s = torch.optim.lr_scheduler.StepLR(opt, 1)" in proc.stdout  # the 2.7 removal runs despite the 2.10 pin


def test_no_path_in_a_project_that_sets_to(project: Path) -> None:
    """`to` comes from pyproject.toml, so only the PATH is missing: the real command says exactly that."""
    (project / "pyproject.toml").write_text('[tool.torchmigrate]\nto = "2.12"\n')
    proc = subprocess.run([str(MIGRATE), "--check"], cwd=project, capture_output=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr == b"migrate: error: no PATH given: name the files or folders to migrate\n"
    # --isolated ignores that configuration: then --to is missing too.
    proc = subprocess.run([str(MIGRATE), "--isolated", "--check"], cwd=project, capture_output=True, timeout=120)
    assert b"no PATH given" in proc.stderr and b"--to VERSION" in proc.stderr
