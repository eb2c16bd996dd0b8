"""Notebook JSON: where each cell's source lies in the raw text, rendering a changed source in the file's style, and
diff hunks labelled with their cell. No engine here: the diff writer uses it too."""

from __future__ import annotations

import bisect
import json
import json.decoder
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from torchmigrate.core.text import split_lines

_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 - C-accelerated; not in typeshed


_WS = re.compile(r"[ \t\n\r]*")


_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


@dataclass
class CellSource:
    """Where one cell's ``source`` lives in the raw text: the value's span, and each list element's span."""

    index: int
    start: int
    end: int
    elements: list[tuple[int, int]] | None  # None: the source is one JSON string


class _Walker:
    def __init__(self, raw: str) -> None:
        self.raw = raw

    def ws(self, i: int) -> int:
        match = _WS.match(self.raw, i)
        return match.end() if match else i

    def string(self, i: int) -> tuple[str, int]:
        if self.raw[i] != '"':
            raise ValueError(f"expected a string at {i}")
        value, end = _scanstring(self.raw, i + 1)
        return value, end

    def skip(self, i: int) -> int:
        """The end of the JSON value that starts at ``i``."""
        raw = self.raw
        ch = raw[i]
        if ch == '"':
            return self.string(i)[1]
        if ch in "{[":
            close = "}" if ch == "{" else "]"
            i = self.ws(i + 1)
            if raw[i] == close:
                return i + 1
            while True:
                if ch == "{":
                    i = self.ws(self.string(i)[1])
                    if raw[i] != ":":
                        raise ValueError(f"expected ':' at {i}")
                    i = self.ws(i + 1)
                i = self.ws(self.skip(i))
                if raw[i] == ",":
                    i = self.ws(i + 1)
                elif raw[i] == close:
                    return i + 1
                else:
                    raise ValueError(f"expected ',' or {close!r} at {i}")
        match = _SCALAR.match(raw, i)
        if not match:
            raise ValueError(f"unexpected {ch!r} at {i}")
        return match.end()


def locate_sources(raw: str) -> list[CellSource | None]:
    """The ``source`` of every cell (``None`` for a cell without one), in order. Raises ``ValueError`` on bad JSON."""
    walker = _Walker(raw)
    i = walker.ws(0)
    if raw[i] != "{":
        raise ValueError("a notebook is a JSON object")
    found: list[CellSource | None] = []
    top = _object(walker, i)
    for key, start in top:
        if key == "cells" and raw[start] == "[":
            top.send_end(_cells(walker, start, found))
        else:
            top.send_end(walker.skip(start))
    return found


class _object:
    """Iterate the members of a JSON object while the caller reports where each value ended."""

    def __init__(self, walker: _Walker, i: int) -> None:
        self.walker = walker
        raw = walker.raw
        self.i = walker.ws(i + 1)
        self.done = raw[self.i] == "}"
        self.close = self.i + 1

    def __iter__(self) -> _object:
        return self

    def __next__(self) -> tuple[str, int]:
        walker, raw = self.walker, self.walker.raw
        if self.done:
            raise StopIteration
        key, i = walker.string(self.i)
        i = walker.ws(i)
        if raw[i] != ":":
            raise ValueError(f"expected ':' at {i}")
        self.value_start = walker.ws(i + 1)
        return key, self.value_start

    def send_end(self, end: int) -> None:
        walker, raw = self.walker, self.walker.raw
        i = walker.ws(end)
        if raw[i] == ",":
            self.i = walker.ws(i + 1)
        elif raw[i] == "}":
            self.done, self.close = True, i + 1
        else:
            raise ValueError(f"expected ',' or '}}' at {i}")


