"""The progress bar on a real terminal (a pseudo-terminal, read back through a terminal emulator): findings, errors and
diffs print on clean lines, and once the run ends no bar is left on the screen or in the scrollback."""

from __future__ import annotations

from pathlib import Path

from support.cli import write_tree
from support.tty import run_on_a_terminal, screen_lines

LEGACY = "import torch\nep = torch.export.export_for_training(m, (x,))\n"
FINDING = "import torch\nep = torch.export.export_for_inference(m, a, **kw)\n"


def test_findings_and_diffs_never_share_a_line_with_the_bar(tmp_path: Path) -> None:
    files: dict[str, str] = {}
    for number in range(12):
        files[f"pkg/kw{number:02}.py"] = FINDING
        files[f"pkg/legacy{number:02}.py"] = LEGACY
    files["pkg/broken.py"] = "import torch\nep = torch.export.export_for_training(m, (x,)\n"
    write_tree(tmp_path, files)
    code, output = run_on_a_terminal("--to", "2.12", "--diff", "--progress", "--jobs", "1", "--no-cache", "pkg", cwd=tmp_path)
    assert code == 2, output.decode(errors="replace")  # the syntax error
    assert b"migrating" in output  # the bar was drawn ...
    lines = screen_lines(output)
    assert not [line for line in lines if "migrating" in line or "━" in line], "\n".join(lines)  # ... and left nothing
    findings = [line for line in lines if ":2:6: export-for-inference" in line]
    assert len(findings) == 12 and all(line.startswith("pkg/kw") for line in findings), "\n".join(lines)
    assert [line for line in lines if line.startswith("--- a/")] == [f"--- a/pkg/legacy{n:02}.py" for n in range(12)]
    assert [line for line in lines if "error:" in line] == [
        next(line for line in lines if line.startswith("pkg/broken.py: error:"))
    ]
    assert lines[-1] == "torchmigrate: 25 files scanned, 12 would change, 12 findings, 1 error"


def test_no_color_terminal_gets_the_same_clean_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"kw{n}.py": FINDING for n in range(6)})
    code, output = run_on_a_terminal("--to", "2.12", "--check", "--progress", "--jobs", "1", "--no-cache", ".", cwd=tmp_path,
                                     env={"NO_COLOR": "1"})
    assert code == 1
    lines = screen_lines(output)
    assert b"migrating" in output
    assert not [line for line in lines if "migrating" in line], "\n".join(lines)
    assert [line.split(":")[0] for line in lines if ":2:6: export-for-inference" in line] == [f"kw{n}.py" for n in range(6)]
