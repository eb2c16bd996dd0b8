"""CI jobs and matrices: a job's install line, its test flags and its matrix values move together or not at all; legs
that test a minimum are left alone and reported; other legs move only to a supported combination."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult
from torchmigrate.core.versions import Version, parse_version
from torchmigrate.project.ci import scan_jobs
from torchmigrate.run.handlers import migrate_file_text

WORKFLOW = ".github/workflows/test.yml"


def migrate(text: str, name: str = WORKFLOW, to: str = "2.12", **kw: Any) -> FileResult:
    """Migrate one CI file, with unsafe fixes unless told otherwise: these tests are about the edits, and cuda-wheels
    (an index moving with its torch install) is a review pass."""
    kw.setdefault("unsafe_fixes", True)
    options = Options(to=parse_version(to), from_=parse_version("2.0"), **kw)
    result = migrate_file_text(PurePath(name), text, options, name)
    assert result.error is None, result.error
    return result


def torch_pin_findings(result: FileResult) -> list[str]:
    return [f.message for f in result.findings if f.pass_id == "torch-pin"]


JOB = """\
jobs:
  {name}:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install torch==2.1.0 torchvision==0.16.0 --index-url https://download.pytorch.org/whl/cu118
"""


def test_a_job_moves_its_install_line_and_index_together() -> None:
    result = migrate(JOB.format(name="test"))
    assert result.code == JOB.format(name="test").replace("2.1.0", "2.12.1").replace("0.16.0", "0.27.1").replace("cu118", "cu126")


def test_a_job_named_for_a_minimum_is_left_alone_and_reported() -> None:
    for name in ("test-min-torch", "oldest", "lowest_deps", "minimum"):
        text = JOB.format(name=name)
        result = migrate(text)
        assert result.code == text, name  # the install line, its torchvision and its cu118 index all stay
        assert torch_pin_findings(result)[0].startswith(f"left alone: the job tests a minimum ({name})")


def test_a_job_that_pins_the_projects_declared_floor_is_left_alone() -> None:
    """setup.py says ``torch>=2.1.0``: the CI job installing 2.1.0 tests the project's minimum."""
    text = JOB.format(name="test")
    result = migrate(text, project_floor=Version(2, 1))
    assert result.code == text
    assert "it pins the project's declared floor, torch 2.1" in torch_pin_findings(result)[0]


def test_the_declared_floor_is_read_after_migration(tmp_path: Any) -> None:
    from torchmigrate.project.detect import declared_floor

    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text("setup(install_requires=['torch>=2.0.0'])\n")
    (tmp_path / "requirements.txt").write_text("torch==2.7.1\n")  # not a declaration of the package's range
    assert declared_floor(tmp_path, Version(2, 12)) == Version(2, 0)
    (tmp_path / "setup.py").write_text("setup(install_requires=['torch==2.7.1'])\n")
    assert declared_floor(tmp_path, Version(2, 12)) == Version(2, 12)  # the pin moves to the target


MATRIX = """\
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.10", "3.11"]
        torch: ["2.0.1", "2.4.1", "2.7.1"]
        include:
          - torch: "2.0.1"
            torchvision: "0.15.2"
          - torch: "2.4.1"
            torchvision: "0.19.1"
          - torch: "2.7.1"
            torchvision: "0.22.1"
    steps:
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - run: pip install torch==${{ matrix.torch }} torchvision==${{ matrix.torchvision }} --index-url https://download.pytorch.org/whl/cpu
"""


def test_the_highest_matrix_entry_moves_with_its_companions_and_the_lowest_stays() -> None:
    result = migrate(MATRIX)
    after = MATRIX.replace('torch: ["2.0.1", "2.4.1", "2.7.1"]', 'torch: ["2.0.1", "2.4.1", "2.12.1"]').replace(
        '- torch: "2.7.1"\n            torchvision: "0.22.1"', '- torch: "2.12.1"\n            torchvision: "0.27.1"'
    )
    assert result.code == after
    [minimum] = torch_pin_findings(result)
    assert minimum.startswith("left alone: it tests the lowest entry of the job's torch matrix (torch: 2.0.1)")
    assert migrate(after).code == after  # a fixed point


