"""Release numbers: the releases the tool knows (through 2.15), patch releases, and ``latest``."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchmigrate.core.versions import KNOWN_RELEASES, NEWEST, Version, VersionError, lowest_admitted, parse_version


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.14", Version(2, 14)), ("2.14.1", Version(2, 14)), ("2.15", Version(2, 15)), ("2.15.0", Version(2, 15)),
     ("2.14.1+cu130", Version(2, 14)), ("latest", Version(2, 15)), (" Latest ", Version(2, 15))],
)
def test_the_newest_releases_and_latest(text: str, expected: Version) -> None:
    assert parse_version(text) == expected


def test_latest_is_the_newest_known_release() -> None:
    assert NEWEST == KNOWN_RELEASES[-1] == Version(2, 15) == parse_version("latest")
    assert KNOWN_RELEASES == tuple(sorted(KNOWN_RELEASES))


def test_unknown_and_malformed_versions_name_what_is_accepted() -> None:
    with pytest.raises(VersionError, match=r"unknown PyTorch release '2\.16': known releases are 1\.8 to 2\.15 \(or latest\)"):
        parse_version("2.16")
    with pytest.raises(VersionError, match="such as 2.12, or latest"):
        parse_version("newest")


def test_latest_is_not_a_version_inside_a_requirement() -> None:
    with pytest.raises(VersionError):
        parse_version("latest", known_only=False)
    assert lowest_admitted(">=2.14.1,<2.16") == Version(2, 14)


# --- latest through the command line, the configuration and the API ---------------------------------------------

OPTIMIZER_SET = "import torch\n\nopt = torch.optim.SGD({w, b}, lr=0.1)\n"  # optimizer-param-set: a 2.15 pass


def test_latest_on_the_command_line_lists_and_migrates_like_the_newest_release(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from torchmigrate.cli import app

    newest = CliRunner().invoke(app, ["--list", "--to", str(NEWEST)])
    latest = CliRunner().invoke(app, ["--list", "--to", "latest"])
    assert latest.exit_code == 0 and latest.stdout == newest.stdout
    assert "optimizer-param-set" in latest.stdout and "cholesky-qr-removed" in latest.stdout
    assert "optimizer-param-set" not in CliRunner().invoke(app, ["--list", "--to", "2.14.1"]).stdout
    (tmp_path / "train.py").write_text(OPTIMIZER_SET)
    diff = CliRunner().invoke(app, ["--to", "latest", "--diff", str(tmp_path / "train.py")])
    assert diff.exit_code == 0 and "+opt = torch.optim.SGD(list({w, b}), lr=0.1)" in diff.stdout


def test_latest_in_the_configuration(tmp_path: Path) -> None:
    from support.cli import run

    (tmp_path / "pyproject.toml").write_text('[tool.torchmigrate]\nto = "latest"\n')
    (tmp_path / "train.py").write_text(OPTIMIZER_SET)
    proc = run("--diff", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert b"list({w, b})" in proc.stdout


def test_latest_in_the_api() -> None:
    from torchmigrate import migrate_source

    assert migrate_source(OPTIMIZER_SET, to="latest").code == migrate_source(OPTIMIZER_SET, to="2.15").code
    assert "list({w, b})" in migrate_source(OPTIMIZER_SET, to="latest").code
