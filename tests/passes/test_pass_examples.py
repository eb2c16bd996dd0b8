"""Generated tests: every example of every pass (Fixit's pattern).

For each example, with unsafe fixes on (review-level edits applied): before → after exactly; after is a fixed point
(idempotent); below the pass's release nothing changes; the after text parses; and the number of findings is the one
the example declares. Without unsafe fixes a review-level pass changes nothing and reports each edit as a finding
whose suggested change rebuilds the example's after-code; and below the pass's ``since`` (the support floor) no pass
makes its edit.
"""

from __future__ import annotations

import ast
from pathlib import PurePath

import pytest

from torchmigrate.core.passes import DEPRECATION, PROJECT, PYTHON, REVIEW, Example, Pass
from torchmigrate.core.registry import Options, all_passes
from torchmigrate.core.results import FileResult, Replacement
from torchmigrate.core.text import split_lines
from torchmigrate.core.versions import KNOWN_RELEASES, Version, parse_version
from torchmigrate.project.context import migrate_project_text
from torchmigrate.python.engine import migrate_text

CASES = [pytest.param(p, i, e, id=f"{p.id}-{i}") for p in all_passes() for i, e in enumerate(p.examples, start=1)]
# Passes filed under the oldest release the tool knows (changes made in or before 1.8) have no release below them.
BELOW = [c for c in CASES if c.values[0].version > KNOWN_RELEASES[0]]
CHANGES = [c for c in CASES if c.values[2].after is not None and c.values[2].after != c.values[2].before]
REVIEW_CHANGES = [c for c in CHANGES if c.values[0].safety is REVIEW]
FLOORED = [c for c in CHANGES if c.values[0].files == PYTHON and c.values[0].since_version > KNOWN_RELEASES[0]]


def _target(p: Pass, e: Example) -> Version:
    """The release an example runs at: its own ``to``, else the pass's release (or its ``since``, if that is newer:
    the new form cannot be emitted for an older target)."""
    return parse_version(e.to) if e.to else max(p.version, p.since_version)


def _options(p: Pass, e: Example, *, below: bool = False, unsafe: bool = True, floor: Version | None = None) -> Options:
    earlier = [v for v in KNOWN_RELEASES if v < p.version] or [KNOWN_RELEASES[0]]
    if below:
        return Options(to=earlier[-1], from_=earlier[0], select=frozenset({p.id}), unsafe_fixes=unsafe)
    return Options(to=_target(p, e), from_=earlier[-1], select=frozenset({p.id}), unsafe_fixes=unsafe, min_torch=floor)


def _migrate(p: Pass, e: Example, text: str, options: Options) -> FileResult:
    if p.files == PROJECT:  # project file passes rewrite the file the example names
        return migrate_project_text(text, PurePath(e.path), options.project_passes(), options.to, gate=options.gate())
    return migrate_text(text, options.passes(), gate=options.gate())


@pytest.mark.parametrize(("p", "number", "example"), CASES)
def test_before_becomes_after(p: Pass, number: int, example: Example) -> None:
    result = _migrate(p, example, example.before, _options(p, example))
    assert result.error is None
    assert result.code == example.expected
    assert len([f for f in result.findings if f.pass_id == p.id]) == example.findings
    if p.files != PROJECT:
        ast.parse(result.code)
    if example.after is not None and example.after != example.before:
        assert result.edits, "a rewrite must report its edits"
        assert all(edit.line >= 1 for edit in result.edits)
        assert all((edit.safety == "review") is (p.safety is REVIEW) for edit in result.edits)


@pytest.mark.parametrize(("p", "number", "example"), CASES)
def test_after_is_a_fixed_point(p: Pass, number: int, example: Example) -> None:
    result = _migrate(p, example, example.expected, _options(p, example))
    assert result.error is None
    assert result.code == example.expected
    assert not result.edits


@pytest.mark.parametrize(("p", "number", "example"), BELOW)
def test_nothing_below_the_release(p: Pass, number: int, example: Example) -> None:
    result = _migrate(p, example, example.before, _options(p, example, below=True))
    assert result.code == example.before
    assert not result.edits and not result.findings


def _apply(text: str, replacements: set[Replacement]) -> str:
    lines = split_lines(text)
    for rep in sorted(replacements, key=lambda r: (r.line, r.end_line), reverse=True):
        assert "".join(lines[rep.line - 1 : rep.end_line - 1]) == rep.old, rep
        lines[rep.line - 1 : rep.end_line - 1] = split_lines(rep.new)
    return "".join(lines)


@pytest.mark.parametrize(("p", "number", "example"), REVIEW_CHANGES)
def test_review_edits_without_unsafe_fixes_are_suggested_not_made(p: Pass, number: int, example: Example) -> None:
    """Without unsafe fixes a review-level pass leaves the code as it is; each edit it would make is a finding at the
    edit's position that carries its change, and the changes together give the example's after-code."""
    applied = _migrate(p, example, example.before, _options(p, example))
    result = _migrate(p, example, example.before, _options(p, example, unsafe=False))
    assert result.error is None
    assert result.code == example.before and not result.edits
    suggested = [f for f in result.findings if f.fix is not None]
    assert [(f.line, f.col, f.pass_id) for f in suggested] == [(e.line, e.col, e.pass_id) for e in applied.edits]
    assert all(f.fix_available == "unsafe" and "--unsafe-fixes" in f.message for f in suggested)
    assert len(result.findings) - len(suggested) == example.findings  # the example's own findings are still reported
    replacements = {rep for f in suggested for rep in f.fix.replacements}  # type: ignore[union-attr]
    assert _apply(example.before, replacements) == example.after


@pytest.mark.parametrize(("p", "number", "example"), FLOORED)
def test_no_edit_below_the_support_floor(p: Pass, number: int, example: Example) -> None:
    """With a support floor below the pass's ``since`` the new form would break a release the code must run on: the
    code stays, and each edit is a finding that names the floor and the release the new form needs."""
    below = max(v for v in KNOWN_RELEASES if v < p.since_version)
    result = _migrate(p, example, example.before, _options(p, example, floor=below))
    assert result.error is None
    assert result.code == example.before and not result.edits
    held = [f for f in result.findings if "not applied: the new form needs" in f.message]
    if p.kind is DEPRECATION:  # the old form still works on the floor: the edit waits without a finding
        assert not held
        return
    assert held and all(f"torch >= {p.since_version}" in f.message and f"torch {below}" in f.message for f in held)


def test_every_python_pass_declares_since_with_its_evidence() -> None:
    for p in all_passes():
        if p.files == PYTHON:
            assert p.since is not None, f"{p.id}: declare since= (the release the emitted form needs)"
            assert f"since {p.since}" in p.evidence or "finding only" in p.evidence, p.id
            edits = any(e.after not in (None, e.before) for e in p.examples)
            assert not (edits and "finding only" in p.evidence), f"{p.id} edits: its since must name the form it emits"


def test_every_pass_is_documented_and_proven() -> None:
    for p in all_passes():
        assert p.doc.strip(), p.id
        assert "## What it does" in p.doc and "## Fix safety" in p.doc, p.id
        assert p.evidence.strip(), p.id
        assert any(e.after is not None and e.after != e.before for e in p.examples) or any(e.findings for e in p.examples), (
            f"{p.id} has no example that changes or reports anything"
        )
