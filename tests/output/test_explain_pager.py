"""`--explain` on a terminal pages documentation taller than the terminal (``$PAGER``, else less), as git and man do;
short text, a pipe, or ``PAGER=cat`` print directly. Through the real command on a pseudo-terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import MIGRATE
from support.tty import run_on_a_terminal, screen_lines

from torchmigrate.core.registry import get_pass
from torchmigrate.output.docs import render_explain

LONG = "jit-to-export"  # documentation of well over 100 lines


@pytest.fixture
def pager(tmp_path: Path) -> tuple[str, Path]:
    """A pager that records what it was given (its input and the LESS it saw) instead of showing it."""
    script = tmp_path / "pager.py"
    seen = tmp_path / "paged.txt"
    script.write_text(
        "import os, sys\n"
        f"data = sys.stdin.buffer.read()\nopen({str(seen)!r}, 'wb').write(data)\n"
        f"open({str(seen)!r} + '.env', 'w').write(os.environ.get('LESS', ''))\n"
    )
    return f"{sys.executable} {script}", seen


def test_long_documentation_is_paged(tmp_path: Path, pager: tuple[str, Path]) -> None:
    command, seen = pager
    lines = render_explain(get_pass(LONG)).count("\n")
    assert lines > 60
    code, output = run_on_a_terminal("--explain", LONG, cwd=tmp_path, env={"PAGER": command}, rows=40, columns=120)
    assert code == 0
    paged = seen.read_bytes().decode()
    assert "jit-to-export" in paged and "\x1b[" in paged  # the rendered (coloured) documentation went to the pager
    assert "## Examples" not in paged  # rendered Markdown, not its source
    assert seen.with_name("paged.txt.env").read_text() == "FRX"  # as git sets it: colours pass, a short text quits
    assert "Examples" not in "\n".join(screen_lines(output, rows=40, columns=120))  # nothing printed past the pager


def test_short_text_a_pipe_and_pager_cat_print_directly(tmp_path: Path, pager: tuple[str, Path]) -> None:
    command, seen = pager
    # A terminal tall enough for the whole documentation: printed, no pager.
    code, output = run_on_a_terminal("--explain", LONG, cwd=tmp_path, env={"PAGER": command}, rows=2000, columns=120)
    assert code == 0 and not seen.exists()
    assert any("Examples" in line for line in screen_lines(output, rows=2000, columns=120))
    # PAGER=cat turns paging off.
    code, output = run_on_a_terminal("--explain", LONG, cwd=tmp_path, env={"PAGER": "cat"}, rows=40, columns=120)
    assert code == 0 and b"Examples" in output
    # A pipe: the plain documentation, never a pager.
    proc = subprocess.run([str(MIGRATE), "--explain", LONG], cwd=tmp_path, capture_output=True, timeout=120,
                          env={**os.environ, "PAGER": command})
    assert proc.stdout.decode() == render_explain(get_pass(LONG)) and not seen.exists()


def test_the_real_less(tmp_path: Path) -> None:
    """With no PAGER, less shows the documentation and quits on `q`; the command then exits 0."""
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    import errno
    import fcntl
    import pty
    import select
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("PAGER", "LESS", "NO_COLOR")}
    proc = subprocess.Popen([str(MIGRATE), "--explain", LONG], cwd=tmp_path, stdin=slave, stdout=slave, stderr=slave,
                            env={**env, "TERM": "xterm"}, start_new_session=True)
    os.close(slave)
    output = b""
    deadline = time.monotonic() + 60
    while b"jit-to-export" not in output and time.monotonic() < deadline:
        output += os.read(master, 65536)
    while select.select([master], [], [], 1.0)[0]:  # the first screen, until the terminal is quiet
        output += os.read(master, 65536)
    # less holds the text: one screen shown (the documentation is over 100 lines), the command waits for it.
    assert proc.poll() is None
    assert output.count(b"\n") < 30, output.decode(errors="replace")
    os.write(master, b"q")
    try:
        while True:
            chunk = os.read(master, 65536)
            if not chunk:
                break
    except OSError as exc:
        if exc.errno != errno.EIO:
            raise
    os.close(master)
    assert proc.wait(timeout=60) == 0
    assert b"jit-to-export" in output
