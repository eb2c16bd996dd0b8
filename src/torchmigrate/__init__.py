"""torchmigrate: rewrite PyTorch code for a newer release, one versioned pass at a time."""

from __future__ import annotations

__version__ = "0.1.0"

from torchmigrate.api import migrate_paths, migrate_source  # noqa: E402

__all__ = ["__version__", "migrate_paths", "migrate_source"]
