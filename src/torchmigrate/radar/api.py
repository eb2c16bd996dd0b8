"""The radar as a function: two releases in, their scans and the changes between them out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from torchmigrate.radar.compare import KINDS, Change, compare
from torchmigrate.radar.scan import Scan, scan
from torchmigrate.radar.sources import Source, SourceError, open_source

__all__ = ["KINDS", "Change", "Radar", "Scan", "Source", "SourceError", "compare", "open_source", "radar", "scan"]


@dataclass
class Radar:
    old: Scan
    new: Scan
    changes: list[Change]


def radar(old: str, new: str, package: str = "torch", download_dir: Path | None = None) -> Radar:
    """Scan two releases (versions, wheel files or trees) and compare them."""
    before = scan(open_source(old, package, download_dir))
    after = scan(open_source(new, package, download_dir))
    return Radar(before, after, compare(before, after))
