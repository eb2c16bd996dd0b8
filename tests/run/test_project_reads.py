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
from torchmigrate.run.cache import CacheSet
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


# --- across runs: readings kept in the project's cache -----------------------------------------------------------


def _settled(root: Path) -> None:
    """Every file of ``root`` last modified a minute ago (a reading of files modified within two seconds is not kept)."""
    import os
    import time

    past = time.time() - 60
    for path in root.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)


def test_a_warm_run_serves_the_reading_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: Counter[str]
) -> None:
    root = _project(tmp_path)
    (root / "requirements.txt").write_text("torch==2.4.0\n")  # moves to 2.12: the reading runs the project passes
    _settled(root)
    cold = invoke(monkeypatch, root, "--to", "2.12", "--diff", "--jobs", "1", ".")
    assert reads["requirements.txt"] >= 1
    reads.clear()
    warm = invoke(monkeypatch, root, "--to", "2.12", "--diff", "--jobs", "1", ".")
    assert warm == cold and "+++ b/requirements.txt" in warm[1]
    assert reads == Counter(), reads  # nothing read for the floor or the layout
    reads.clear()
    uncached = invoke(monkeypatch, root, "--to", "2.12", "--diff", "--jobs", "1", "--no-cache", ".")
    assert uncached == cold and reads["requirements.txt"] >= 1  # --no-cache reads the project


