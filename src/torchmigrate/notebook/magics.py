"""IPython syntax in code cells: line magics, shell escapes, help and Python cell magics are masked as placeholder
statements while the Python is rewritten, then put back byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from torchmigrate.core.text import split_lines

# Cell magics whose body is Python (IPython runs it as code): their first line is masked, the body migrated.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "px"})



# Line magics, shell escapes and ``x = !cmd`` assignments; also ``from __future__`` imports, which are legal at the
# top of each cell but not in the middle of the joined module.
_MAGIC_LINE = re.compile(
    r"(?P<indent>[ \t]*)(?:[!%]|[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]|from[ \t]+__future__[ \t]+import\b)"
)



_HELP_LINE = re.compile(r"(?P<indent>[ \t]*)(?:\?{1,2}[A-Za-z_][\w.]*(?:\(\))?|[A-Za-z_][\w.]*(?:\(\))?\?{1,2})[ \t]*$")



_CELL_MAGIC = re.compile(r"[ \t]*%%(?P<name>\w+)")



_PLACEHOLDER = re.compile(r"^[ \t]*import __nbmagic_(?P<n>\d+)__$")



@dataclass
class Masked:
    """A cell's code with IPython syntax replaced by placeholder imports; ``originals[n]`` is placeholder n's line."""

    code: str
    originals: dict[int, str] = field(default_factory=dict)



class _Lexer:
    """Just enough of Python's lexer to know whether a line starts a new statement (not inside brackets or a string)."""

    def __init__(self) -> None:
        self.depth = 0
        self.triple: str | None = None
        self.continued = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.triple is None and not self.continued

    def feed(self, line: str) -> None:
        body = line.rstrip("\r\n")
        i, n = 0, len(body)
        while i < n:
            if self.triple is not None:
                end = body.find(self.triple, i)
                while end > 0 and _escaped(body, end):
                    end = body.find(self.triple, end + 1)
                if end < 0:
                    return
                i, self.triple = end + 3, None
                continue
            ch = body[i]
            if ch == "#":
                self.continued = False  # a backslash at the end of a comment continues nothing
                return
            if ch in "\"'":
                if body.startswith(ch * 3, i):
                    self.triple = ch * 3
                    i += 3
                    continue
                i += 1
                while i < n and body[i] != ch:
                    i += 2 if body[i] == "\\" else 1
                i += 1
                continue
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        self.continued = self.triple is None and body.endswith("\\")



def _escaped(text: str, index: int) -> bool:
    slashes = 0
    while index - slashes - 1 >= 0 and text[index - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1



def mask_cell(code: str, first: int = 0) -> Masked | None:
    """Mask IPython syntax in one cell (placeholders numbered from ``first``); ``None`` for a non-Python cell magic."""
    lines = split_lines(code)
    masked = Masked("")
    out: list[str] = []
    counter = first
    lexer = _Lexer()
    start = 0
    while start < len(lines) and not lines[start].strip():
        out.append(lines[start])
        start += 1
    if start < len(lines):
        cell_magic = _CELL_MAGIC.match(lines[start])
        if cell_magic:
            if cell_magic.group("name") not in PYTHON_CELL_MAGICS:
                return None
            masked.originals[counter] = lines[start].rstrip("\n")
            out.append(f"import __nbmagic_{counter}__" + ("\n" if lines[start].endswith("\n") else ""))
            counter += 1
            start += 1
    i = start
    while i < len(lines):
        line = lines[i]
        match = None
        if lexer.at_statement_start:
            match = _MAGIC_LINE.match(line) or _HELP_LINE.match(line.rstrip("\n"))
        if match is None:
            lexer.feed(line)
            out.append(line)
            i += 1
            continue
        indent = match.group("indent")
        while True:  # a shell command may continue on the next lines with a trailing backslash
            masked.originals[counter] = line.rstrip("\n")
            out.append(f"{indent}import __nbmagic_{counter}__" + ("\n" if line.endswith("\n") else ""))
            counter += 1
            i += 1
            if not line.rstrip("\n").endswith("\\") or i >= len(lines):
                break
            line = lines[i]
    masked.code = "".join(out)
    return masked



def unmask(code: str, originals: dict[int, str]) -> str | None:
    """Put the original IPython lines back; ``None`` if a placeholder went missing or was duplicated."""
    seen: set[int] = set()
    out = []
    for line in split_lines(code):
        match = _PLACEHOLDER.match(line.rstrip("\n"))
        if match is not None and int(match.group("n")) in originals:
            n = int(match.group("n"))
            if n in seen:
                return None
            seen.add(n)
            out.append(originals[n] + ("\n" if line.endswith("\n") else ""))
        else:
            out.append(line)
    return "".join(out) if seen == set(originals) else None
