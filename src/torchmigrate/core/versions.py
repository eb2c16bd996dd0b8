"""PyTorch release numbers: parsing, ordering, and finding the release a project pins."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "KNOWN_RELEASES",
    "LATEST",
    "OLDEST",
    "NEWEST",
    "Version",
    "VersionError",
    "parse_version",
]


class VersionError(ValueError):
    """A version string that is malformed or names a release the tool does not know."""


@dataclass(frozen=True, order=True)
class Version:
    """A PyTorch feature release, ``major.minor``. Patch releases never move APIs."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


# Feature releases the tool knows, oldest first. 1.8 is the floor: code "written for 1.8" receives every pass. Older
# deprecations that still warn (`F.upsample`, loss `size_average=`, the 0.4-era forms) are filed under 1.8 as
# ``DEPRECATION`` passes: they apply to every target the tool knows. A new release is added here once its changes are
# catalogued (README, "Adding a release"; ``python -m torchmigrate.radar`` drafts the catalog).
KNOWN_RELEASES: tuple[Version, ...] = (
    Version(1, 8),
    Version(1, 9),
    Version(1, 10),
    Version(1, 11),
    Version(1, 12),
    Version(1, 13),
    *(Version(2, minor) for minor in range(0, 16)),
)
OLDEST = KNOWN_RELEASES[0]
NEWEST = KNOWN_RELEASES[-1]
LATEST = "latest"
"""The spelling of "the newest release the tool knows" (``--to latest``, ``to = "latest"``, ``to="latest"``)."""

_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.+-]?[A-Za-z0-9.+]*)?\s*$")


def parse_version(text: str, *, known_only: bool = True) -> Version:
    """Parse ``2.12`` or ``2.12.1`` (a local part such as ``+cu128`` is ignored) into a :class:`Version`.

    ``latest`` (any case) is the newest known release, :data:`NEWEST`; with ``known_only=False`` (versions read from
    a requirement) it is malformed like any other word.
    """
    if known_only and text.strip().lower() == LATEST:
        return NEWEST
    match = _VERSION_RE.match(text)
    if not match:
        raise VersionError(
            f"malformed version {text!r}: expected MAJOR.MINOR or MAJOR.MINOR.PATCH, such as 2.12, or {LATEST}"
        )
    version = Version(int(match.group(1)), int(match.group(2)))
    if known_only and version not in KNOWN_RELEASES:
        raise VersionError(f"unknown PyTorch release {text!r}: known releases are {OLDEST} to {NEWEST} (or {LATEST})")
    return version


# --- pinned version detection -------------------------------------------------------------------------------

CLAUSE_RE = re.compile(r"(===|==|~=|>=|<=|!=|>|<)\s*([0-9][^\s,;\"'\])#\\]*)")
"""One version clause of a requirement specifier (``>=2.4`` in ``torch>=2.4,<2.8``): the operator and the version,
which ends at whitespace, a comma, a marker, a quote, a bracket, a comment or a line continuation."""


def lowest_admitted(spec: str) -> Version | None:
    """The oldest feature release a requirement specifier such as ``>=2.4,<2.8`` admits, if it names one.

    ``==2.7.1`` → 2.7, ``~=2.3`` → 2.3, ``>=2.4,<2.8`` → 2.4, ``>2.4`` → 2.4 (2.4.1 is admitted). A specifier with only
    upper bounds says nothing about the oldest release the code supports, so it gives ``None``.
    """
    lows: list[Version] = []
    for op, raw in CLAUSE_RE.findall(spec):
        if op in ("==", "===", "~=", ">=", ">"):
            try:
                lows.append(parse_version(raw.rstrip(".*"), known_only=False))
            except VersionError:
                continue
    return max(lows) if lows else None


