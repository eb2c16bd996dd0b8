"""Text helpers shared by every layer: line splitting as git does it, line endings, byte-order marks."""

from __future__ import annotations

import codecs
import re


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping the ends, as git does (a lone ``\\r`` is not a line break for git)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def dominant_newline(text: str) -> str:
    """The line ending most lines of ``text`` use (``\\n`` for a file without any); ties go to the first one used."""
    crlf = text.count("\r\n")
    counts = {"\r\n": crlf, "\n": text.count("\n") - crlf, "\r": text.count("\r") - crlf}
    first = re.search(r"\r\n|\r|\n", text)
    best = first.group(0) if first else "\n"
    for ending, count in counts.items():
        if count > counts[best]:
            best = ending
    return best



def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def has_lone_cr(text: str) -> bool:
    """``text`` breaks lines with a bare ``\\r`` somewhere: line counts done on ``\\n`` would be wrong."""
    return "\r" in text and text.count("\r") != text.count("\r\n")


def has_bom(encoding: str) -> bool:
    return encoding.lower().replace("_", "-") == "utf-8-sig"



BOM = codecs.BOM_UTF8.decode("utf-8")


SUPPRESS = re.compile(r"#\s*migrate:\s*ignore\b(?:\s*\[(?P<ids>[^\]]*)\])?")
"""A suppression comment, in Python and in project files alike: ``# migrate: ignore`` or ``# migrate: ignore[a, b]``."""


def suppressed_ids(match: re.Match[str]) -> frozenset[str] | None:
    """The pass ids a :data:`SUPPRESS` match names (``None``: every pass)."""
    ids = match.group("ids")
    return None if ids is None else frozenset(i.strip() for i in ids.split(",") if i.strip())


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2 files`` (``many``: the plural when it is not ``word + "s"``)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
