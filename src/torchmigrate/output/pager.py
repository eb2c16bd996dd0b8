"""Long text on a terminal goes through a pager, as ``git`` and ``man`` do it.

Only when stdout is a terminal and the text is taller than it: ``$PAGER`` (run by the shell, so it may carry
options), else ``less``; ``PAGER=cat`` (or empty) turns paging off. ``LESS`` defaults to ``FRX`` as git sets it:
colours pass through, and a text that fits on one screen is not held. A pager that cannot be started falls back to
printing the text.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import TextIO

__all__ = ["pager_command", "show"]


def pager_command(env: Mapping[str, str]) -> str | None:
    """The pager to run, or ``None`` for none."""
    command = env.get("PAGER")
    if command is None:
        return "less" if shutil.which("less") else None
    command = command.strip()
    return None if command in ("", "cat") else command


def show(text: str, stream: TextIO | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Print ``text`` on ``stream`` (stdout), through the pager when the stream is a terminal and ``text`` does not
    fit on it. True when a pager showed it."""
    out = sys.stdout if stream is None else stream
    environ = os.environ if env is None else env
    command = pager_command(environ)
    try:
        terminal = out.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if command is not None and terminal and text.count("\n") >= shutil.get_terminal_size().lines:
        if _run_pager(command, text, environ):
            return True
    out.write(text)
    out.flush()
    return False


def _run_pager(command: str, text: str, env: Mapping[str, str]) -> bool:
    child_env = {**env, "LESS": env.get("LESS", "FRX"), "LV": env.get("LV", "-c")}
    try:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=child_env)
    except OSError:
        return False
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", "replace"))
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the reader quit before the end
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:
            continue  # Ctrl-C belongs to the pager (less ignores it while it shows the text), as with git
    return code != 127  # the shell could not find the pager: print instead
