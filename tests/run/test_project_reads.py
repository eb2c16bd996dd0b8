"""A run reads each project's requirements, CI and style files once (``ProjectReads``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.cli import invoke

from torchmigrate.api import migrate_paths
from torchmigrate.core.versions import Version
from torchmigrate.project import detect
from torchmigrate.run import codestyle
from torchmigrate.run.plan import ProjectReads, make_options, root_options

CI = """\
jobs:
  test:
    strategy:
      matrix:
        torch: ["1.13.1", "2.4.0"]
    steps:
      - run: pip install torch==${{ matrix.torch }}
"""

# an edit whose new form needs torch 2.6: held back by the CI's floor
CODE = "import torch\n\nep = torch.export.export_for_training(m, (x,))\n"


def _project(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(CI)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.ruff]\nline-length = 100\n')
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text(CODE)
    (root / "pkg" / "b.py").write_text("import torch\n")
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each project file is read for the floor (CI, requirements) and for the layout (pyproject)."""
    counted: Counter[str] = Counter()
    read, toml = detect._read, codestyle._toml

    def counting_read(path: Path) -> str:
        counted[path.name] += 1
        return read(path)

    def counting_toml(path: Path) -> object:
        counted[path.name] += 1
        return toml(path)

    monkeypatch.setattr(detect, "_read", counting_read)
    monkeypatch.setattr(codestyle, "_toml", counting_toml)
    return counted


def test_the_command_reads_the_ci_and_the_style_files_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: Counter[str]
) -> None:
    root = _project(tmp_path)
    root_options(root, make_options("2.12"), True)
    one = Counter(reads)  # what one reading of the project reads
    assert one["ci.yml"] == 1 and one["pyproject.toml"] >= 1
    reads.clear()
    code, out, err = invoke(monkeypatch, root, "--to", "2.12", "--diff", "--no-cache", "--jobs", "1", ".")
    assert code == 0, err
    assert "must still run on torch 1.13" in err  # the CI floor was read and applied
    assert reads == one


def test_the_layout_reads_pyproject_once(tmp_path: Path, reads: Counter[str]) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n\n[tool.yapf]\ncolumn_limit = 90\n")
    assert codestyle.detect_layout(tmp_path).line_length == 90
    assert reads["pyproject.toml"] == 1


def test_paths_of_one_folder_share_one_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: Counter[str]) -> None:
    """Files of one folder named on the command line (as pre-commit names them): one reading for all of them, and one
    for the repository they make up (its report and commit messages; was: one per file, and the repository's)."""
    root = _project(tmp_path)
    (root / "pkg" / "c.py").write_text("import torch\n")
    named = ("pkg/a.py", "pkg/b.py", "pkg/c.py")
    code, _, err = invoke(monkeypatch, root, "--to", "2.12", "--check", "--no-cache", "--jobs", "1", *named)
    assert code == 1 and "must still run on torch 1.13" in err
    assert reads["ci.yml"] == 2, reads


def test_the_python_api_reads_each_project_once(tmp_path: Path, reads: Counter[str]) -> None:
    """``--select`` with ``--from`` read from the pin: the warning and the plan share one reading."""
    root = _project(tmp_path)
    (root / "requirements.txt").write_text("torch==2.11.0\n")
    root_options(root / "pkg", make_options("2.12", select=["onnx-dynamo-default"]), True)
    one = Counter(reads)
    reads.clear()
    with pytest.warns(UserWarning, match="does nothing"):  # the pass is below the project's pin
        report = migrate_paths([root / "pkg"], to="2.12", select=["onnx-dynamo-default"])
    assert report.changed == []
    assert reads == one and one["requirements.txt"] >= 1


def test_a_reading_is_what_root_options_reads_for_the_folder(tmp_path: Path) -> None:
    root = _project(tmp_path)
    options = make_options("2.12")
    shared = ProjectReads()
    chosen = shared.options(root / "pkg" / "a.py", options, True)
    assert chosen == root_options(root / "pkg", options, True)
    assert chosen.min_torch == Version(1, 13) and chosen.layout.line_length == 100
    assert shared.options(root / "pkg" / "b.py", options, True) is chosen  # same folder
    assert shared.options(root / "pkg", chosen, False) is chosen  # read again with what it settled: the same
    assert shared.options(root, options, True) is not chosen  # another folder is read on its own