def _cells(walker: _Walker, start: int, found: list[CellSource | None]) -> int:
    """Record the source of each cell of the ``cells`` array at ``start``; return the array's end."""
    raw = walker.raw
    i = walker.ws(start + 1)
    if raw[i] == "]":
        return i + 1
    while True:
        source: CellSource | None = None
        if raw[i] == "{":
            members = _object(walker, i)
            for key, value in members:
                if key == "source":
                    source = _source(walker, len(found), value)
                    members.send_end(source.end)
                else:
                    members.send_end(walker.skip(value))
            end = members.close
        else:
            end = walker.skip(i)
        found.append(source)
        i = walker.ws(end)
        if raw[i] == ",":
            i = walker.ws(i + 1)
        elif raw[i] == "]":
            return i + 1
        else:
            raise ValueError(f"expected ',' or ']' at {i}")


def _source(walker: _Walker, index: int, start: int) -> CellSource:
    raw = walker.raw
    if raw[start] == '"':
        return CellSource(index, start, walker.string(start)[1], None)
    if raw[start] != "[":
        raise ValueError(f"cell {index + 1}: 'source' is neither a string nor a list")
    elements: list[tuple[int, int]] = []
    i = walker.ws(start + 1)
    if raw[i] != "]":
        while True:
            if raw[i] != '"':
                raise ValueError(f"cell {index + 1}: 'source' holds a non-string")
            end = walker.string(i)[1]
            elements.append((i, end))
            i = walker.ws(end)
            if raw[i] == ",":
                i = walker.ws(i + 1)
                continue
            if raw[i] == "]":
                break
            raise ValueError(f"expected ',' or ']' at {i}")
    return CellSource(index, start, i + 1, elements)


def ensure_ascii(raw: str) -> bool:
    """Whether the file escapes non-ASCII characters (``json.dumps``'s default) rather than writing them as they are."""
    if not raw.isascii():
        return False
    return any(int(code, 16) > 0x7F for code in re.findall(r"\\u([0-9a-fA-F]{4})", raw))


def render_source(raw: str, cell: CellSource, old_lines: Sequence[str], new_text: str, ascii_only: bool) -> str:
    """The JSON text of a cell's new source, reusing the file's own text for every unchanged line."""
    if cell.elements is None:
        return json.dumps(new_text, ensure_ascii=ascii_only)
    new_lines = split_lines(new_text)
    if not new_lines:
        return "[]"
    if not cell.elements:
        return json.dumps(new_lines, ensure_ascii=ascii_only)
    elements = cell.elements
    opening = raw[cell.start + 1 : elements[0][0]]
    closing = raw[elements[-1][1] : cell.end - 1]
    between = raw[elements[0][1] : elements[1][0]] if len(elements) > 1 else "," + opening
    known = {value: raw[s:e] for value, (s, e) in zip(old_lines, elements, strict=False)}
    items = [known.get(line) or json.dumps(line, ensure_ascii=ascii_only) for line in new_lines]
    return "[" + opening + between.join(items) + closing + "]"


def line_starts(text: str) -> list[int]:
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    return starts


_HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<count>\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)


def label_hunks(diff: str, old_raw: str) -> str:
    """Name the cell each hunk of a notebook's unified diff changes (``@@ -12,7 +12,7 @@ cell 3``).

    Text after a hunk header's closing ``@@`` is a free-form section heading that ``git apply`` ignores, so the diff
    stays applicable.
    """
    old_raw = old_raw.removeprefix("\ufeff")  # a BOM shifts no line
    try:
        sources = [s for s in locate_sources(old_raw) if s is not None]
    except (ValueError, IndexError, RecursionError):
        return diff
    starts = line_starts(old_raw)
    spans = [(bisect.bisect_right(starts, s.start), bisect.bisect_right(starts, s.end - 1), s.index + 1) for s in sources]

    def label(match: re.Match[str]) -> str:
        first = int(match.group("start"))
        last = first + int(match.group("count") or 1) - 1
        numbers = [n for lo, hi, n in spans if lo <= last and hi >= first]
        if not numbers:
            return match.group(0)
        return match.group(0) + " " + ", ".join(f"cell {n}" for n in numbers)

    return _HUNK.sub(label, diff)
