"""The support floor a project's torch requirements set: the oldest release they admit after the migration."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchmigrate.core.versions import Version, parse_version
from torchmigrate.project.detect import detect_support_floor
from torchmigrate.run.plan import make_options, root_options


@pytest.mark.parametrize(
    ("name", "text", "floor", "after"),
    [
        ("requirements.txt", "torch==2.7.1\n", "2.12", "torch==2.12.0"),  # the pin moves to the target
        ("requirements.txt", "torch>=2.0\n", "2.0", "torch>=2.0"),  # admits the target: left as it is
        ("constraints.txt", "torch>=2.4,<2.8\n", "2.4", "torch>=2.4,<2.13"),
        ("pyproject.toml", '[project]\ndependencies = ["torch~=2.5.0"]\n', "2.12", "torch~=2.12.0"),
        ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^2.6"\n', "2.6", "torch>=2.6,<3"),
        ("setup.py", "setup(install_requires=['torch>=2.3'])\n", "2.3", "torch>=2.3"),
    ],
)
def test_floor_is_the_lowest_release_admitted_after_the_migration(
    tmp_path: Path, name: str, text: str, floor: str, after: str
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(text)
    found = detect_support_floor(tmp_path, Version(2, 12))
    assert found is not None
    assert found[0] == parse_version(floor)
    assert found[1].endswith(f"{name}: {after}")


def test_oldest_requirement_wins_and_upper_bounds_set_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torch==2.7.1\n")
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=2.7,<2.8"]\n')
    found = detect_support_floor(tmp_path, Version(2, 12))
    assert found is not None and found[0] == Version(2, 7) and found[1].endswith("pyproject.toml: torch>=2.7,<2.13")
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "requirements.txt").write_text("torch<2.8\n")
    assert detect_support_floor(tmp_path, Version(2, 12)) is None


def test_without_torch_pin_the_requirement_stays_as_it_is(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torch==2.7.1\n")
    found = detect_support_floor(tmp_path, Version(2, 12), moved=False)
    assert found is not None and found[0] == Version(2, 7)
    ignored = root_options(tmp_path, make_options("2.12", ignore=["torch-pin"]), detect_from=False)
    assert ignored.min_torch == Version(2, 7)


def test_root_options_use_the_requirement_unless_min_torch_is_given(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torch>=2.6\n")
    detected = root_options(tmp_path, make_options("2.12"), detect_from=True)
    assert (detected.from_, detected.floor, detected.min_torch_kind) == (Version(2, 6), Version(2, 6), "requirement")
    assert detected.gate().floor_source.endswith("requirements.txt: torch>=2.6")
    given = root_options(tmp_path, make_options("2.12", min_torch="2.10"), detect_from=True)
    assert (given.floor, given.min_torch_source, given.min_torch_kind) == (Version(2, 10), "--min-torch 2.10", "option")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / ".git").mkdir()
    assert root_options(bare, make_options("2.12"), detect_from=True).floor == Version(2, 12)  # no requirement: --to


CI_MATRIX = """\
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        torch: [1.6.0, 1.8.1]
    steps:
      - run: pip install torch==${{ matrix.torch }}
"""


def test_without_a_declared_requirement_the_oldest_torch_the_ci_installs_is_the_floor(tmp_path: Path) -> None:
    """A project that declares no torch requirement but tests torch 1.6 in CI (open-mmlab/mmengine does) still
    supports 1.6: an edit whose new form needs a newer torch is reported, not made."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(CI_MATRIX)
    options = root_options(tmp_path, make_options("2.12"), detect_from=False)
    assert options.min_torch == Version(1, 6) and options.min_torch_kind == "ci"
    assert options.min_torch_source.endswith("ci.yml: the CI installs torch==1.6.0")
    (tmp_path / "requirements.txt").write_text("torch>=2.0\n")  # a declared requirement wins over what CI tests
    assert root_options(tmp_path, make_options("2.12"), detect_from=False).min_torch == Version(2, 0)


def test_a_ci_floor_holds_back_an_edit_through_the_real_command(tmp_path: Path) -> None:
    from support.cli import run

    (tmp_path / ".git").mkdir()
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(CI_MATRIX)
    code = (
        "import torch\nfrom torch.utils.checkpoint import checkpoint\n\n\ndef wrap(f, *args):\n"
        "    return checkpoint(f, *args)\n\n\nep = torch.export.export_for_training(m, (x,))\n"
    )
    (tmp_path / "a.py").write_text(code)
    proc = run("--to", "2.12", "--diff", "--no-cache", ".", cwd=tmp_path, text=True)
    assert "use_reentrant" not in proc.stdout  # the keyword raises on torch 1.6 (it arrived in 1.11)
    assert "use_reentrant" not in proc.stderr  # a deprecation: the old form still works, the edit waits silently
    assert "a.py" not in proc.stdout  # export() is no replacement on 1.6 either: a removal, so a finding says so
    assert "must still run on torch 1.6" in proc.stderr and "stop testing torch below 2.6 in CI" in proc.stderr


def test_a_pin_the_run_leaves_alone_keeps_its_floor(tmp_path: Path) -> None:
    """A ``torch==2.0.0`` pin served from a cu117 index: torch-pin cannot move it without cuda-wheels, a review edit
    the default run does not make, so the floor stays 2.0 and edits newer than 2.0 wait (was: the floor of the move
    that did not happen, 2.12). With unsafe fixes the pin moves, and the floor with it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("--extra-index-url https://download.pytorch.org/whl/cu117\ntorch==2.0.0\n")
    default = root_options(tmp_path, make_options("2.12"), detect_from=False)
    assert default.min_torch == Version(2, 0) and default.min_torch_source.endswith("requirements.txt: torch==2.0.0")
    unsafe = root_options(tmp_path, make_options("2.12", unsafe_fixes=True), detect_from=False)
    assert unsafe.min_torch is not None and unsafe.min_torch >= Version(2, 12)
    (tmp_path / "requirements.txt").write_text("torch==2.0.0\n")  # a plain pin moves by default
    assert root_options(tmp_path, make_options("2.12"), detect_from=False).min_torch >= Version(2, 12)
