"""What the engine keeps of the file it worked on last, and a way to drop it once that file is done.

The precheck, the detectors and the slicer share one parse, one list of nodes and one scope model per file by
keeping the last file's (by identity). Kept past the file, they keep its trees alive: in a worker process every
collection of the cyclic garbage walks them again. A module that keeps such a thing registers how to drop it
(:func:`keeps`); the executors call :func:`forget` after each file.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["forget", "keeps"]

_CLEARERS: list[Callable[[], None]] = []


def keeps(clear: Callable[[], None]) -> Callable[[], None]:
    """Register ``clear``, which drops what its module keeps of the last file."""
    _CLEARERS.append(clear)
    return clear


def forget() -> None:
    """Drop what every module keeps of the last file."""
    for clear in _CLEARERS:
        clear()
