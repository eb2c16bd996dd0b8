"""Machine-readable reports of a run: ``--format json | sarif | github``.

- **json**: ``{"schema_version": 1, "tool", "mode", "summary", "files": [FileResult.to_dict(), ...]}`` (documented in
  the README, section "Output formats"; ``files`` lists the files with an edit, a finding or an error).
- **sarif**: SARIF 2.1.0. One rule per pass (id, title, the pass's documentation as help), one result per edit
  (level ``note`` for a safe edit, ``warning`` for one to review) and per finding (``warning``); while nothing was
  written, each edit's result carries the change as a SARIF ``fix`` (``artifactChanges`` / ``replacements``). A
  finding that holds back a review edit (no ``--unsafe-fixes``) keeps its suggested change as a ``fix`` too, placed
  in the file as it is on disk after the run (and left out where it cannot be placed there exactly: a notebook's
  suggestion is cell code, not the JSON that stores it). Files that could not be processed are
  ``toolExecutionNotifications`` of level ``error``.
- **github**: GitHub Actions workflow commands (``::warning file=…,line=…,col=…,title=…::message``), which GitHub shows
  as annotations on the pull request; a held-back review edit's annotation ends with its suggested change.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from torchmigrate.core.about import __version__
from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import all_passes
from torchmigrate.core.results import Edit, FileResult, Fix, Replacement, Summary
from torchmigrate.core.text import split_lines

__all__ = [
    "FORMATS",
    "JSON_SCHEMA",
    "JSON_SCHEMA_VERSION",
    "RunInfo",
    "render",
    "render_github",
    "render_json",
    "render_sarif",
]

FORMATS = ("text", "json", "sarif", "github")
JSON_SCHEMA_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

_POSITION = {"type": "integer", "minimum": 0, "description": "1-based; line and column where the pass saw the code"}
JSON_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "torchmigrate --format json report",
    "description": "schema_version 1. New keys may be added within a version; removing or changing one bumps it.",
    "type": "object",
    "required": ["schema_version", "tool", "mode", "summary", "files"],
    "properties": {
        "schema_version": {"const": JSON_SCHEMA_VERSION},
        "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"const": "torchmigrate"}, "version": {"type": "string"}},
        },
        "mode": {"enum": ["write", "check", "diff"], "description": "write: files were rewritten; check: nothing was"},
        "summary": {
            "type": "object",
            "required": ["scanned", "changed", "edits", "findings", "errors"],
            "properties": {
                **{k: {"type": "integer", "minimum": 0} for k in ("scanned", "changed", "edits", "findings", "errors")},
                "unsafe_fixes": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "findings whose suggested change --unsafe-fixes would apply",
                },
            },
        },
        "files": {
            "description": "the files with an edit, a finding or an error (FileResult.to_dict()), in run order",
            "type": "array",
            "items": {"$ref": "#/definitions/file"},
        },
    },
    "definitions": {
        "file": {
            "type": "object",
            "required": ["path", "changed", "written", "passes_applied", "edits", "findings", "error"],
            "properties": {
                "path": {"type": "string", "description": "relative to the working directory when below it"},
                "changed": {"type": "boolean", "description": "the migration changes this file"},
                "written": {"type": "boolean", "description": "the new text was written (write mode)"},
                "passes_applied": {"type": "array", "items": {"type": "string"}},
                "edits": {"type": "array", "items": {"$ref": "#/definitions/edit"}},
                "findings": {"type": "array", "items": {"$ref": "#/definitions/finding"}},
                "error": {"type": ["string", "null"], "description": "why the file was left as it was"},
            },
        },
        "edit": {
            "type": "object",
            "required": ["line", "col", "pass_id", "message", "safety"],
            "properties": {
                "line": _POSITION,
                "col": _POSITION,
                "pass_id": {"type": "string"},
                "message": {"type": "string"},
                "safety": {"enum": ["safe", "review"]},
                "note": {"type": "string", "description": "for a review edit: what to check"},
            },
        },
        "finding": {
            "type": "object",
            "required": ["line", "col", "pass_id", "message"],
            "properties": {
                "line": _POSITION,
                "col": _POSITION,
                "pass_id": {"type": "string"},
                "message": {"type": "string"},
                "fix_available": {
                    "enum": ["unsafe", None],
                    "description": "unsafe: a review edit held back; --unsafe-fixes applies `fix`",
                },
                "fix": {"oneOf": [{"type": "null"}, {"$ref": "#/definitions/fix"}]},
            },
        },
        "fix": {
            "type": "object",
            "required": ["applicability", "message", "replacements"],
            "properties": {
                "applicability": {"enum": ["unsafe"]},
                "message": {"type": "string"},
                "replacements": {"type": "array", "items": {"$ref": "#/definitions/replacement"}},
            },
        },
        "replacement": {
            "type": "object",
            "description": "lines [line, end_line) of the file as it was (line == end_line: an insertion) become `new`",
            "required": ["line", "end_line", "old", "new"],
            "properties": {
                "line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1},
                "old": {"type": "string", "description": "the replaced lines' text, as the pass saw them"},
                "new": {"type": "string"},
            },
        },
    },
}
SRCROOT = "%SRCROOT%"


@dataclass
class RunInfo:
    """What a report says about the run as a whole."""

    mode: str  # "write", "check" or "diff"
    results: list[FileResult] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)

    @property
    def written(self) -> bool:
        return self.mode == "write"


def _interesting(result: FileResult) -> bool:
    return result.changed or bool(result.findings) or result.error is not None


def render(fmt: str, run: RunInfo) -> str:
    """The report of ``run`` in ``fmt`` (one of :data:`FORMATS` other than ``text``)."""
    if fmt == "json":
        return render_json(run)
    if fmt == "sarif":
        return render_sarif(run)
    if fmt == "github":
        return render_github(run)
    raise ValueError(f"unknown format {fmt!r}")


# --- JSON ---------------------------------------------------------------------------------------------------------


def render_json(run: RunInfo) -> str:
    s = run.summary
    document = {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "torchmigrate", "version": __version__},
        "mode": run.mode,
        "summary": s.to_dict(),
        "files": [r.to_dict() for r in run.results if _interesting(r)],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# --- SARIF 2.1.0 --------------------------------------------------------------------------------------------------


def _level(safety: str) -> str:
    return "note" if safety == "safe" else "warning"


def _rule(p: Pass) -> dict[str, Any]:
    first_paragraph = p.doc.split("\n\n", 1)[0].strip() or p.title
    help_text = p.doc + (f"\n\n## What to review\n{p.review_note}" if p.review_note else "") + f"\n\nEvidence: {p.evidence}"
    return {
        "id": p.id,
        "name": "".join(part.capitalize() for part in p.id.split("-")),
        "shortDescription": {"text": p.title},
        "fullDescription": {"text": first_paragraph},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": _level(p.safety.value)},
        "properties": {
            "release": p.release,
            "safety": p.safety.value,
            "opt_in": p.opt_in,
            "evidence": p.evidence,
            "tags": ["pytorch-migration", f"torch-{p.release}", p.safety.value],
        },
    }


def _artifact(path: str) -> dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def _location(path: str, line: int, col: int) -> dict[str, Any]:
    region = {"startLine": max(line, 1), "startColumn": max(col, 1)}
    return {"physicalLocation": {"artifactLocation": _artifact(path), "region": region}}


@dataclass(frozen=True)
class Hunk:
    """Old lines ``[start, end)`` (0-based) replaced by ``text``."""

    start: int
    end: int
    text: str

    def replacement(self, old_lines: Sequence[str]) -> dict[str, Any]:
        offset = sum(len(line) for line in old_lines[: self.start])
        length = sum(len(line) for line in old_lines[self.start : self.end])
        region: dict[str, Any] = {"startLine": self.start + 1, "startColumn": 1}
        if self.end < len(old_lines) or not old_lines or old_lines[-1].endswith("\n"):
            region.update(endLine=self.end + 1, endColumn=1)  # up to the start of the line after the hunk
        else:  # up to the end of a last line that has no newline
            region.update(endLine=self.end, endColumn=len(old_lines[-1]) + 1)
        region.update(charOffset=offset, charLength=length)
        return {"deletedRegion": region, "insertedContent": {"text": self.text}}


def hunks(old: str, new: str) -> list[Hunk]:
    """The line ranges that differ between ``old`` and ``new``."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [Hunk(i1, i2, "".join(new_lines[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _assign(edits: Sequence[Edit], found: Sequence[Hunk]) -> dict[int, list[Hunk]]:
    """Give each hunk to one edit: the first one whose line lies in it, else the nearest."""
    assigned: dict[int, list[Hunk]] = {}
    if not edits:
        return assigned
    for hunk in found:
        first, last = hunk.start + 1, max(hunk.end, hunk.start + 1)
        inside = [i for i, e in enumerate(edits) if first <= e.line <= last]
        index = inside[0] if inside else min(range(len(edits)), key=lambda i: (abs(edits[i].line - first), i))
        assigned.setdefault(index, []).append(hunk)
    return assigned


