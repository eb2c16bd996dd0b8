"""User code is never imported or run: files that leave a marker when executed stay silent through every mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import MIGRATE

import torchmigrate

LEGACY_CALL = "torch.export.export_for_inference(model, (x,))"
MIGRATED_CALL = "torch.export.export(model, (x,), strict=True).run_decompositions()"

# Every place Python (or a tool built on it) might execute a file from a project, each with legacy code in it so
# that the tool does parse and rewrite it. The names that shadow our own imports matter for `python -m`, which puts
# the working directory first on sys.path.
NAMES = [
    "module.py",
    "main_guard.py",
    "conftest.py",
    "setup.py",
    "sitecustomize.py",
    "usercustomize.py",
    "pkg/__init__.py",
    "pkg/__main__.py",
    "libcst.py",
    "typer.py",
    "pathspec.py",
    "tokenize.py",
    "difflib.py",
]


def marker_code(markers: Path, name: str) -> str:
    target = markers / name.replace("/", "_")
    return f"import torch\nopen({str(target)!r}, 'w').close()\nep = {LEGACY_CALL}\n"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    project, markers = tmp_path / "project", tmp_path / "markers"
    markers.mkdir()
    (project / "pkg").mkdir(parents=True)
    for name in NAMES:
        code = marker_code(markers, name)
        if name == "main_guard.py":
            code = (
                f"import torch\n\ndef export(model, x):\n    return {LEGACY_CALL}\n\n"
                f"if __name__ == '__main__':\n    open({str(markers / name)!r}, 'w').close()\n"
            )
        (project / name).write_text(code)
    (project / "zz_marker.pth").write_text(f"import os; open({str(markers / 'pth')!r}, 'w').close()\n")
    return project, markers


def test_the_markers_work(tree: tuple[Path, Path]) -> None:
    """The files do leave their marker when Python runs them (so the tests below can fail)."""
    project, markers = tree
    for name in ("module.py", "main_guard.py"):
        # -I keeps the project's tokenize.py & co. off sys.path; a stub torch keeps this fast.
        script = f"import runpy, sys, types; sys.modules['torch'] = types.ModuleType('torch'); runpy.run_path({name!r}, run_name='__main__')"
        subprocess.run([sys.executable, "-I", "-c", script], cwd=project, capture_output=True)
    assert sorted(p.name for p in markers.iterdir()) == ["main_guard.py", "module.py"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONSAFEPATH", None)  # prove the tool itself keeps the project off sys.path
    env.pop("PYTHONPATH", None)
    return env


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "torchmigrate", "--to", "2.12", "--from", "2.7", "--diff", "."],
        [str(MIGRATE), "--to", "2.12", "--from", "2.7", "."],
    ],
    ids=["module-diff", "write"],
)
def test_migrate_never_executes_user_code(tree: tuple[Path, Path], command: list[str]) -> None:
    project, markers = tree
    proc = subprocess.run(command, cwd=project, capture_output=True, env=_env(), timeout=120)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert list(markers.iterdir()) == []
    # The files were read and migrated, not skipped.
    assert proc.stderr.decode().splitlines()[-1].startswith(f"torchmigrate: {len(NAMES)} files scanned, {len(NAMES)} ")
    if "--diff" in command:
        assert proc.stdout.count(MIGRATED_CALL.encode()) == len(NAMES)
    if "--diff" not in command and "--check" not in command:
        assert all(MIGRATED_CALL in (project / name).read_text() for name in NAMES)


def test_the_python_api_never_executes_user_code(tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    project, markers = tree
    monkeypatch.chdir(project)
    report = torchmigrate.migrate_paths(["."], to="2.12", from_="2.7", write=True)
    assert report.summary.changed == len(NAMES)
    assert list(markers.iterdir()) == []
