"""The Ray executor gives the same JSON report as the local one (against a local Ray, one CPU)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from torchmigrate import migrate_paths
from torchmigrate.cli import app

ray = pytest.importorskip("ray")

FILES = {
    "a/legacy.py": "import torch\n\nep = torch.export.export_for_inference(model, (x,), decomp_table=table)\n",
    "a/training.py": "from torch.export import export_for_training as eft\n\nep = eft(m, (x,))\n",
    "b/finding.py": "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n",
    "b/broken.py": "import torch\nep = torch.export.export_for_training(m, (x,)\n",
    "b/modern.py": "import torch\n\nep = torch.export.export(m, (x,))\n",
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_ray_and_local_reports_are_identical(local_ray: None, tree: Path) -> None:
    runner = CliRunner()
    common = ["--to", "2.12", "--from", "2.7", "--diff", "--no-cache", "--no-progress", "a", "b"]
    local = runner.invoke(app, [*common, "--jobs", "2", "--report", "local.json"])
    remote = runner.invoke(app, [*common, "--executor", "ray", "--report", "ray.json"])
    assert local.exit_code == remote.exit_code == 2  # broken.py
    assert local.stdout == remote.stdout and "+from torch.export import export as eft" in local.stdout
    local_report = json.loads((tree / "local.json").read_text())
    ray_report = json.loads((tree / "ray.json").read_text())
    assert local_report == ray_report
    assert local_report["summary"] == {
        "repos": 2, "files": 5, "changed": 2, "edits": 3, "findings": 1, "errors": 1, "unsafe_fixes": 0
    }
    # The Python API too, written back to disk.
    written = migrate_paths(["a"], to="2.12", from_="2.7", write=True, executor="ray", unsafe_fixes=True)
    assert written.summary.changed == 2 and all(r.written for r in written.changed)
    assert "export_for_training" not in (tree / "a" / "training.py").read_text()
