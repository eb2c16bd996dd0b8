"""Rendering results: unified diffs that ``git apply`` accepts, findings, and the run summary."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from torchmigrate.files import BOM, has_bom
from torchmigrate.results import FileResult

__all__ = ["Report", "Summary", "diff_bytes", "unified_diff"]


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping the ends, as git does (a lone ``\\r`` is not a line break for git)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


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
        from torchmigrate.notebooks import label_hunks

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


@dataclass
class Summary:
    scanned: int = 0
    changed: int = 0
    edits: int = 0
    findings: int = 0
    errors: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.changed += int(result.changed)
        self.edits += len(result.edits)
        self.findings += len(result.findings)
        self.errors += int(result.error is not None)

    def render(self, *, written: bool) -> str:
        verb = "changed" if written else "would change"
        return (
            f"torchmigrate: {self.scanned} files scanned, {self.changed} {verb}, {self.findings} findings, {self.errors} errors"
        )


@dataclass
class Report:
    """The outcome of a run over paths: per-file results (texts dropped for unchanged files) and totals."""

    results: list[FileResult] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)

    def add(self, result: FileResult) -> None:
        self.summary.add(result)
        if not result.changed:
            result.old = result.new = None
        self.results.append(result)

    @classmethod
    def of(cls, results: Iterable[FileResult]) -> Report:
        report = cls()
        for result in results:
            report.add(result)
        return report

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed]

    @property
    def errors(self) -> list[FileResult]:
        return [r for r in self.results if r.error is not None]

    def to_dict(self) -> dict[str, object]:
        s = self.summary
        return {
            "summary": {
                "scanned": s.scanned,
                "changed": s.changed,
                "edits": s.edits,
                "findings": s.findings,
                "errors": s.errors,
            },
            "files": [r.to_dict() for r in self.results],
        }
