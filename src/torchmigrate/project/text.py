"""Text edits of project files: applying (start, end, new) changes, and the logical line around an offset."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["apply_changes", "logical_line"]


def apply_changes(text: str, changes: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``text[start:end]`` replaced by ``new`` (the changes must not overlap)."""
    for start, end, new in sorted(changes, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def logical_line(text: str, offset: int) -> str:
    """The line around ``offset`` with the lines a trailing backslash continues it onto."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    while end != -1 and text[:end].rstrip("\r").endswith("\\"):
        end = text.find("\n", end + 1)
    return text[start : len(text) if end == -1 else end]