@pytest.mark.parametrize(
    "change",
    ["edit the requirement", "add a requirements file", "remove the CI file", "edit the CI file", "set a line length",
     "add .git below"],
)
def test_any_change_to_what_is_read_reads_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    root = _project(tmp_path)
    (root / "pkg" / "sub").mkdir()
    (root / "pkg" / "sub" / "a.py").write_text(CODE)
    _settled(root)
    options = make_options("2.12")
    caches_first = CacheSet()
    first = ProjectReads(caches_first).options(root / "pkg" / "sub", options, True)
    caches_first.close()
    ci = root / ".github" / "workflows" / "ci.yml"
    if change == "edit the requirement":
        (root / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.6"]\n[tool.ruff]\nline-length = 100\n')
    elif change == "add a requirements file":
        (root / "pkg" / "requirements.txt").write_text("torch>=2.6\n")
    elif change == "remove the CI file":
        ci.unlink()
    elif change == "edit the CI file":
        ci.write_text(CI.replace('"1.13.1"', '"2.0.1"'))
    elif change == "set a line length":
        (root / "pkg" / "sub" / "ruff.toml").write_text("line-length = 88\n")
    else:
        (root / "pkg" / ".git").mkdir()  # pkg/ is now a repository of its own: its CI is not the top's
    _settled(root)
    caches = CacheSet()
    again = ProjectReads(caches).options(root / "pkg" / "sub", options, True)
    caches.close()
    assert again == root_options(root / "pkg" / "sub", options, True) != first


def test_a_reading_of_just_modified_files_is_not_kept(tmp_path: Path, reads: Counter[str]) -> None:
    """A file modified within two seconds could change again in the same tick of a coarse clock."""
    root = _project(tmp_path)
    options = make_options("2.12")
    for _ in range(2):
        caches = CacheSet()
        ProjectReads(caches).options(root / "pkg", options, True)
        caches.close()
    assert reads["ci.yml"] == 2


def test_the_signature_covers_every_file_the_readers_open(tmp_path: Path) -> None:
    """Every file and folder ``root_options`` opens, on a project with each kind of file it reads, lies where
    ``project_signature`` looks: a reader that opened another file would be served a stale reading."""
    import os
    import sys

    files = {
        "requirements.txt": "torch==2.4.0\n-r requirements/extra.txt\n",
        "requirements/extra.txt": "torch>=2.1\n",
        "constraints.txt": "torch<3\n",
        "environment.yml": "dependencies:\n  - pytorch=2.1\n",
        "setup.cfg": "[options]\ninstall_requires =\n    torch>=2.0\n[flake8]\nmax-line-length = 100\n[yapf]\ncolumn_limit = 90\n",
        "setup.py": "from setuptools import setup\nsetup(install_requires=['torch>=2.0'])\n",
        "pyproject.toml": '[project]\nname = "p"\ndependencies = ["torch>=2.0"]\n[tool.black]\nline-length = 99\n',
        "ruff.toml": "line-length = 95\n",
        "tox.ini": "[flake8]\nmax-line-length = 110\n",
        ".flake8": "[flake8]\nmax-line-length = 120\n",
        ".style.yapf": "[style]\ncolumn_limit = 80\n",
        ".pre-commit-config.yaml": "repos:\n- repo: x\n  hooks:\n  - id: black\n",
        "Dockerfile": "RUN pip install torch==2.2.0\n",
        ".gitlab-ci.yml": "test:\n  script: pip install torch==1.13.1\n",
        ".travis.yml": "install: pip install torch==1.12.0\n",
        "azure-pipelines.yml": "steps:\n- script: pip install torch==1.11.0\n",
        ".circleci/config.yml": "jobs:\n  t:\n    steps:\n    - run: pip install torch==1.10.0\n",
        ".github/workflows/ci.yml": CI,
        "pkg/setup.cfg": "[flake8]\nmax-line-length = 100\n",
        "pkg/sub/requirements-dev.txt": "numpy\n",
        "pkg/sub/a.py": CODE,
    }
    opened: list[Path] = []
    watching = [False]

    def hook(event: str, args: tuple[object, ...]) -> None:
        if watching[0] and event in ("open", "os.scandir", "os.listdir") and args and isinstance(args[0], (str, Path)):
            path = Path(os.path.abspath(args[0]))
            if tmp_path in path.parents:
                opened.append(path)

    sys.addaudithook(hook)  # audit hooks stay for the process: this one records only while watching
    declaring = ("requirements", "constraints", "environment", "setup", "pyproject", "Dockerfile")
    ci_only = {name: text for name, text in files.items() if not name.startswith(declaring)}
    for top, written in (("with-git", files), ("without-git", files), ("ci-only", ci_only)):
        root = tmp_path / top / "project"
        for name, text in written.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        if top != "without-git":
            (root / ".git").mkdir()
        covered = set()
        for candidate in (root / "pkg" / "sub", *(root / "pkg" / "sub").parents):
            covered |= {candidate, candidate / ".github", candidate / ".github" / "workflows", candidate / ".circleci"}
            if (candidate / ".git").exists():
                break
        opened.clear()
        watching[0] = True
        try:
            for detect_from in (True, False):
                for unsafe in (False, True):
                    root_options(root / "pkg" / "sub", make_options("2.12", unsafe_fixes=unsafe), detect_from)
        finally:
            watching[0] = False
        names = {p.name for p in opened}
        expected = {"ci.yml", "config.yml", ".travis.yml"} if top == "ci-only" else {"requirements.txt", "pyproject.toml"}
        assert expected | {"setup.cfg", "ruff.toml"} <= names, names
        stray = [p for p in opened if p not in covered and p.parent not in covered]
        assert stray == [], stray


_PROBE = """
import sys
from torchmigrate.cli import main
sys.argv = ["migrate", "--to", "2.12", "--diff", "--no-progress", "."]
try:
    main()
except SystemExit:
    pass
watched = ("pathspec", "torchmigrate.project.pins", "torchmigrate.project.detect", "torchmigrate.run.codestyle", "yaml")
print("loaded:", sorted(m for m in watched if m in sys.modules), file=sys.stderr)
"""


def test_a_warm_run_loads_no_project_reader(tmp_path: Path) -> None:
    """With the reading kept, a warm run imports neither the requirement and CI readers (their patterns) nor the
    layout readers; pathspec only where a .gitignore or an exclude pattern is there to match."""
    import subprocess
    import sys

    root = _project(tmp_path)
    (root / "requirements.txt").write_text("torch==2.4.0\n")
    _settled(root)

    def loaded() -> str:
        run = subprocess.run([sys.executable, "-c", _PROBE], cwd=root, capture_output=True, text=True, check=False)
        return run.stderr.splitlines()[-1]

    cold, warm = loaded(), loaded()
    assert "torchmigrate.project.detect" in cold and "yaml" in cold
    assert warm == "loaded: []"
    (root / ".gitignore").write_text("*.log\n")
    _settled(root)
    loaded()  # the new .gitignore is in the root folder: the reading is read again once
    assert loaded() == "loaded: ['pathspec']"
