"""Plain data the engine returns: edits, findings, and one result per file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from torchmigrate.core.text import plural

__all__ = ["Edit", "Finding", "FileResult"]


@dataclass(frozen=True, order=True)
class Edit:
    """One rewrite a pass made. ``line`` and ``col`` are 1-based; ``line`` is in the file as it was before the run (a
    pass after another one sees changed text: its lines are mapped back), ``col`` in the line as the pass saw it."""

    line: int
    col: int
    pass_id: str
    message: str
    safety: str = "safe"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, order=True)
class Finding:
    """Something a pass could not rewrite without guessing: where, why, and what to do."""

    line: int
    col: int
    pass_id: str
    message: str

    def render(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}: {self.pass_id} {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
    scanned: int = 0
    changed: int = 0
    edits: int = 0
    findings: int = 0
    errors: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.changed += int(result.changed)
        self.edits += len(result.edits) if result.error is None else 0  # a file left as it was has none
        self.findings += len(result.findings)
        self.errors += int(result.error is not None)

    def render(self, *, written: bool) -> str:
        verb = "changed" if written else "would change"
        return (
            f"torchmigrate: {plural(self.scanned, 'file')} scanned, {self.changed} {verb}, "
            f"{plural(self.findings, 'finding')}, {plural(self.errors, 'error')}"
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
