"""The CLI harness every command-line test uses: the installed ``migrate`` run as a real process, or typer's
``CliRunner`` in this process, and small project trees written from a dict."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from torchmigrate.cli import app

MIGRATE = Path(sys.executable).with_name("migrate")


def _default_sigint() -> None:
    """In the child: the default SIGINT handler, even when the test run itself ignores SIGINT (a background job or
    ``nohup`` makes every child inherit SIG_IGN)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(*args: str, cwd: Path | str, timeout: float = 300, text: bool = False, env: Mapping[str, str] | None = None
        ) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    """``migrate ARGS`` in ``cwd`` as a real process; stdout and stderr captured (bytes, or ``text``)."""
    full_env = None if env is None else {**os.environ, **env}
    return subprocess.run(
        [str(MIGRATE), *args], cwd=cwd, capture_output=True, timeout=timeout, text=text, env=full_env,
        preexec_fn=_default_sigint,
    )


def popen(*args: str, cwd: Path | str) -> subprocess.Popen[bytes]:
    """``migrate ARGS`` started in the background (for signal tests), with the default SIGINT handler."""
    return subprocess.Popen(
        [str(MIGRATE), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_default_sigint
    )


def invoke(monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str) -> tuple[int, str, str]:
    """``migrate ARGS`` through typer's CliRunner in this process: (exit code, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative path → text or bytes) under ``root``; return ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root
