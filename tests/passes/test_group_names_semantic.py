"""group-names-to-process-groups: the migrated code runs on a real 1-rank gloo group and gives the same results."""

from __future__ import annotations

import textwrap
from pathlib import Path

from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

LEGACY = textwrap.dedent(
    """
    import torch
    import torch.distributed._functional_collectives as funcol
    from torch.distributed._functional_collectives import all_to_all_single

    def collect(t, pg):
        out = {}
        out["all_reduce"] = funcol.all_reduce(t, "sum", group=pg.group_name)
        out["all_reduce_pos"] = funcol.all_reduce(t * 2, "max", pg.group_name)
        out["broadcast"] = funcol.broadcast(t, 0, pg.group_name)
        out["gather"] = funcol.all_gather_single(t, 0, group=pg.group_name)
        out["scatter"] = funcol.reduce_scatter_single(t, "sum", 0, pg.group_name)
        out["a2a"] = all_to_all_single(t, None, None, pg.group_name)
        out["coalesced"] = funcol.all_reduce_coalesced([t, t + 1], "sum", pg.group_name)
        name = pg.group_name
        out["op"] = funcol.wait_tensor(torch.ops._c10d_functional.all_reduce(t, "sum", name))
        out["op_kw"] = funcol.wait_tensor(
            torch.ops._c10d_functional.all_gather_into_tensor.default(t, 1, group_name=name)
        )
        return {k: [x.clone() for x in v] if isinstance(v, list) else v.clone() for k, v in out.items()}

    result = collect(torch.arange(4.0), pg)
    """
)


def test_group_name_migration_runs_and_matches(tmp_path: Path) -> None:
    migrated = migrate_source(LEGACY, to="2.12")
    assert migrated.passes_applied == ["group-names-to-process-groups"]
    assert ".group_name" not in migrated.code
    assert "name = " not in migrated.code  # the dead variable is gone
    assert 'torch.ops._c10d_functional.all_reduce(t, "sum", pg)' in migrated.code
    with one_rank_group(tmp_path) as pg:
        before = run_code(LEGACY, pg=pg)
        after = run_code(migrated.code, pg=pg)
    assert after.deprecations == []
    expected = before.namespace["result"]
    got = after.namespace["result"]
    assert expected.keys() == got.keys()
    import torch

    for key in expected:
        torch.testing.assert_close(got[key], expected[key], msg=key)
    torch.testing.assert_close(got["all_reduce"], torch.arange(4.0))


def test_ranks_list_finding_is_about_a_real_deprecation(tmp_path: Path) -> None:
    code = 'import torch.distributed._functional_collectives as funcol\nout = funcol.all_reduce(t, "sum", [0])\n'
    result = migrate_source(code, to="2.12")
    assert result.code == code
    assert [f.pass_id for f in result.findings] == ["group-names-to-process-groups"]
    import torch

    with one_rank_group(tmp_path):
        ran = run_code(code, t=torch.ones(2))
        ran.namespace["out"].wait()
    assert any("ranks + tag" in d for d in ran.deprecations), ran.deprecations


def test_isend_op_really_needs_a_string(tmp_path: Path) -> None:
    """Why the pass leaves `_c10d_functional.isend/irecv` alone: their schema is still `str group_name` in 2.13."""
    import pytest
    import torch

    with one_rank_group(tmp_path) as pg:
        with pytest.raises(RuntimeError, match="str"):
            torch.ops._c10d_functional.isend(torch.ones(1), 0, 0, pg)
