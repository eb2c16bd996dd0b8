"""Diffs that ``git apply`` accepts: one per file, encoded like the file itself."""

from __future__ import annotations

import difflib

from torchmigrate.core.results import FileResult
from torchmigrate.core.text import BOM, has_bom, split_lines


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """A unified diff from ``a/path`` to ``b/path``, with git's marker for a missing final newline.

    For a notebook each hunk header names the cell it changes (``@@ -18,8 +18,7 @@ cell 2``; git ignores that text).
    """
    out: list[str] = []
    for line in difflib.unified_diff(split_lines(old), split_lines(new), f"a/{path}", f"b/{path}", n=context):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    if path.endswith(".ipynb"):
        from torchmigrate.notebook.cells import label_hunks

        return label_hunks("".join(out), old)
    return "".join(out)



def diff_bytes(result: FileResult, path: str) -> bytes:
    """The diff of one result, encoded like the file itself so the patch applies to its exact bytes."""
    if not result.changed or result.old is None or result.new is None:
        return b""
    old, new, encoding = result.old, result.new, result.encoding
    if has_bom(encoding):
        old, new, encoding = BOM + old, BOM + new, "utf-8"
    return unified_diff(old, new, path).encode(encoding, errors="surrogateescape")
