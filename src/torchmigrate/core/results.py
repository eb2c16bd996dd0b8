"""Plain data the engine returns: edits, findings, and one result per file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from torchmigrate.core.text import plural, split_lines

__all__ = ["Edit", "FileResult", "Finding", "Fix", "Replacement", "Report", "Summary"]

UNSAFE = "unsafe"
"""A fix's applicability when it is a review-level edit held back: ``--unsafe-fixes`` (``unsafe_fixes=True``) applies it."""


SHORT_NOTE = 200


def check_note(pass_id: str, note: str) -> str:
    """`` — check: NOTE`` for a one-line review note, a pointer to ``migrate --explain`` for a longer one, else ``""``."""
    if not note:
        return ""
    if "\n" in note.strip() or len(note) > SHORT_NOTE:
        return f" — check: see `migrate --explain {pass_id}` (What to review)"
    return f" — check: {note.strip()}"


@dataclass(frozen=True, order=True)
class Edit:
    """One rewrite a pass made. ``line`` and ``col`` are 1-based; ``line`` is in the file as it was before the run (a
    pass after another one sees changed text: its lines are mapped back), ``col`` in the line as the pass saw it.
    ``note``: for a ``review`` edit, what to check (the pass's review note)."""

    line: int
    col: int
    pass_id: str
    message: str
    safety: str = "safe"
    note: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render_review(self, path: str) -> str:
        """``path:line:col: id [review] message — check: note``: the line text mode prints for an applied review edit."""
        return f"{path}:{self.line}:{self.col}: {self.pass_id} [review] {self.message}{check_note(self.pass_id, self.note)}"


@dataclass(frozen=True, order=True)
class Replacement:
    """Lines ``[line, end_line)`` of the file (1-based; ``line == end_line`` inserts before ``line``) replaced by ``new``.

    ``old`` is the text of the replaced lines as the pass saw it: the file's own lines unless an earlier edit of the
    same run changed them (so a consumer can check that the replacement still applies)."""

    line: int
    end_line: int
    old: str
    new: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Fix:
    """A change a finding suggests. ``applicability`` ``"unsafe"``: a review-level edit that was not applied because
    unsafe fixes were off; ``--unsafe-fixes`` applies it."""

    message: str
    replacements: tuple[Replacement, ...]
    applicability: str = UNSAFE

    def to_dict(self) -> dict[str, Any]:
        return {
            "applicability": self.applicability,
            "message": self.message,
            "replacements": [r.to_dict() for r in self.replacements],
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Fix:
        reps = tuple(Replacement(r["line"], r["end_line"], r["old"], r["new"]) for r in raw["replacements"])
        return cls(raw["message"], reps, raw["applicability"])

    def diff_lines(self) -> list[str]:
        """The change as diff lines: ``-`` and each replaced line, ``+`` and each new one (line endings dropped)."""
        out: list[str] = []
        for rep in self.replacements:
            out += ["-" + line.rstrip("\r\n") for line in split_lines(rep.old)]
            out += ["+" + line.rstrip("\r\n") for line in split_lines(rep.new)]
        return out

    def moved(self, delta: int) -> Fix:
        """The same fix ``delta`` lines further down (a cell's lines placed in its notebook)."""
        reps = tuple(replace(r, line=r.line + delta, end_line=r.end_line + delta) for r in self.replacements)
        return replace(self, replacements=reps)


@dataclass(frozen=True, order=True)
class Finding:
    """Something a pass could not rewrite without guessing: where, why, and what to do. A finding that holds back a
    review-level edit carries the edit as its ``fix``."""

    line: int
    col: int
    pass_id: str
    message: str
    fix: Fix | None = field(default=None, compare=False)

    def render(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}: {self.pass_id} {self.message}"

    @property
    def fix_available(self) -> str | None:
        """``"unsafe"`` when ``--unsafe-fixes`` would apply this finding's suggested change, else ``None``."""
        return self.fix.applicability if self.fix is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "col": self.col,
            "pass_id": self.pass_id,
            "message": self.message,
            "fix_available": self.fix_available,
            "fix": self.fix.to_dict() if self.fix is not None else None,
        }


@dataclass
class FileResult:
    """What happened to one file. ``new`` is ``None`` when nothing changed or the file could not be processed."""

    path: str
    old: str | None = None
    new: str | None = None
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    passes_applied: list[str] = field(default_factory=list)
    written: bool = False
    encoding: str = "utf-8"

    @property
    def code(self) -> str:
        """The migrated text (the original when nothing changed or the file could not be processed)."""
        if self.new is not None:
            return self.new
        return self.old or ""

    @property
    def changed(self) -> bool:
        return self.error is None and self.new is not None and self.new != self.old

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "changed": self.changed,
            "written": self.written,
            "passes_applied": list(self.passes_applied),
            "edits": [e.to_dict() for e in self.edits],
            "findings": [f.to_dict() for f in self.findings],
            "error": self.error,
        }


@dataclass
class Summary:
    """Totals of a run. ``unsafe_fixes``: findings whose suggested change ``--unsafe-fixes`` would apply."""

    scanned: int = 0
    changed: int = 0
    edits: int = 0
    findings: int = 0
    errors: int = 0
    unsafe_fixes: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.changed += int(result.changed)
        self.edits += len(result.edits) if result.error is None else 0  # a file left as it was has none
        self.findings += len(result.findings)
        self.errors += int(result.error is not None)
        self.unsafe_fixes += sum(1 for f in result.findings if f.fix_available == UNSAFE)

    def render(self, *, written: bool) -> str:
        verb = "changed" if written else "would change"
        line = (
            f"torchmigrate: {plural(self.scanned, 'file')} scanned, {self.changed} {verb}, "
            f"{plural(self.findings, 'finding')}, {plural(self.errors, 'error')}"
        )
        if self.unsafe_fixes:
            more = "1 more fix" if self.unsafe_fixes == 1 else f"{self.unsafe_fixes} more fixes"
            line += f" ({more} with --unsafe-fixes)"
        return line

    def to_dict(self) -> dict[str, int]:
        return {
            "scanned": self.scanned,
            "changed": self.changed,
            "edits": self.edits,
            "findings": self.findings,
            "errors": self.errors,
            "unsafe_fixes": self.unsafe_fixes,
        }



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
        return {"summary": self.summary.to_dict(), "files": [r.to_dict() for r in self.results]}
