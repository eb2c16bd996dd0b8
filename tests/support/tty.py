"""A pseudo-terminal for CLI tests: ``migrate`` with stdin, stdout and stderr on one terminal of a given size, and what
a user sees on it afterwards (read back through the ``pyte`` terminal emulator, scrollback included)."""

from __future__ import annotations

import errno
import fcntl
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path

import pyte

from support.cli import MIGRATE

COLUMNS, ROWS = 300, 20  # wide enough that no finding wraps


def run_on_a_terminal(
    *args: str, cwd: Path, env: dict[str, str] | None = None, rows: int = ROWS, columns: int = COLUMNS
) -> tuple[int, bytes]:
    """``migrate ARGS`` with stdin, stdout and stderr on one pseudo-terminal of ``columns`` × ``rows``: (exit code, the
    bytes it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    environ.update({"TERM": "xterm-256color", **(env or {})})
    proc = subprocess.Popen([str(MIGRATE), *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=environ,
                            start_new_session=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as exc:  # EIO: the child closed the terminal
            if exc.errno != errno.EIO:
                raise
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks)


def screen_lines(output: bytes, rows: int = ROWS, columns: int = COLUMNS) -> list[str]:
    """Every line a user can see after the run: the scrollback, then the screen (trailing blanks dropped)."""
    screen = pyte.HistoryScreen(columns, rows, history=100_000)
    pyte.Stream(screen).feed(output.decode("utf-8", "replace"))
    history = ["".join(line[x].data for x in range(columns)).rstrip() for line in screen.history.top]
    lines = history + [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines
