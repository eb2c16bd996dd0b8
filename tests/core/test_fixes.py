"""The gate (core.fixes): which edits a run makes, and the findings that replace those it holds back."""

from __future__ import annotations

import pytest

from torchmigrate.core.fixes import APPLY_ALL, SAFE_ONLY, Gate, held_back, line_hunks
from torchmigrate.core.passes import PROJECT, REVIEW, SAFE, Pass
from torchmigrate.core.registry import Options
from torchmigrate.core.results import Edit, FileResult, Finding, Fix, Replacement, Summary, check_note
from torchmigrate.core.versions import Version

DOC = "## What it does\nx\n## Fix safety\ny"


def make(safety: str = "review", since: str | None = "2.6", files: str = "python") -> Pass:
    return Pass(
        id="t",
        release="2.8",
        since=since,
        safety=REVIEW if safety == "review" else SAFE,
        title="t",
        evidence="e",
        triggers=("t",),
        doc=DOC,
        files=files,
        review_note="check the thing",
    )


@pytest.mark.parametrize(
    ("gate", "safety", "files", "expected"),
    [
        (SAFE_ONLY, "review", "python", "unsafe"),
        (SAFE_ONLY, "safe", "python", None),
        (APPLY_ALL, "review", "python", None),
        (Gate(unsafe_fixes=True, floor=Version(2, 5)), "review", "python", "floor"),  # the floor wins over unsafe fixes
        (Gate(unsafe_fixes=False, floor=Version(2, 5)), "safe", "python", "floor"),
        (Gate(unsafe_fixes=False, floor=Version(2, 6)), "safe", "python", None),  # since == floor: the form exists there
        (Gate(unsafe_fixes=False, floor=Version(2, 5)), "review", PROJECT, "unsafe"),  # project passes move the floor
    ],
)
def test_holds_back(gate: Gate, safety: str, files: str, expected: str | None) -> None:
    assert gate.holds_back(make(safety, files=files)) == expected


def test_options_gate_defaults_to_safe_fixes_and_the_target_as_floor() -> None:
    options = Options(to=Version(2, 12))
    assert options.unsafe_fixes is False and options.floor == Version(2, 12)
    gate = options.gate()
    assert (gate.unsafe_fixes, gate.floor, gate.floor_source, gate.floor_kind) == (False, Version(2, 12), "--to 2.12", "target")
    pinned = Options(to=Version(2, 12), min_torch=Version(2, 6), min_torch_source="r.txt: torch>=2.6", min_torch_kind="requirement")
    assert pinned.gate() == Gate(False, Version(2, 6), "r.txt: torch>=2.6", "requirement")


def test_line_hunks() -> None:
    assert line_hunks("a\nb\nc\n", "a\nB\nc\nd\n") == [(1, 2, "b\n", "B\n"), (3, 3, "", "d\n")]
    assert line_hunks("same\n", "same\n") == []


def test_held_back_edits_carry_their_own_hunks_and_share_overlapping_ones() -> None:
    seen = "import torch\nx = old(1)\ny = 2\nz = old(3)\n"
    produced = "import torch\nx = new(1)\ny = 2\nz = new(3)\n"
    edits = [Edit(2, 5, "t", "old → new", "review"), Edit(4, 5, "t", "old → new", "review")]
    first, second = held_back(edits, seen, produced, lambda n: n + 10, note="check it")
    assert (first.line, second.line) == (12, 14)  # positions go through the mapping to the file's lines
    assert first.fix == Fix("t: old → new", (Replacement(12, 13, "x = old(1)\n", "x = new(1)\n"),))
    assert second.fix is not None and second.fix.replacements == (Replacement(14, 15, "z = old(3)\n", "z = new(3)\n"),)
    assert first.message == "old → new [review fix, not applied: --unsafe-fixes applies it] — check: check it"
    # two edits on one changed line: the one without a hunk of its own shares its neighbour's
    one = held_back([Edit(2, 1, "t", "a", "review"), Edit(2, 9, "t", "b", "review")], seen, produced.replace("z = new", "z = old"), lambda n: n)
    assert one[0].fix is not None and one[1].fix is not None and one[0].fix.replacements == one[1].fix.replacements


def test_floor_findings_say_what_sets_the_floor_and_how_to_lift_it() -> None:
    edit = [Edit(3, 1, "t", "a → b", "safe")]
    requirement = Gate(floor=Version(2, 5), floor_source="requirements.txt: torch>=2.5", floor_kind="requirement")
    [finding] = requirement.findings(make("safe"), "floor", edit, "", "", lambda n: n)
    assert finding.fix is None and finding.line == 3
    assert finding.message == (
        "a → b — not applied: the new form needs torch >= 2.6, but the code must still run on torch 2.5 (set by "
        "requirements.txt: torch>=2.5); to apply it, raise that requirement's lower bound to 2.6 (or pass --min-torch 2.6)"
    )
    target = Gate(floor=Version(2, 5), floor_source="--to 2.5", floor_kind="target")
    assert target.findings(make("safe"), "floor", edit, "", "", lambda n: n)[0].message.endswith("migrate with --to 2.6 or later")


def test_findings_serialise_their_fix_and_the_summary_counts_them() -> None:
    fix = Fix("t: a → b", (Replacement(2, 3, "a\n", "b\n"),))
    finding = Finding(2, 1, "t", "m", fix)
    assert finding.to_dict()["fix_available"] == "unsafe"
    assert Fix.from_dict(finding.to_dict()["fix"]) == fix  # type: ignore[arg-type]
    assert Finding(1, 1, "t", "m").to_dict()["fix"] is None
    assert fix.diff_lines() == ["-a", "+b"] and fix.moved(3).replacements[0].line == 5
    summary = Summary()
    summary.add(FileResult("f.py", findings=[finding, Finding(1, 1, "t", "plain")]))
    assert summary.unsafe_fixes == 1 and summary.findings == 2
    assert summary.render(written=False).endswith("2 findings, 0 errors (1 more fix with --unsafe-fixes)")
    assert "--unsafe-fixes" not in Summary().render(written=False)


def test_long_review_notes_point_to_explain() -> None:
    assert check_note("t", "") == ""
    assert check_note("t", "one line") == " — check: one line"
    assert check_note("t", "two\nlines") == " — check: see `migrate --explain t` (What to review)"
