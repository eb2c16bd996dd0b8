"""The bundled example `collectives.py` migrates to 2.12 and 2.13, runs on a 1-rank gloo group, and matches."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "legacy_project" / "src" / "legacy_app" / "collectives.py"
DRIVER = textwrap.dedent(
    """

    _t = torch.arange(4.0)
    _out = torch.empty(4)
    gather_into(_out, _t)
    results = {
        "reduce_grads": reduce_grads(_t, pg).clone(),
        "gather_shards": gather_shards(_t, pg).clone(),
        "reduce_scatter_rows": reduce_scatter_rows(_t, pg).clone(),
        "mean_loss": mean_loss(_t * 2).clone(),
        "gather_features": gather_features(_t + 1, pg).clone(),
        "gather_into": _out,
    }
    """
)


@pytest.mark.parametrize("to", ["2.12", "2.13"])
def test_example_migrates_and_runs_the_same(tmp_path: Path, to: str) -> None:
    import torch

    legacy = EXAMPLE.read_text(encoding="utf-8")
    migrated = migrate_source(legacy, to=to, path=str(EXAMPLE), unsafe_fixes=True)
    assert "group-names-to-process-groups" in migrated.passes_applied
    assert "dist-nn-functional" in migrated.passes_applied
    assert ".group_name" not in migrated.code and "dist_fn" not in migrated.code
    assert ("single-collectives" in migrated.passes_applied) == (to == "2.13")
    assert migrate_source(migrated.code, to=to, unsafe_fixes=True).code == migrated.code  # a second run changes nothing
    with one_rank_group(tmp_path) as pg:
        before = run_code(legacy + DRIVER, pg=pg)
        after = run_code(migrated.code + DRIVER, pg=pg)
    assert before.deprecations  # dist.nn.functional and all_gather_into_tensor warn on 2.13
    if to == "2.13":
        assert after.deprecations == []
    for key, value in before.namespace["results"].items():
        torch.testing.assert_close(after.namespace["results"][key], value, msg=key)
