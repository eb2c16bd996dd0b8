"""fsdp2-fullgraph: the finding is about a real failure on torch 2.13, and both suggested fixes run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

CODE = textwrap.dedent(
    """
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    fully_shard(model, mesh=init_device_mesh("cpu", (1,)))
    compiled = torch.compile(model, fullgraph=FULLGRAPH, backend="eager")
    out = compiled(torch.randn(3, 4))
    out.sum().backward()
    """
)


def test_finding_and_the_failure_it_warns_about(tmp_path: Path) -> None:
    import torch

    before = CODE.replace("FULLGRAPH", "True")
    result = migrate_source(before, to="2.12")
    assert result.code == before
    assert [f.pass_id for f in result.findings] == ["fsdp2-fullgraph"]
    assert migrate_source(CODE.replace("FULLGRAPH", "False"), to="2.12").findings == []
    with one_rank_group(tmp_path):
        torch._dynamo.reset()
        with pytest.raises(torch._dynamo.exc.Unsupported):
            run_code(before)
        torch._dynamo.reset()
        ran = run_code(CODE.replace("FULLGRAPH", "False"))
        torch._dynamo.reset()
    assert ran.namespace["out"].shape == (3, 2)
    assert ran.deprecations == []
