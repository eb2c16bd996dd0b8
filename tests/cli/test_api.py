"""The Python API scripts use, and the bulk-migration example built on it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torchmigrate

ROOT = Path(__file__).resolve().parents[2]
TRAINING = "import torch as th\n\nep = th.export.export_for_training(m, (x,))\n"
FINDING = "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n"


def test_migrate_source_returns_code_edits_and_findings() -> None:
    result = torchmigrate.migrate_source(TRAINING, to="2.12")
    assert result.code == "import torch as th\n\nep = th.export.export(m, (x,))\n"
    assert [(e.line, e.col, e.pass_id) for e in result.edits] == [(3, 6, "export-for-training")]
    assert result.findings == [] and result.error is None
    found = torchmigrate.migrate_source(FINDING, to="2.12")
    assert found.code == FINDING and [f.pass_id for f in found.findings] == ["export-for-inference"]
    assert torchmigrate.migrate_source(TRAINING, to="2.10").code == TRAINING


def test_migrate_paths_is_the_same_with_jobs_and_cache(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"m{i:02d}.py").write_text([TRAINING, FINDING, "x = 1\n"][i % 3])
    plain = torchmigrate.migrate_paths([tmp_path], to="2.12")
    fast = torchmigrate.migrate_paths([tmp_path], to="2.12", jobs=2, cache=True)
    warm = torchmigrate.migrate_paths([tmp_path], to="2.12", jobs=2, cache=True)
    assert plain.to_dict() == fast.to_dict() == warm.to_dict()
    assert plain.summary.changed == 7 and plain.summary.findings == 7
    assert [r.code for r in plain.changed] == [r.code for r in warm.changed]
    written = torchmigrate.migrate_paths([tmp_path], to="2.12", write=True, jobs=2, cache=True)
    assert written.summary.changed == 7 and all(r.written for r in written.changed)
    assert torchmigrate.migrate_paths([tmp_path], to="2.12", cache=True).summary.changed == 0


def _repo(path: Path, text: str) -> Path:
    path.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "d@example.com"], ["config", "user.name", "D"]):
        subprocess.run(["git", "-C", str(path), *args], check=True)
    (path / "model.py").write_text(text)
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(path), "commit", "-qm", "init"], check=True)
    return path


def test_the_bulk_migration_example(tmp_path: Path) -> None:
    one = _repo(tmp_path / "one", TRAINING)
    two = _repo(tmp_path / "two", "x = 1\n")
    script = ROOT / "examples" / "bulk_migrate.py"
    dry = subprocess.run(
        [sys.executable, str(script), "--to", "2.12", "one", "two"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [
        "one: 1 files, 1 changed, 0 findings, 0 errors",
        "two: 1 files, 0 changed, 0 findings, 0 errors",
    ]
    assert "export_for_training" in (one / "model.py").read_text()
    assert (two / "model.py").read_text() == "x = 1\n"
    done = subprocess.run(
        [sys.executable, str(script), "--to", "2.12", "--branch", "torch-2.12", "one", "two"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "committed" in done.stdout.splitlines()[0]
    log = subprocess.run(["git", "-C", str(one), "log", "-1", "--format=%D %s"], capture_output=True, text=True, check=True)
    assert log.stdout.strip() == "HEAD -> torch-2.12 Migrate to PyTorch 2.12 with torchmigrate"
    status = subprocess.run(["git", "-C", str(one), "status", "--porcelain"], capture_output=True, text=True, check=True)
    assert status.stdout == ""