def _fix(path: str, old_lines: Sequence[str], found: Sequence[Hunk], description: str) -> dict[str, Any]:
    return {
        "description": {"text": description},
        "artifactChanges": [{"artifactLocation": _artifact(path), "replacements": [h.replacement(old_lines) for h in found]}],
    }


def _suggested_fix(result: FileResult, fix: Fix) -> dict[str, Any] | None:
    """A held-back edit's suggested change as a SARIF fix of the file as it is on disk after the run (the original, or
    the written text), or ``None`` when a replacement's old lines are not found there exactly."""
    base = result.new if result.written else result.old
    if base is None:
        return None
    lines = split_lines(base)
    to_base = _line_mapper(result.old, result.new) if result.written and result.old is not None else (lambda n: n)
    found = []
    for rep in fix.replacements:
        start = _place(lines, rep, to_base(rep.line) - 1)
        if start is None:
            return None
        found.append(Hunk(start, start + rep.end_line - rep.line, rep.new))
    return _fix(result.path, lines, found, f"torchmigrate {fix.message} (--unsafe-fixes)")


def _place(lines: Sequence[str], rep: Replacement, expected: int) -> int | None:
    """Where ``rep``'s old lines are in ``lines``: at ``expected`` (0-based) if they are there, else at the nearest
    exact occurrence; ``None`` if nowhere. An insertion (no old lines) goes to ``expected``."""
    count = rep.end_line - rep.line
    if not rep.old:
        return expected if 0 <= expected <= len(lines) else None
    if "".join(lines[expected : expected + count]) == rep.old:
        return expected
    starts = [i for i in range(len(lines) - count + 1) if "".join(lines[i : i + count]) == rep.old]
    return min(starts, key=lambda i: (abs(i - expected), i)) if starts else None


