"""torchmigrate: rewrite PyTorch code for a newer release, one versioned pass at a time."""

from __future__ import annotations

import os as _os
import sys as _sys

if _sys.argv[:1] == ["-m"] and _sys.path and _os.path.abspath(_sys.path[0] or _os.curdir) == _os.getcwd():
    # `python -m torchmigrate` put the working directory (the user's project) first on sys.path: drop it, so that a
    # project module named like one of our imports (libcst.py, typer.py, tokenize.py) is never imported.
    del _sys.path[0]

from torchmigrate.core.about import __version__  # noqa: E402

TYPE_CHECKING = False  # not typing's: importing typing costs the replay of an unchanged run (torchmigrate.launch)
if TYPE_CHECKING:
    from typing import Any

    from torchmigrate.api import migrate_paths, migrate_source

__all__ = ["__version__", "migrate_paths", "migrate_source"]


def __getattr__(name: str) -> Any:
    """The API loads on first use: the ``migrate`` command's replay of an unchanged run (:mod:`torchmigrate.launch`)
    imports this package and must not pay for the API's imports."""
    if name in ("migrate_paths", "migrate_source"):
        from torchmigrate import api

        return getattr(api, name)
    raise AttributeError(f"module 'torchmigrate' has no attribute {name!r}")
