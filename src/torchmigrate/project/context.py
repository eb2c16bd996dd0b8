"""Project file passes: torch pins, CUDA wheel indexes and Python floors in requirements, pyproject.toml, setup.cfg,
setup.py, Dockerfiles and CI files.

A project file pass is a :class:`~torchmigrate.core.passes.Pass` with ``files="project"`` and a text rewriter
``fn(text, ctx) -> text``; it is listed by ``migrate --list``, documented by ``--explain`` and selected with
``--select`` / ``--ignore`` like any other pass. Rewriters edit the text in place (the author's quoting, spacing and
style stay), record an :class:`~torchmigrate.core.results.Edit` per change and report what they cannot decide as a
:class:`~torchmigrate.core.results.Finding`. The version tables live in :mod:`torchmigrate.project.ecosystem`, the requirement
scanner in :mod:`torchmigrate.project.pins`. ``# migrate: ignore`` (or ``# migrate: ignore[pass-id]``) on a line leaves it
alone.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from torchmigrate.core.fixes import SAFE_ONLY, Gate
from torchmigrate.core.passes import Pass
from torchmigrate.core.results import Edit, FileResult, Finding
from torchmigrate.core.text import SUPPRESS, suppressed_ids
from torchmigrate.core.versions import Version
from torchmigrate.project.pins import project_kind

__all__ = [
    "ProjectContext",
    "migrate_project_text",
]



@dataclass
class ProjectContext:
    """What a project file rewriter sees: the file's kind and name, the target release, and where to report."""

    path: PurePath
    kind: str
    target: Version
    pass_: Pass
    text: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._starts = [0]
        for line in self.text.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def allowed(self, offset: int) -> bool:
        line = bisect.bisect_right(self._starts, offset) - 1
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        match = SUPPRESS.search(self.text, self._starts[line], end)
        if match is None:
            return True
        ids = suppressed_ids(match)
        return ids is not None and self.pass_.id not in ids

    def edit(self, offset: int, message: str) -> None:
        line, col = self.position(offset)
        self.edits.append(Edit(line, col, self.pass_.id, message, self.pass_.safety.value, self.pass_.note_for_edits))

    def finding(self, offset: int, message: str) -> None:
        if self.allowed(offset):
            line, col = self.position(offset)
            self.findings.append(Finding(line, col, self.pass_.id, message))


def apply_changes(text: str, changes: Sequence[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(changes, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# --- version specifiers -----------------------------------------------------------------------------------------


# --- torch-pin ----------------------------------------------------------------------------------------------------


def logical_line(text: str, offset: int) -> str:
    """The line around ``offset`` with the lines a trailing backslash continues it onto."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    while end != -1 and text[:end].rstrip("\r").endswith("\\"):
        end = text.find("\n", end + 1)
    return text[start : len(text) if end == -1 else end]


# --- cuda-wheels --------------------------------------------------------------------------------------------------


# --- python-floor -------------------------------------------------------------------------------------------------






def _line_in(seen: str, original: str) -> Callable[[int], int]:
    """Project file rewrites change text inside lines and never add or remove one, except a rare line split."""
    if seen.count("\n") == original.count("\n"):
        return lambda line: line
    matcher = difflib.SequenceMatcher(None, original.splitlines(), seen.splitlines(), autojunk=False)

    def to_original(line: int) -> int:
        for tag, i1, _, j1, j2 in matcher.get_opcodes():
            if j1 <= line - 1 < j2:
                return i1 + (line - 1 - j1 if tag == "equal" else 0) + 1
        return line

    return to_original


def migrate_project_text(
    text: str, path: PurePath, passes: Sequence[Pass], to: Version, shown: str | None = None, gate: Gate = SAFE_ONLY
) -> FileResult:
    """Run the project file ``passes`` over ``text``, the content of project file ``path``. Never raises for a bad file.

    ``gate``: a ``review`` pass's changes are made only with unsafe fixes, else reported with the suggested change
    (:class:`~torchmigrate.core.fixes.Gate`)."""
    result = FileResult(path=shown if shown is not None else path.as_posix(), old=text, new=text)
    kind = project_kind(path)
    if kind is None:
        return result
    code = text
    for pass_ in passes:
        if pass_.project_rewrite is None or not any(t in code for t in pass_.triggers):
            continue
        ctx = ProjectContext(path, kind, to, pass_, code)
        try:
            new_code = pass_.project_rewrite(code, ctx)
        except Exception as exc:  # a bug in one pass must not lose the file or stop the run
            result.new = None
            result.error = f"pass {pass_.id} failed: {type(exc).__name__}: {exc}"
            return result
        result.findings.extend(ctx.findings)
        if new_code != code:
            why = gate.holds_back(pass_)
            if why is not None:  # reported with its suggestion; the later passes see the text as it was
                result.findings.extend(gate.findings(pass_, why, ctx.edits, code, new_code, _line_in(code, text)))
                continue
            result.edits.extend(ctx.edits)
            result.passes_applied.append(pass_.id)
            code = new_code
    result.new = code
    return result
