"""The tool's stamp: what identifies this build of the tool without reading its sources.

Kept apart from the result cache (:mod:`torchmigrate.run.cache`, which loads sqlite3 and the result types) because the
replay of an unchanged run (:mod:`torchmigrate.run.replay`) needs it before anything else is imported: stdlib only.
"""

from __future__ import annotations

import hashlib
import os
import sys

from torchmigrate.core.about import __version__

__all__ = ["PACKAGE", "SCHEMA", "libcst_version", "tool_stamp", "versions"]

SCHEMA = 3
"""The result cache's schema: a new one makes every stored result a miss."""

PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
"""The torchmigrate package's folder (its real path)."""


def tool_stamp(package: str | os.PathLike[str] | None = None) -> str:
    """What Python itself checks before it reuses the compiled bytecode of the tool's modules: each source file's path,
    size and modification time, with the versions :func:`versions` gives. A walk and a ``stat`` per file, nothing
    read: a project's cache keeps the fingerprint of the stamp it was computed for
    (:meth:`~torchmigrate.run.cache.ResultCache.tool_fingerprint`), so a warm run does not read and hash the tool's
    sources. Computed once per process and package."""
    top = os.fspath(package) if package is not None else PACKAGE
    known = _STAMPS.get(top)
    if known is None:
        known = _STAMPS[top] = _stamp(top)
    return known


_STAMPS: dict[str, str] = {}


def _stamp(top: str) -> str:
    digest = hashlib.sha256(versions().encode())
    prefix = top.rstrip(os.sep) + os.sep
    lines = []
    for folder, subfolders, names in os.walk(top):
        subfolders.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                try:
                    status = os.stat(path)
                except OSError:
                    status = None
                shown = path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, top)
                lines.append(f"{shown}|{status and status.st_size}|{status and status.st_mtime_ns}\n")
    digest.update("".join(lines).encode())
    return digest.hexdigest()


def versions() -> str:
    """What the tool's fingerprint and stamp start with: the cache schema, the tool, libcst and Python."""
    return f"{SCHEMA}|{__version__}|{libcst_version()}|{sys.version_info[:3]}"


def libcst_version() -> str:
    """libcst's version without importing it (a run the cache settles never loads libcst) and without
    ``importlib.metadata`` (whose import is a tenth of a warm run on a small tree): the ``_version.py`` its releases
    ship, read as text; the installed distribution's metadata when that file is missing."""
    from importlib.util import find_spec

    spec = find_spec("libcst")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            try:
                with open(os.path.join(location, "_version.py"), "rb") as handle:
                    return hashlib.sha256(handle.read()).hexdigest()
            except OSError:
                continue
    from importlib import metadata

    try:
        return metadata.version("libcst")
    except metadata.PackageNotFoundError:
        return "?"
