"""dist-nn-functional: the old calls warn (eager) and raise (compiled) on 2.13; the migrated ones match and compile."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

LEGACY = textwrap.dedent(
    """
    import torch
    import torch.distributed as dist
    import torch.distributed.nn.functional as dnnf

    def step(x):
        y = dnnf.all_reduce(x * 2)
        m = dnnf.all_reduce(y.detach(), op=dist.ReduceOp.MAX, group=pg)  # funcol differentiates only "sum"
        b = dnnf.broadcast(y + m + 1, 0)
        return torch.cat(dnnf.all_gather(b, group=pg), dim=0) * 3

    x = torch.arange(4.0, requires_grad=True)
    out = step(x)
    out.sum().backward()
    grad = x.grad.clone()
    out = out.detach().clone()
    """
)


def test_migrated_code_matches_and_warns_nothing(tmp_path: Path) -> None:
    import torch

    # 2.12 has no all_gather_single yet: the pass emits all_gather_tensor, which --to 2.13 renames.
    assert "funcol.all_gather_tensor(b, 0, pg)" in migrate_source(LEGACY, to="2.12", unsafe_fixes=True).code
    migrated = migrate_source(LEGACY, to="2.13", unsafe_fixes=True)
    assert migrated.passes_applied == ["dist-nn-functional", "single-collectives"]
    assert "dnnf" not in migrated.code and "funcol.all_gather_single(b, 0, pg)" in migrated.code
    assert 'funcol.all_reduce(y.detach(), "max", pg)' in migrated.code
    with one_rank_group(tmp_path) as pg:
        before = run_code(LEGACY, pg=pg)
        after = run_code(migrated.code, pg=pg)
    assert any("torch.distributed.nn.functional.all_reduce is deprecated" in d for d in before.deprecations)
    assert after.deprecations == []
    torch.testing.assert_close(after.namespace["out"], before.namespace["out"])
    torch.testing.assert_close(after.namespace["out"], (torch.arange(4.0) * 4 + 1) * 3)
    torch.testing.assert_close(after.namespace["grad"], before.namespace["grad"])


COMPILED = textwrap.dedent(
    """
    import torch
    import torch.distributed.nn.functional as dnnf

    @torch.compile(backend="eager", fullgraph=True)
    def f(x):
        return dnnf.all_reduce(x) + 1

    out = f(torch.ones(3))
    """
)


def test_under_compile_old_raises_new_runs(tmp_path: Path) -> None:
    import torch

    migrated = migrate_source(COMPILED, to="2.12", unsafe_fixes=True)
    assert "funcol.all_reduce(x, " in migrated.code
    with one_rank_group(tmp_path):
        with pytest.raises(Exception, match="not supported under torch.compile"):
            run_code(COMPILED)
        torch._dynamo.reset()
        ran = run_code(migrated.code)
        torch._dynamo.reset()
    assert ran.deprecations == []
    torch.testing.assert_close(ran.namespace["out"], torch.full((3,), 2.0))
