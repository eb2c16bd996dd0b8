"""Release numbers: the releases the tool knows (through 2.15), patch releases, and ``latest``."""

from __future__ import annotations

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