def test_a_matrix_leg_that_would_be_unsupported_is_reported() -> None:
    text = MATRIX.replace('["3.10", "3.11"]', '["3.9", "3.11"]')
    result = migrate(text)
    assert result.code == text
    assert any("runs on Python 3.9, and torch 2.12.1 has wheels for Python 3.10-3.14" in m for m in torch_pin_findings(result))


def test_a_matrix_entry_shared_with_legs_that_stay_is_not_moved() -> None:
    text = """\
jobs:
  gpu:
    strategy:
      matrix:
        torch: ["2.0.1", "2.7.1"]
        cuda: ["cu118"]
    steps:
      - run: pip install torch==${{ matrix.torch }} --index-url https://download.pytorch.org/whl/${{ matrix.cuda }}
"""
    result = migrate(text)
    assert result.code == text  # cu118 → cu126 would also move the torch 2.0.1 leg, which has no cu126 build
    assert any("shared with legs that stay" in m for m in torch_pin_findings(result))


def test_test_flags_move_with_the_install_line_or_not_at_all() -> None:
    text = """\
jobs:
  gpu:
    runs-on: [self-hosted, gpu]
    steps:
      - run: pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cu124
      - run: python run_tests.py --torch_ver="2.6" --cuda_ver="12.4"
"""
    result = migrate(text)
    assert result.code == text.replace("2.6.0", "2.12.1").replace("cu124", "cu126").replace('"2.6"', '"2.12"').replace(
        '"12.4"', '"12.6"'
    )
    alone = migrate(text, select=frozenset({"torch-pin"}))
    assert alone.code == text  # without cuda-wheels the job's CUDA cannot follow, so neither do the pin and the flags


def test_an_old_torch_job_keeps_its_index() -> None:
    text = """\
jobs:
  legacy-min:
    steps:
      - run: pip install torch==1.13.1 --index-url https://download.pytorch.org/whl/cu117
"""
    assert migrate(text).code == text


def test_reusable_blocks_outside_jobs_are_sets_of_their_own() -> None:
    """CircleCI: install steps live in anchored blocks that jobs reference."""
    text = """\
version: 2.1
install_stable: &install_stable
  run:
    command: |
      pip install torch==1.13.0 --extra-index-url https://download.pytorch.org/whl/cu117
      pip install torchvision==0.14.0 --extra-index-url https://download.pytorch.org/whl/cu117
install_lts: &install_lts
  run:
    command: pip install torch==1.8.2+cu111 --extra-index-url https://download.pytorch.org/whl/lts/1.8/cu111
jobs:
  gpu:
    steps:
      - <<: *install_stable
"""
    result = migrate(text, name=".circleci/config.yml")
    assert result.code == text.replace("1.13.0", "2.12.1").replace("0.14.0", "0.27.1").replace("cu117", "cu126")
    [lts] = torch_pin_findings(result)
    assert "(block install_lts)" in lts and "the 1.8 LTS wheel index" in lts


def test_jobs_are_found_in_gitlab_files_and_comments_are_skipped() -> None:
    text = """\
image: python:3.11
test:
  script:
    # - pip install torch==1.8.0
    - pip install torch==2.7.1 torchvision==0.22.1
"""
    jobs, _ = scan_jobs(text)
    assert [job.key for job in jobs][0] == "test"
    assert migrate(text, name=".gitlab-ci.yml").code == text.replace("2.7.1 torchvision==0.22.1", "2.12.1 torchvision==0.27.1")


def test_a_file_pyyaml_cannot_read_is_one_job() -> None:
    text = "jobs: [\n  - run: pip install torch==2.7.1\n"
    assert migrate(text).code == text.replace("2.7.1", "2.12.1")
