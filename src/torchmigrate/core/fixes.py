"""Edits a run holds back, and what it reports instead.

Two rules decide whether a pass's edits are made (``Gate``): a ``review`` edit is made only with unsafe fixes (ruff's
``--unsafe-fixes``), and no edit is made whose emitted form is newer than the run's *support floor* (the oldest torch
the migrated code must still run on; a pass's ``since``). A held-back edit becomes a finding: a review edit carries
its suggested change as the finding's :class:`~torchmigrate.core.results.Fix` (the difference between the text the
pass saw and the text it produced, cut into line replacements); a floor-blocked edit says which requirement or option
sets the floor and how to lift it — except for a deprecation, whose old form still works: its edit waits, silently,
until the floor reaches the pass's ``since`` (as pyupgrade leaves Python 3.9 forms alone under ``--py38-plus``).

Passes chain, so the result without a held-back pass is simply the run in which it changed nothing: the engines call
:meth:`Gate.holds_back` after a pass ran and keep the text it started from.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from torchmigrate.core.passes import PYTHON, Kind, Pass, Safety
from torchmigrate.core.results import Edit, Finding, Fix, Replacement, check_note
from torchmigrate.core.text import split_lines
from torchmigrate.core.versions import Version

__all__ = ["APPLY_ALL", "SAFE_ONLY", "Gate", "held_back", "line_hunks"]

FLOOR, UNSAFE = "floor", "unsafe"


@dataclass(frozen=True)
class Gate:
    """Which of a pass's edits a run makes.

    ``unsafe_fixes``: make ``review`` edits too. ``floor``: the support floor (``None``: none, every ``since`` is
    accepted); ``floor_source`` says what sets it (``"requirements.txt: torch>=2.6"``, ``"--min-torch 2.6"``,
    ``"--to 2.8"``) and ``floor_kind`` what kind of thing that is, for the finding's advice.
    """

    unsafe_fixes: bool = False
    floor: Version | None = None
    floor_source: str = ""
    floor_kind: str = "option"  # what sets the floor: "option" (--min-torch), "requirement", "ci" or "target" (--to)

    def holds_back(self, pass_: Pass) -> str | None:
        """``"floor"`` or ``"unsafe"`` when the edits of ``pass_`` are not made, else ``None``. Project file passes are
        not floor-gated: they move the requirement that sets the floor."""
        if self.floor is not None and pass_.files == PYTHON and pass_.since_version > self.floor:
            return FLOOR
        if pass_.safety is Safety.REVIEW and not self.unsafe_fixes:
            return UNSAFE
        return None

    def findings(
        self, pass_: Pass, why: str, edits: Sequence[Edit], seen: str, produced: str, to_file: Callable[[int], int]
    ) -> list[Finding]:
        """The findings that replace ``edits`` (in the lines of ``seen``, the text the pass was given) when ``why``
        holds them back; ``produced`` is the pass's output, ``to_file`` maps a line of ``seen`` to the file's line."""
        if why == FLOOR:
            if pass_.kind is Kind.DEPRECATION:
                # the old form still works on the target and on the floor: as pyupgrade does below --pyXY-plus, the
                # rewrite simply waits until the floor reaches its `since` (a finding here was noise on real code)
                return []
            return [
                Finding(to_file(e.line), e.col, e.pass_id, self._floor_message(pass_, e.message)) for e in edits
            ]
        return held_back(edits, seen, produced, to_file, note=pass_.review_note)

    def _floor_message(self, pass_: Pass, message: str) -> str:
        since = pass_.since_version
        lift = {
            "requirement": f"raise that requirement's lower bound to {since} (or pass --min-torch {since})",
            "target": f"migrate with --to {since} or later",
            "ci": f"stop testing torch below {since} in CI and declare torch>={since} (or pass --min-torch {since})",
        }.get(self.floor_kind, f"pass --min-torch {since} or later")
        return (
            f"{message} — not applied: the new form needs torch >= {since}, but the code must still run on torch "
            f"{self.floor} (set by {self.floor_source or 'the support floor'}); to apply it, {lift}"
        )


SAFE_ONLY = Gate()
"""Safe edits only, no support floor: what the engines do when a caller gives no gate."""
APPLY_ALL = Gate(unsafe_fixes=True)
"""Every edit is made (review edits too; no support floor)."""


def line_hunks(old: str, new: str) -> list[tuple[int, int, str, str]]:
    """The line ranges that differ between ``old`` and ``new``: ``(start, end, old text, new text)``, 0-based,
    ``[start, end)`` in the lines of ``old``."""
    a, b = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [
        (i1, i2, "".join(a[i1:i2]), "".join(b[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def held_back(
    edits: Sequence[Edit], seen: str, produced: str, to_file: Callable[[int], int], note: str = ""
) -> list[Finding]:
    """One finding per review edit that was not applied, each carrying its part of the change from ``seen`` to
    ``produced`` as an ``unsafe`` :class:`Fix` (edits whose change overlaps share it)."""
    hunks = line_hunks(seen, produced)
    owned: dict[int, list[int]] = {}
    for h, (start, end, _, _) in enumerate(hunks):
        first, last = start + 1, max(end, start + 1)
        inside = [i for i, e in enumerate(edits) if first <= e.line <= last]
        owner = inside[0] if inside else min(range(len(edits)), key=lambda i: (abs(edits[i].line - first), i))
        owned.setdefault(owner, []).append(h)
    findings = []
    for i, edit in enumerate(edits):
        mine = owned.get(i) or _nearest(hunks, edit.line)
        replacements = tuple(_replacement(hunks[h], to_file) for h in mine)
        fix = Fix(f"{edit.pass_id}: {edit.message}", replacements) if replacements else None
        message = f"{edit.message} [review fix, not applied: --unsafe-fixes applies it]{check_note(edit.pass_id, note)}"
        findings.append(Finding(to_file(edit.line), edit.col, edit.pass_id, message, fix))
    return findings


def _nearest(hunks: Sequence[tuple[int, int, str, str]], line: int) -> list[int]:
    if not hunks:
        return []
    return [min(range(len(hunks)), key=lambda h: (abs(hunks[h][0] + 1 - line), h))]


def _replacement(hunk: tuple[int, int, str, str], to_file: Callable[[int], int]) -> Replacement:
    start, end, old, new = hunk
    first = to_file(start + 1)
    return Replacement(first, first + (end - start), old, new)
