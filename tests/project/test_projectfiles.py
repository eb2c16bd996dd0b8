"""Project files: torch pins move to the target in the author's style, CUDA indexes follow the builds, Python floors
are reported; ``--from`` reads the same pins."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePath

import pytest
from support.cli import MIGRATE

from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult
from torchmigrate.core.versions import Version, parse_version
from torchmigrate.project.detect import detect_pinned_version
from torchmigrate.project.ecosystem import CUDA_BUILDS, python_floor, torchaudio_for, torchvision_for
from torchmigrate.project.pins import project_kind
from torchmigrate.project.specs import admits, move_spec
from torchmigrate.run.files import discover
from torchmigrate.run.handlers import migrate_file_text

ROOT = Path(__file__).resolve().parents[2]
V2_12 = Version(2, 12)


def migrate(name: str, text: str, to: str = "2.12", unsafe_fixes: bool = True, **kw: object) -> FileResult:
    """Migrate one project file; ``unsafe_fixes`` by default, as these tests are about the edits (cuda-wheels is
    review-level: see test_review_level_project_edits_are_suggested_not_made for the default)."""
    options = Options(to=parse_version(to), from_=parse_version("2.7"), unsafe_fixes=unsafe_fixes, **kw)  # type: ignore[arg-type]
    result = migrate_file_text(PurePath(name), text, options, name)
    assert result.error is None, result.error
    return result


@pytest.mark.parametrize(
    ("spec", "moved"),
    [
        ("==2.7.1", "==2.12.0"),
        ("==2.7", "==2.12"),
        ("==2.7.*", "==2.12.*"),
        ("===2.7.1", "===2.12.0"),
        ("~=2.7.0", "~=2.12.0"),
        (">=2.4,<2.8", ">=2.4,<2.13"),
        ("<2.8,>=2.4", "<2.13,>=2.4"),
        (">=2.4, <2.8.0", ">=2.4, <2.13.0"),
        ("<=2.7.1", "<=2.12.0"),
        ("==2.7.1+cu128", "==2.12.0+cu128"),
        ("~=2.7", None),  # >=2.7,<3 admits 2.12
        (">=2.4", None),
        ("==2.12.1", None),
        (">=2.13", None),  # never lowered
        ("==2.13.0", None),
        (">=2.4,!=2.12.*", None),  # cannot be moved: reported
    ],
)
def test_move_spec(spec: str, moved: str | None) -> None:
    assert move_spec(spec, V2_12) == moved
    if moved is not None:
        assert admits(moved, V2_12) and not admits(spec, V2_12)


def test_ecosystem_facade() -> None:
    """The feature-level views of the compatibility table (see test_table.py for the table itself)."""
    assert torchvision_for(V2_12) == Version(0, 27)
    assert torchvision_for(Version(2, 5)) == Version(0, 20)
    assert torchvision_for(Version(1, 13)) == Version(0, 14)
    assert torchvision_for(Version(2, 15)) == Version(0, 29)
    assert torchaudio_for(Version(2, 11)) == Version(2, 11)
    assert torchaudio_for(V2_12) == Version(2, 11)  # torchaudio 2.11.1 requires torch>=2.11 (pytorch/audio#4212)
    assert 128 not in CUDA_BUILDS[V2_12] and 130 in CUDA_BUILDS[V2_12]
    assert python_floor(V2_12) == (3, 10) and python_floor(Version(2, 7)) == (3, 9) and python_floor(Version(1, 9)) == (3, 7)


REQUIREMENTS = """\
# pinned for CUDA 12.8
--extra-index-url https://download.pytorch.org/whl/cu128
torch==2.7.1+cu128 ; platform_system == "Linux"  # the GPU build
torchvision>=0.22,<0.23
torch-tensorrt==2.7.0
pytorch-lightning==2.5.0
numpy>=1.26
torchaudio~=2.7.0
-f https://download.pytorch.org/whl/nightly/cu128
"""
REQUIREMENTS_AFTER = """\
# pinned for CUDA 12.8
--extra-index-url https://download.pytorch.org/whl/cu130
torch==2.12.1+cu130 ; platform_system == "Linux"  # the GPU build
torchvision>=0.22,<0.28
torch-tensorrt==2.12.1
pytorch-lightning==2.5.0
numpy>=1.26
torchaudio~=2.11.0
-f https://download.pytorch.org/whl/nightly/cu128
"""


def test_requirements_file() -> None:
    result = migrate("requirements-gpu.txt", REQUIREMENTS)
    assert result.code == REQUIREMENTS_AFTER  # the set moves as a whole; the nightly find-links line stays
    assert not result.findings
    cuda = [e for e in result.edits if e.pass_id == "cuda-wheels"]
    assert len(cuda) == 2 and all(e.safety == "review" for e in cuda)
    assert "NVIDIA driver >= 580" in cuda[0].message and "compute capability >= 7.5" in cuda[0].message
    assert "cu126" in cuda[0].message  # the alternative for older GPUs is named
    # at 2.11 the set moves to 2.11.0, whose cu128 build exists: the index stays
    at_2_11 = migrate("requirements.txt", REQUIREMENTS, to="2.11").code
    assert "torch==2.11.0+cu128" in at_2_11 and "torchaudio~=2.11.0" in at_2_11 and "whl/cu128\n" in at_2_11


PYPROJECT = """\
[project]
name = "app"
requires-python = ">=3.8"
dependencies = [
    "torch>=2.4,<2.8",
    'torchvision==0.22.1',
]

