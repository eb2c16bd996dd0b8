"""Shell scripts (``*.sh``) are project files: discovered, read like Dockerfiles, never a source of ``--from``."""

from __future__ import annotations

import json
from pathlib import Path, PurePath

from torchmigrate import migrate_paths
from torchmigrate.project.detect import detect_pinned_version
from torchmigrate.project.pins import project_kind
from torchmigrate.run.files import discover


def test_shell_scripts_are_discovered_as_project_files(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train.sh").write_text("python -m torch.distributed.launch train.py\n")
    (tmp_path / "notes.md").write_text("python -m torch.distributed.launch train.py\n")
    assert [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])] == ["scripts/train.sh"]
    assert project_kind(PurePath("scripts/train.sh")) == "shell"
    assert project_kind(PurePath("scripts/train.bash")) is None


def test_a_shell_script_does_not_set_from(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.sh").write_text("pip install torch==1.13.1\n")
    assert detect_pinned_version(tmp_path) is None


def test_launch_commands_in_a_tree_are_reported_not_rewritten(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    text = "#!/bin/sh\npython -m torch.distributed.launch --nproc_per_node=2 train.py\n"
    script.write_text(text)
    report = migrate_paths([tmp_path], to="2.12", write=True, jobs=1, cache=False)
    assert script.read_text() == text
    findings = [f for r in report.results for f in r.findings]
    assert [(f.line, f.pass_id) for f in findings] == [(2, "distributed-launch")]
    assert "LOCAL_RANK" in findings[0].message


def test_launch_commands_in_notebook_shell_lines_are_reported(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    cells = [
        {**cell, "source": ["import torch\n"]},
        {**cell, "source": ["!python -m torch.distributed.launch --use_env --nproc_per_node 2 train.py\n", "x = 1\n"]},
    ]
    nb = tmp_path / "launch.ipynb"
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    nb.write_text(text)
    report = migrate_paths([nb], to="2.12", write=True, jobs=1, cache=False)
    assert nb.read_text() == text
    findings = [f for r in report.results for f in r.findings]
    assert [f.pass_id for f in findings] == ["distributed-launch"]
    assert "cell 2" in findings[0].message and "drop --use-env" in findings[0].message
