"""libcst drops some comment lines it cannot place: an edit of such a file would lose them, so the file is left as it
was and reported (the same text through a slice keeps them: they lie in a left-out statement's text)."""

from __future__ import annotations

import libcst as cst

from torchmigrate import migrate_source
from torchmigrate.python import engine

LOSSY = "import torch\n\nx = torch.norm(y)\n  # indented after the last statement\n # then a shallower one\n"


def test_libcst_loses_the_line_here() -> None:
    assert cst.parse_module(LOSSY).code != LOSSY  # the premise: if libcst fixes this, the guard is idle


def test_a_file_libcst_cannot_reproduce_is_left_as_it_was_and_reported() -> None:
    engine.SLICING.enabled = False
    try:
        result = migrate_source(LOSSY, to="2.12")
    finally:
        engine.SLICING.enabled = True
    assert result.code == LOSSY and not result.changed
    assert result.error is not None and "does not reproduce this file exactly" in result.error


def test_a_file_libcst_reproduces_is_edited() -> None:
    fine = LOSSY.replace("  # indented", "# not indented")
    result = migrate_source(fine, to="2.12")
    assert result.error is None and "torch.linalg.vector_norm(y)" in result.code
    assert "# not indented after the last statement\n # then a shallower one\n" in result.code
