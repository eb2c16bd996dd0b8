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
from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.core.results import Edit, FileResult, Finding
from torchmigrate.core.text import SUPPRESS, suppressed_ids
from torchmigrate.core.versions import Version
from torchmigrate.project.pins import project_kind
from torchmigrate.project.plan import FilePlan, PlanContext
from torchmigrate.project.planner import plan_file
from torchmigrate.project.text import apply_changes, logical_line

__all__ = [
    "ProjectContext",
    "apply_changes",
    "logical_line",
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
    active: frozenset[str] = frozenset()  # the project file passes of the run
    python_passes: frozenset[str] | None = None  # the Python passes of the run (None: not known)
    floor: Version | None = None  # the oldest torch the project's declared requirements admit after migration

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

    def allowed_for(self, offset: int, pass_id: str) -> bool:
        """Whether ``# migrate: ignore`` on the line of ``offset`` leaves pass ``pass_id`` free to act there."""
        line = bisect.bisect_right(self._starts, offset) - 1
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        match = SUPPRESS.search(self.text, self._starts[line], end)
        if match is None:
            return True
        ids = suppressed_ids(match)
        return ids is not None and pass_id not in ids

    def plan(self) -> FilePlan:
        """The plan of this file for the run (see :mod:`torchmigrate.project.plan`)."""
        context = PlanContext(self.target, self.active, self.python_passes, self.floor, self.allowed_for)
        return plan_file(self.text, self.kind, self.path.name, context)

    def apply(self, pass_id: str) -> str:
        """Apply ``pass_id``'s part of the plan: its changes (each recorded as an edit) and its findings."""
        changes, findings = self.plan().of(pass_id)
        for change in changes:
            self.edit(change.at, change.message)
        for at, message in findings:
            self.finding(at, message)
        return apply_changes(self.text, [(c.start, c.end, c.new) for c in changes])

    def edit(self, offset: int, message: str) -> None:
        line, col = self.position(offset)
        self.edits.append(Edit(line, col, self.pass_.id, message, self.pass_.safety.value, self.pass_.note_for_edits))

    def finding(self, offset: int, message: str) -> None:
        if self.allowed(offset):
            line, col = self.position(offset)
            self.findings.append(Finding(line, col, self.pass_.id, message))


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
    text: str,
    path: PurePath,
    passes: Sequence[Pass],
    to: Version,
    shown: str | None = None,
    *,
    python_passes: frozenset[str] | None = None,
    floor: Version | None = None,
    gate: Gate = SAFE_ONLY,
) -> FileResult:
    """Run the project file ``passes`` over ``text``, the content of project file ``path``. Never raises for a bad file.

    ``python_passes`` (the ids of the run's Python passes) and ``floor`` (the oldest torch the project's declared
    requirements admit after migration) refine the plan: see :class:`~torchmigrate.project.plan.PlanContext`.
    ``gate``: a ``review`` pass's changes are made only with unsafe fixes, else reported with the suggested change
    (:class:`~torchmigrate.core.fixes.Gate`); without unsafe fixes a review pass (cuda-wheels) does not count as part
    of the run for the plan, so no set moves on the promise of a review edit that is not applied.
    """
    result = FileResult(path=shown if shown is not None else path.as_posix(), old=text, new=text)
    kind = project_kind(path)
    if kind is None:
        return result
    code = text
    for pass_ in passes:
        if pass_.project_rewrite is None or not any(t in code for t in pass_.triggers):
            continue
        # A held-back review pass still plans its own part, so that its finding carries the change it would make.
        active = frozenset(p.id for p in passes if gate.unsafe_fixes or p.safety is SAFE or p is pass_)
        ctx = ProjectContext(path, kind, to, pass_, code, active=active, python_passes=python_passes, floor=floor)
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