def _line_mapper(old: str, new: str | None) -> Callable[[int], int]:
    """Map a 1-based line of ``old`` to the line of ``new`` it became (the start of its block when it changed)."""
    if new is None or new == old:
        return lambda n: n
    blocks = difflib.SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=False).get_opcodes()

    def to_new(line: int) -> int:
        for tag, i1, i2, j1, _ in blocks:
            if i1 <= line - 1 < i2:
                return j1 + (line - 1 - i1 if tag == "equal" else 0) + 1
        return line

    return to_new


def render_sarif(run: RunInfo) -> str:
    passes = list(all_passes())
    index = {p.id: i for i, p in enumerate(passes)}
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in run.results:
        if result.error is not None:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{result.path}: {result.error}"},
                    "locations": [{"physicalLocation": {"artifactLocation": _artifact(result.path)}}],
                }
            )
            continue
        edits = sorted(result.edits)
        fixes: dict[int, list[Hunk]] = {}
        old_lines: list[str] = []
        if result.changed and not run.written and result.old is not None and result.new is not None:
            old_lines = split_lines(result.old)
            fixes = _assign(edits, hunks(result.old, result.new))
        state = "applied" if result.written else "would change"
        for i, edit in enumerate(edits):
            entry: dict[str, Any] = {
                "ruleId": edit.pass_id,
                "level": _level(edit.safety),
                "message": {"text": f"{edit.message} ({state})"},
                "locations": [_location(result.path, edit.line, edit.col)],
                "properties": {"kind": "edit", "safety": edit.safety, "applied": result.written},
            }
            if edit.pass_id in index:
                entry["ruleIndex"] = index[edit.pass_id]
            if i in fixes:
                entry["fixes"] = [_fix(result.path, old_lines, fixes[i], f"torchmigrate {edit.pass_id}: {edit.message}")]
            results.append(entry)
        for finding in sorted(result.findings):
            entry = {
                "ruleId": finding.pass_id,
                "level": "warning",
                "message": {"text": finding.message},
                "locations": [_location(result.path, finding.line, finding.col)],
                "properties": {"kind": "finding"},
            }
            if finding.pass_id in index:
                entry["ruleIndex"] = index[finding.pass_id]
            if finding.fix is not None:
                entry["properties"]["fix_available"] = finding.fix.applicability
                placed = _suggested_fix(result, finding.fix)
                if placed is not None:
                    entry["fixes"] = [placed]
            results.append(entry)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "torchmigrate",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule(p) for p in passes],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# --- GitHub Actions workflow commands ------------------------------------------------------------------------------


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's actions toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): also ``:`` and ``,`` are escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, message: str, **properties: object) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{kind} {props}::{escape_data(message)}" if props else f"::{kind}::{escape_data(message)}"


def render_github(run: RunInfo) -> str:
    lines = []
    state = "applied" if run.written else "would change"
    for result in run.results:
        if result.error is not None:
            lines.append(_command("error", result.error, file=result.path, title="torchmigrate: cannot process"))
            continue
        for edit in sorted(result.edits):
            title = f"torchmigrate {edit.pass_id} ({state})"
            lines.append(_command("warning", edit.message, file=result.path, line=edit.line, col=edit.col, title=title))
        for finding in sorted(result.findings):
            if finding.fix is not None:
                title = f"torchmigrate {finding.pass_id} (review fix: --unsafe-fixes applies it)"
                message = finding.message + "\n\nSuggested change:\n" + "\n".join(finding.fix.diff_lines())
            else:
                title, message = f"torchmigrate {finding.pass_id} (needs a manual change)", finding.message
            lines.append(_command("warning", message, file=result.path, line=finding.line, col=finding.col, title=title))
    return "".join(line + "\n" for line in lines)