[project.optional-dependencies]
gpu = ["torch[opt-einsum]~=2.7.0"]

[[tool.uv.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
"""


def test_pyproject() -> None:
    result = migrate("pyproject.toml", PYPROJECT)
    assert result.code == PYPROJECT.replace("<2.8", "<2.13").replace("0.22.1", "0.27.1").replace("~=2.7.0", "~=2.12.0").replace(
        "whl/cu128", "whl/cu130"
    )
    assert [f.render("p") for f in result.findings] == [
        "p:3:20: python-floor the Python floor '>=3.8' admits Python 3.8, but torch 2.12 needs Python >= 3.10: raise it to '>=3.10'"
    ]


def test_hashed_requirements_are_a_lock_file() -> None:
    text = "torch==2.7.1 \\\n    --hash=sha256:0123\nnumpy==1.26.4 --hash=sha256:4567\n"
    result = migrate("requirements.txt", text)
    assert result.code == text
    assert [f.message for f in result.findings] == [
        "requirements.txt is a lock file (torch==2.7.1): lock files are not edited. Once the source requirements admit "
        "torch 2.12 (move them if they do not), regenerate it: `pip-compile --generate-hashes (or uv pip compile "
        "--generate-hashes)`"
    ]


def test_direct_wheel_links_are_reported() -> None:
    text = "torch @ https://download.pytorch.org/whl/cu128/torch-2.7.1%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl\n"
    result = migrate("requirements.txt", text)
    assert result.code == text
    [message] = [f.message for f in result.findings]
    assert "a direct wheel link pins torch 2.7.1: replace it with a requirement on torch 2.12.1 by hand" in message
    current = "torch @ https://example.org/torch-2.12.0-cp311-cp311-linux_x86_64.whl\n"
    assert not migrate("requirements.txt", current).findings


def test_pep_508_forms() -> None:
    text = '[project]\ndependencies = ["torch (>=2.4, <2.8)", "torch[opt-einsum] ==2.7.1 ; python_version >= \'3.10\'"]\n'
    assert migrate("pyproject.toml", text).code == text.replace("<2.8", "<2.13").replace("==2.7.1", "==2.12.1")
    assert migrate("pyproject.toml", text.replace("[project]", "[tool.other]")).code == text.replace("[project]", "[tool.other]")


def test_poetry_constraints() -> None:
    text = (
        "[tool.poetry.dependencies]\n"
        'python = "^3.10"\n'
        'torch = "2.7.1"\n'
        'torchvision = { version = "^0.22.1", source = "pytorch" }\n'
        "[tool.poetry.group.dev.dependencies]\n"
        "torch = '~2.7'\n"
        'torchaudio = ">=2.4 <2.8"\n'
        'numpy = "^1.26"\n'
    )
    result = migrate("pyproject.toml", text, to="2.11")
    assert result.code == (
        "[tool.poetry.dependencies]\n"
        'python = "^3.10"\n'
        'torch = "2.11.0"\n'
        'torchvision = { version = "^0.26.0", source = "pytorch" }\n'
        "[tool.poetry.group.dev.dependencies]\n"
        "torch = '~2.11'\n"
        'torchaudio = ">=2.4 <2.12"\n'
        'numpy = "^1.26"\n'
    )
    assert migrate("pyproject.toml", 'torch = "^2.4"\n').code == 'torch = "^2.4"\n'  # ^2.4 admits every 2.x
    floor = migrate("pyproject.toml", '[tool.poetry.dependencies]\npython = ">=3.8,<3.13"\n')
    assert [f.render("p") for f in floor.findings] == [
        "p:2:11: python-floor the Python constraint '>=3.8,<3.13' admits Python 3.8, but torch 2.12 needs Python >= 3.10: "
        "raise it to '>=3.10'"
    ]
    assert not migrate("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.10"\n').findings


def test_setup_py_edits_string_literals_only_and_never_runs_it(tmp_path: Path) -> None:
    code = (
        "raise SystemExit('never run me')\n"
        "# torch==2.7.1 in a comment stays\n"
        "setup(install_requires=['torch==2.7.1', \"torchvision>=0.19,<0.23\"], python_requires='>=3.9')\n"
    )
    result = migrate("setup.py", code)
    assert result.code == (
        "raise SystemExit('never run me')\n"
        "# torch==2.7.1 in a comment stays\n"
        "setup(install_requires=['torch==2.12.1', \"torchvision>=0.19,<0.28\"], python_requires='>=3.9')\n"
    )
    assert [f.pass_id for f in result.findings] == ["python-floor"]


def test_setup_cfg_dockerfile_and_ci() -> None:
    cfg = "[options]\npython_requires = >=3.9\ninstall_requires =\n    torch>=2.5,<2.8\n"
    result = migrate("setup.cfg", cfg)
    assert result.code == cfg.replace("<2.8", "<2.13") and len(result.findings) == 1
    docker = (
        "FROM python:3.10-slim\n"
        "ENV PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cu128\n"
        "RUN pip install --no-cache-dir \\\n"
        "      torch==2.7.1 \\\n"
        "      torchvision==0.22.1\n"
        "COPY torch==2.7.1 /app/\n"
    )
    result = migrate("Dockerfile", docker)
    assert result.code == (
        "FROM python:3.10-slim\n"
        "ENV PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cu130\n"
        "RUN pip install --no-cache-dir \\\n"
        "      torch==2.12.1 \\\n"
        "      torchvision==0.27.1\n"
        "COPY torch==2.7.1 /app/\n"  # not a pip command
    )
    assert not result.findings
    old_python = migrate("Dockerfile", docker.replace("3.10-slim", "3.9-slim"))
    assert old_python.code == docker.replace("3.10-slim", "3.9-slim")  # never a lone pin bump
    assert [f.pass_id for f in old_python.findings] == ["torch-pin", "python-floor"]
    ci = (
        "jobs:\n  test:\n    strategy:\n      matrix:\n        python-version:\n          - '3.10'\n          - '3.12'\n"
        "    steps:\n      - uses: actions/setup-python@v5\n        with:\n          python-version: ${{ matrix.python-version }}\n"
        "      - run: |\n          python -m pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118\n"
    )
    result = migrate(".github/workflows/test.yml", ci)
    assert result.code == ci.replace("torch==2.7.1", "torch==2.12.1").replace("whl/cu118", "whl/cu126")
    assert not result.findings
    old = migrate(".github/workflows/test.yml", ci.replace("'3.10'", "'3.9'"))
    assert old.code == ci.replace("'3.10'", "'3.9'")  # the 3.9 leg has no torch 2.12 wheels: the job stays
    assert "the CI tests Python 3.9, but torch 2.12 needs Python >= 3.10" in [f.message for f in old.findings]


def test_ignore_comment_select_and_ignore() -> None:
    text = "torch==2.7.1\ntorchvision==0.22.1  # migrate: ignore[cuda-wheels]\n"
    assert migrate("requirements.txt", text).code == text.replace("2.7.1", "2.12.1").replace("0.22.1", "0.27.1")
    assert migrate("requirements.txt", "torch==2.7.1\n", ignore=frozenset({"torch-pin"})).code == "torch==2.7.1\n"
    only_cuda = migrate("requirements.txt", "torch==2.7.1+cu128\n", select=frozenset({"cuda-wheels"}))
    assert only_cuda.code == "torch==2.7.1+cu128\n"  # torch 2.7.1 has cu128 builds: nothing to move without torch-pin


def test_project_kinds_and_discovery(tmp_path: Path) -> None:
    for name in ("requirements.txt", "requirements-dev.txt", "constraints.txt", "pyproject.toml", "setup.cfg", "Dockerfile"):
        (tmp_path / name).write_text("torch==2.7.1\n")
    (tmp_path / "notes.txt").write_text("torch==2.7.1\n")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("run: pip install torch==2.7.1\n")
    (tmp_path / ".github" / "scripts").mkdir()
    (tmp_path / ".github" / "scripts" / "tool.py").write_text("x = 1\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "requirements.txt").write_text("torch==2.7.1\n")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in discover([tmp_path]))
    assert found == [
        ".github/workflows/ci.yml",
        "Dockerfile",
        "constraints.txt",
        "pyproject.toml",
        "requirements-dev.txt",
        "requirements.txt",
        "setup.cfg",
    ]
    assert project_kind(PurePath("requirements/base.txt")) == "requirements"
    assert project_kind(PurePath("src/app.py")) is None


@pytest.mark.parametrize(
    ("name", "text", "pinned"),
    [
        ("requirements.txt", "torch==2.7.1\n", "2.7"),
        ("constraints.txt", "torch>=2.4,<2.8\n", "2.4"),
        ("pyproject.toml", '[project]\ndependencies = ["torch~=2.5.0"]\n', "2.5"),
        ("setup.cfg", "[options]\ninstall_requires =\n    torch>=2.3\n", "2.3"),
        ("setup.py", "setup(install_requires=['torch==2.6.0'])\n", "2.6"),
        ("Dockerfile", "RUN pip install torch==2.2.2\n", "2.2"),
        ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^2.5"\n', "2.5"),
    ],
)
def test_from_detection_reads_the_same_pins(tmp_path: Path, name: str, text: str, pinned: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(text)
    assert detect_pinned_version(tmp_path) == parse_version(pinned)


def test_example_project_from_detection_and_diff(tmp_path: Path) -> None:
    example = ROOT / "examples" / "legacy_project"
    assert detect_pinned_version(example) == parse_version("2.7")
    proc = subprocess.run(
        [str(MIGRATE), "--to", "2.12", "--diff", "--unsafe-fixes", str(example)], capture_output=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    patch = proc.stdout.decode()
    for line in (
        "+--extra-index-url https://download.pytorch.org/whl/cu130",
        "+torch==2.12.1",
        '+    "torch>=2.7,<2.13",',
        '+    "torchvision>=0.22,<0.28",',
        '+    "!pip install torch==2.12.1 --extra-index-url https://download.pytorch.org/whl/cu130"',
        '+        torch: ["2.7.1", "2.12.1"]',  # the newest matrix entry moves, with its include entry
        '+          - torch: "2.12.1"',
        '+            torchvision: "0.27.1"',
    ):
        assert line in patch.splitlines(), line
    assert b"examples/legacy_project/pyproject.toml:5:20: python-floor" in proc.stderr
    assert b"examples/legacy_project/.github/workflows/test.yml:9:18: torch-pin left alone: it tests the lowest entry" in proc.stderr
    if shutil.which("git") is None:
        return
    copy = tmp_path / "examples" / "legacy_project"
    shutil.copytree(example, copy)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_bytes(proc.stdout)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    applied = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    shutil.rmtree(copy)
    shutil.copytree(example, copy)
    write = subprocess.run([str(MIGRATE), "--to", "2.12", "--unsafe-fixes", "examples/legacy_project"], cwd=tmp_path)
    assert write.returncode == 0
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == applied


def test_review_level_project_edits_are_suggested_not_made() -> None:
    """cuda-wheels is review-level: by default the index stays and a finding carries the suggested line; torch stays
    with it (2.12 has no cu128 build, so the set cannot move on the promise of an edit that is not made) and the
    torch-pin finding says why. With unsafe fixes both move."""
    text = "--extra-index-url https://download.pytorch.org/whl/cu128\ntorch==2.7.1\n"
    result = migrate("requirements.txt", text, unsafe_fixes=False)
    assert result.code == text and not result.edits
    assert [f.message for f in result.findings if f.pass_id == "torch-pin"]
    [finding] = [f for f in result.findings if f.pass_id == "cuda-wheels"]
    assert finding.line == 1 and finding.fix_available == "unsafe" and finding.fix is not None
    assert "--unsafe-fixes applies it" in finding.message and "NVIDIA driver >= 580" in finding.message
    [rep] = finding.fix.replacements
    assert (rep.line, rep.end_line) == (1, 2)
    assert rep.old == "--extra-index-url https://download.pytorch.org/whl/cu128\n"
    assert rep.new == "--extra-index-url https://download.pytorch.org/whl/cu130\n"
    assert migrate("requirements.txt", text).code == rep.new + "torch==2.12.1\n"


def test_list_and_explain_show_project_passes() -> None:
    listing = subprocess.run([str(MIGRATE), "--list", "--to", "2.12"], capture_output=True, timeout=60).stdout.decode()
    assert all(pass_id in listing for pass_id in ("torch-pin", "cuda-wheels", "python-floor"))
    explain = subprocess.run([str(MIGRATE), "--explain", "cuda-wheels"], capture_output=True, timeout=60).stdout.decode()
    assert "(requirements.txt)" in explain and "## What to review" in explain and "whl/cu130" in explain


def test_discovery_without_project_files(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.7.1\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    assert [p.name for p in discover([tmp_path], project_files=False)] == ["a.py"]


def test_pin_messages_say_each_thing_once(tmp_path: Path) -> None:
    """The edit and finding messages of the project passes, as the real command reports them: each names the target
    once ("torch<2.6 excludes torch 2.12 (torch 2.12)" said it three times)."""
    import json

    from support.cli import run, write_tree

    write_tree(tmp_path, {
        "requirements.txt": "torch<2.6\ntorchvision==0.20.1\n",
        "Dockerfile": "FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\nRUN pip install cython\n",
        ".github/workflows/gpu.yml": (
            "jobs:\n  gpu:\n    steps:\n"
            "      - run: pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cu124\n"
            '      - run: python run_tests.py --torch_ver="2.6"\n'
        ),
    })
    proc = run("--to", "2.12", "--unsafe-fixes", "--check", "--format", "json", ".", cwd=tmp_path, text=True)
    assert proc.returncode == 1, proc.stderr
    messages = {
        (f["path"], item["message"]) for f in json.loads(proc.stdout)["files"] for item in f["edits"] + f["findings"]
    }
    assert {
        ("requirements.txt", "torch<2.6 excludes 2.12 → torch<2.13"),
        ("requirements.txt", "torchvision==0.20.1 has no release for torch 2.12.1 → torchvision==0.27.1"),
        (".github/workflows/gpu.yml", "torch==2.6.0 excludes 2.12 → torch==2.12.1"),
        (".github/workflows/gpu.yml", "test flag 2.6 → 2.12"),
        (
            "Dockerfile",
            "the image pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime ships torch 2.4.0: move it to a pytorch/pytorch "
            "image of torch 2.12 (CUDA builds: cu126, cu130, cu132)",
        ),
    } <= messages
    for _, message in messages:
        assert message.count("2.12") <= 2 and "(torch 2.12)" not in message, message
