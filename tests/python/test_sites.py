"""Passes with an ast detector give exactly the results they give without it: same code, edits and findings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from torchmigrate.core.fixes import APPLY_ALL
from torchmigrate.core.registry import all_passes
from torchmigrate.core.results import FileResult
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.sites import AstFile, analyser_of

DETECTED = [p for p in all_passes() if analyser_of(p) is not None]  # their own detectors, and call rewriters' bound


def outcome(result: FileResult) -> tuple[object, ...]:
    return (result.code, result.error, result.edits, result.findings, result.passes_applied)


def both_ways(text: str, passes: list) -> tuple[tuple[object, ...], tuple[object, ...]]:  # type: ignore[type-arg]
    """With the precheck (detectors settle files without libcst) and without (every pass runs through libcst)."""
    fast = outcome(migrate_text(text, passes, gate=APPLY_ALL))
    slow = outcome(migrate_text(text, passes, precheck=False, gate=APPLY_ALL))
    return fast, slow


def test_there_are_detectors() -> None:
    assert DETECTED


@pytest.mark.parametrize("pass_", DETECTED, ids=lambda p: p.id)
def test_examples_give_the_same_results_with_and_without_the_detector(pass_: object) -> None:
    everything = [p for p in all_passes() if p.files == "python"]
    for example in pass_.examples:  # type: ignore[attr-defined]
        for text in filter(None, (example.before, example.after)):
            fast, slow = both_ways(text, [pass_])
            assert fast == slow, text
            fast, slow = both_ways(text, everything)  # chained with every other pass
            assert fast == slow, text


def test_the_walk_skips_version_guarded_code_as_transformers_do() -> None:
    text = (
        "import torch\nif torch.__version__ >= '2.0':\n    a()\ntry:\n    from torch.x import y\nexcept ImportError:\n"
        "    b()\nif version > 2:\n    d()\nc()\n"
    )
    walked = {n.func.id for n in AstFile(text, ast.parse(text)).walk() if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    file = AstFile(text, ast.parse(text))
    assert walked == {"c", "d"}  # another package's version is no guard
    assert not file.uncertain
    list(file.walk())
    assert file.uncertain  # ... but looks like one: a detector's findings in this file are not trusted as exact


def _torch_sources() -> list[Path]:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    return sorted(p for p in root.rglob("*.py") if p.stat().st_size < 60_000)[::50]


def test_real_files_give_the_same_results_with_and_without_detectors() -> None:
    passes = [p for p in all_passes() if p.files == "python"]
    compared = 0
    for path in _torch_sources():
        text = path.read_text(encoding="utf-8")
        fast, slow = both_ways(text, passes)
        assert fast == slow, path
        compared += 1
    assert compared > 30
