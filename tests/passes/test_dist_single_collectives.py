"""single-collectives (2.13): the old names warn on torch 2.13; the renamed code warns nothing and gives the same tensors."""

from __future__ import annotations

import textwrap
from pathlib import Path

from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

LEGACY = textwrap.dedent(
    """
    import torch
    import torch.distributed as dist
    import torch.distributed._functional_collectives as funcol
    from torch.distributed._functional_collectives import reduce_scatter_tensor

    t = torch.arange(6.0)
    out = torch.empty(6)
    dist.all_gather_into_tensor(out, t, group=pg)
    out2 = torch.empty(6)
    dist.reduce_scatter_tensor(out2, t * 3, op=dist.ReduceOp.SUM)
    g = funcol.all_gather_tensor(t, 0, pg).wait()
    rs = reduce_scatter_tensor(t + 1, "sum", 0, pg).wait()
    co = [x.wait() for x in funcol.all_gather_into_tensor_coalesced([t, t * 2], pg)]
    """
)


def test_old_names_warn_and_new_names_do_not(tmp_path: Path) -> None:
    migrated = migrate_source(LEGACY, to="2.13")
    assert migrated.passes_applied == ["single-collectives"]
    for old in ("all_gather_into_tensor(", "reduce_scatter_tensor", "all_gather_tensor("):
        assert old not in migrated.code
    with one_rank_group(tmp_path) as pg:
        before = run_code(LEGACY, pg=pg)
        after = run_code(migrated.code, pg=pg)
        # torch.distributed's own wrappers attribute their FutureWarning to a torch frame, so check them directly.
        import pytest
        import torch
        import torch.distributed as dist

        with pytest.warns(FutureWarning, match="all_gather_single"):
            dist.all_gather_into_tensor(torch.empty(1), torch.ones(1))
        with pytest.warns(FutureWarning, match="reduce_scatter_single"):
            dist.reduce_scatter_tensor(torch.empty(1), torch.ones(1))
    assert len(before.deprecations) == 3, before.deprecations  # the three funcol calls
    assert after.deprecations == []
    for name in ("out", "out2", "g", "rs", "co"):
        torch.testing.assert_close(after.namespace[name], before.namespace[name], msg=name)
    torch.testing.assert_close(after.namespace["out2"], torch.arange(6.0) * 3)


def test_not_emitted_below_2_13() -> None:
    assert migrate_source(LEGACY, to="2.12").code == LEGACY
