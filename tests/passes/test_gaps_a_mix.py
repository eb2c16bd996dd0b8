"""A realistic legacy training script mixing the common old forms (catalog gaps rows 1-8): one `migrate` run makes it
code that runs on torch 2.13 without a deprecation warning and computes the same; a second run changes nothing."""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()

LEGACY = textwrap.dedent(
    '''
    """Train a small model (written for PyTorch 1.x)."""
    import argparse
    import math

    import numpy as np
    import torch as th
    import torch.nn as nn
    from torch.autograd import Variable
    from torch import norm


    def get_args(argv):
        parser = argparse.ArgumentParser(description="toy")
        parser.add_argument("--local_rank", type=int, default=-1, help="set by torch.distributed.launch")
        parser.add_argument("--steps", type=int, default=3)
        return parser.parse_args(argv)


    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm = nn.LayerNorm(dim)   # a module named norm: self.norm(x) must stay
            self.proj = nn.Linear(dim, dim)

        def forward(self, x: th.Tensor) -> th.Tensor:
            h = self.norm(x)
            return self.proj(h) / x.norm(dim=-1, keepdim=True).clamp(min=1e-6)


    def positions(h, w):
        ys, xs = th.meshgrid(th.arange(h), th.arange(w))
        return th.stack([ys, xs], dim=-1).float()


    def grad_norm(model, p=2):
        total = th.norm(th.stack([th.norm(q.grad.detach(), 2) for q in model.parameters()]), 2)
        return total, th.norm(th.stack([norm(q.grad, float("inf")) for q in model.parameters()]), -math.inf)


    def main(argv):
        args = get_args(argv)
        th.manual_seed(0)
        model = Block(4)
        opt = th.optim.SGD(model.parameters(), lr=0.1)
        grid = positions(2, 2).reshape(4, 2)
        x = Variable(th.cat([grid, grid], dim=1))
        target = Variable(th.from_numpy(np.ones((4, 4), dtype=np.float32)), requires_grad=False)
        scale = Variable(th.ones(1), requires_grad=True)
        log = []
        for _ in range(args.steps):
            opt.zero_grad()
            out = model(x) * scale
            loss = th.norm(out - target, p="fro") + th.norm(Variable(out.detach()), dim=1).sum() * 0
            loss.backward()
            log.append((loss.item(), *(g.item() for g in grad_norm(model))))
            opt.step()
        if th.cuda.is_available():
            log.append(th.cuda.memory_cached() >= 0)
            th.cuda.reset_max_memory_allocated()
        weight = model.proj.weight
        shares = weight.data.storage().data_ptr() == weight.storage().data_ptr()
        elements = weight.storage().size()
        return args, log, shares, elements, scale.grad, th.norm(weight, "nuc")
    '''
)


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    torch.storage._set_always_warn_typed_storage_removal(True)
    yield
    torch.set_warn_always(before)
    torch.storage._set_always_warn_typed_storage_removal(False)


def _run(code: str, argv: list[str]) -> tuple[Any, list[str]]:
    namespace: dict[str, Any] = {"__name__": "legacy_script"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<script>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
        result = namespace["main"](argv)
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]


def test_one_run_migrates_the_mix_and_a_second_run_changes_nothing() -> None:
    first = migrate_source(LEGACY, to="2.13")
    assert first.error is None and first.findings == []
    assert {"torch-norm", "autograd-variable", "meshgrid-indexing", "local-rank-argument", "tensor-storage", "cuda-memory-names"} <= set(
        first.passes_applied
    )
    new = first.code
    second = migrate_source(new, to="2.13")
    assert second.code == new and not second.edits and not second.findings
    # look-alikes and what must stay
    assert "h = self.norm(x)" in new and "nn.LayerNorm(dim)" in new
    assert "Variable" not in new and "th.norm(" not in new and ".storage()" not in new and "memory_cached" not in new
    assert '"--local-rank", "--local_rank"' in new and 'indexing="ij"' in new

    old_result, old_warnings = _run(LEGACY, ["--local_rank", "0"])
    new_result, new_warnings = _run(new, ["--local-rank=0"])  # what torch.distributed.launch passes since 2.0
    assert any("indexing argument" in w for w in old_warnings) and any("TypedStorage" in w for w in old_warnings)
    assert new_warnings == [], new_warnings
    (old_args, old_log, old_shares, old_elements, old_grad, old_nuc) = old_result
    (new_args, new_log, new_shares, new_elements, new_grad, new_nuc) = new_result
    assert vars(old_args) == vars(new_args)
    assert old_log == new_log  # losses and gradient norms, step by step, bit for bit
    assert (old_shares, old_elements) == (new_shares, new_elements) == (True, 16)
    assert torch.equal(old_grad, new_grad) and torch.equal(old_nuc, new_nuc)
    with pytest.raises(SystemExit):  # the old parser refused what the launcher passes
        _run(LEGACY, ["--local-rank=0"])
