"""Generated tests: every example of every pass (Fixit's pattern).

For each example: before → after exactly; after is a fixed point (idempotent); below the pass's release nothing
changes; the after text parses; and the number of findings is the one the example declares.
"""

from __future__ import annotations

import ast
from pathlib import PurePath

import pytest

from torchmigrate.core.passes import PROJECT, Example, Pass
from torchmigrate.core.registry import Options, all_passes
from torchmigrate.core.results import FileResult
from torchmigrate.core.versions import KNOWN_RELEASES, parse_version
from torchmigrate.project.context import migrate_project_text
from torchmigrate.python.engine import migrate_text

CASES = [pytest.param(p, i, e, id=f"{p.id}-{i}") for p in all_passes() for i, e in enumerate(p.examples, start=1)]
# Passes filed under the oldest release the tool knows (changes made in or before 1.8) have no release below them.
BELOW = [c for c in CASES if c.values[0].version > KNOWN_RELEASES[0]]


def _options(p: Pass, e: Example, *, below: bool = False) -> Options:
    to = parse_version(e.to) if e.to else p.version
    earlier = [v for v in KNOWN_RELEASES if v < p.version] or [KNOWN_RELEASES[0]]
    if below:
        return Options(to=earlier[-1], from_=earlier[0], select=frozenset({p.id}))
    return Options(to=to, from_=earlier[-1], select=frozenset({p.id}))


def _migrate(p: Pass, e: Example, text: str, options: Options) -> FileResult:
    if p.files == PROJECT:  # project file passes rewrite the file the example names
        return migrate_project_text(text, PurePath(e.path), options.project_passes(), options.to)
    return migrate_text(text, options.passes())


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


def test_every_pass_is_documented_and_proven() -> None:
    for p in all_passes():
        assert p.doc.strip(), p.id
        assert "## What it does" in p.doc and "## Fix safety" in p.doc, p.id
        assert p.evidence.strip(), p.id
        assert any(e.after is not None and e.after != e.before for e in p.examples) or any(e.findings for e in p.examples), (
            f"{p.id} has no example that changes or reports anything"
        )
