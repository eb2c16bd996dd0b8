"""Colour on terminals, plain text elsewhere: `--color auto|always|never`, NO_COLOR / FORCE_COLOR, the summary table,
and `--explain` rendered as Markdown — through the real command."""

from __future__ import annotations

import io
import os
import pty
import subprocess
from pathlib import Path

import pytest
from support.cli import MIGRATE
from typer.testing import CliRunner

from torchmigrate.api import migrate_source
from torchmigrate.cli import app
from torchmigrate.core.registry import get_pass
from torchmigrate.output.diffs import diff_bytes
from torchmigrate.output.terminal import explain_markdown, use_color

ESC = b"\x1b["
LEGACY = "import torch\nep = torch.export.export_for_training(m, (x,))\n"
FINDING = "import torch\nep = torch.export.export_for_inference(m, a, **kw)\n"


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env or {})
    return subprocess.run([str(MIGRATE), *args], cwd=cwd, capture_output=True, timeout=120, env=environ)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "legacy.py").write_text(LEGACY)
    (tmp_path / "kw.py").write_text(FINDING)
    return tmp_path


def test_piped_diff_is_plain_and_byte_identical(project: Path) -> None:
    proc = run("--to", "2.12", "--diff", ".", cwd=project)
    assert proc.returncode == 0
    expected = migrate_source(LEGACY, to="2.12", path="legacy.py")
    assert proc.stdout == diff_bytes(expected, "legacy.py")
    assert ESC not in proc.stdout and ESC not in proc.stderr
    assert proc.stderr.decode().splitlines()[-1] == "torchmigrate: 2 files scanned, 1 would change, 1 finding, 0 errors"


def test_color_always_colours_the_diff_findings_and_summary_table(project: Path) -> None:
    proc = run("--to", "2.12", "--diff", "--color", "always", ".", cwd=project)
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert "\x1b[31m-ep = torch.export.export_for_training(m, (x,))\x1b[0m" in out  # removed line in red
    assert "\x1b[32m+ep = torch.export.export(m, (x,))\x1b[0m" in out  # added line in green
    err = proc.stderr.decode()
    assert "\x1b[33mexport-for-inference\x1b[0m" in err  # the finding's pass id
    table = [line for line in err.splitlines() if line.startswith("export-for-training")]
    assert [cell for cell in table[0].split() if not cell.startswith(ESC.decode())] == ["export-for-training", "1", "1", "0"]
    assert "2 files scanned, 1 would change, 1 finding, 0 errors" in err


def test_no_color_through_the_command(project: Path) -> None:
    proc = run("--to", "2.12", "--diff", "--color", "auto", ".", cwd=project, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    assert proc.returncode == 0 and proc.stdout.startswith(b"--- a/legacy.py")
    assert ESC not in proc.stdout and ESC not in proc.stderr


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        (["--color", "auto"], {"NO_COLOR": "1"}, False),
        (["--color", "auto"], {"FORCE_COLOR": "1"}, True),
        (["--color", "auto"], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # an explicit flag beats the environment
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ],
)
def test_no_color_and_force_color(
    project: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    result = CliRunner().invoke(app, ["--to", "2.12", "--diff", *args, "legacy.py", "kw.py"], env=env)
    assert result.exit_code == 0
    assert (ESC in result.stdout_bytes) is coloured
    assert (ESC in result.stderr_bytes) is coloured


def test_auto_colours_a_real_terminal(project: Path) -> None:
    try:
        leader, follower = pty.openpty()
    except OSError as exc:  # pragma: no cover - a machine without pseudo-terminals
        pytest.skip(f"no pseudo-terminal: {exc}")
    try:
        proc = subprocess.run(
            [str(MIGRATE), "--to", "2.12", "--diff", "legacy.py"],
            cwd=project,
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=120,
            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")},
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0
    assert ESC in b"".join(chunks)  # stdout was a terminal: coloured
    assert ESC not in proc.stderr  # stderr was a pipe: plain


def test_explain_renders_markdown_when_coloured(project: Path) -> None:
    plain = CliRunner().invoke(app, ["--explain", "export-for-inference"])
    assert ESC not in plain.stdout_bytes and b"## Examples" in plain.stdout_bytes
    rich = run("--explain", "export-for-inference", "--color", "always", cwd=project)
    assert rich.returncode == 0
    text = rich.stdout.decode()
    assert ESC.decode() in text
    assert "## Examples" not in text and "Examples" in text  # headings rendered, not shown as markup
    assert "```" not in text and "export_for_inference" in text  # code blocks rendered


def test_use_color_rules() -> None:
    tty, pipe = _Stream(True), _Stream(False)
    assert use_color("auto", tty, {}) and not use_color("auto", pipe, {})
    assert not use_color("auto", tty, {"NO_COLOR": "1"})
    assert use_color("auto", tty, {"NO_COLOR": ""})  # an empty NO_COLOR does not count (no-color.org)
    assert use_color("auto", pipe, {"FORCE_COLOR": "1"})
    assert not use_color("auto", tty, {"TERM": "dumb"})
    assert use_color("always", pipe, {"NO_COLOR": "1"}) and not use_color("never", tty, {"FORCE_COLOR": "1"})


def test_explain_markdown_has_every_example() -> None:
    p = get_pass("export-for-inference")
    md = explain_markdown(p)
    assert md.count("```python") == sum(1 + (e.after is not None) for e in p.examples)
    assert p.doc in md and p.evidence in md


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def _cells(line: str) -> list[str]:
    import re

    return [c for c in re.split(r"\s{2,}", re.sub(r"\x1b\[[0-9;]*m", "", line).strip()) if c]


@pytest.mark.parametrize("color", ["always", "never"])
def test_both_tables_say_what_they_count_and_are_drawn_alike(tmp_path: Path, color: str) -> None:
    """Two repositories: the repository table and the per-pass table have the same headers in both drawings (rich on
    a colour terminal, plain text otherwise); counts of files and of edits are labelled as such."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "legacy.py").write_text(LEGACY)
    (tmp_path / "two" / "kw.py").write_text(FINDING)
    proc = run("--to", "2.12", "--check", "--color", color, "one", "two", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    headers = [_cells(line) for line in lines if _cells(line)[:1] in (["repository"], ["pass"])]
    assert headers == [
        ["repository", "files scanned", "files to change", "edits to apply", "findings", "errors"],
        ["pass", "files", "edits to apply", "findings"],
    ]
    rows = {cells[0]: cells[1:] for cells in map(_cells, lines) if cells[:1] in (["one"], ["two"], ["total"])}
    assert rows == {"one": ["1", "1", "1", "0", "0"], "two": ["2", "1", "1", "1", "0"], "total": ["3", "2", "2", "1", "0"]}
    rules = [line for line in lines if line.strip() and set(line) <= set("-─ ")]
    assert rules and all(("─" in line) == (color == "always") for line in rules)
    assert (ESC in proc.stderr) == (color == "always")
