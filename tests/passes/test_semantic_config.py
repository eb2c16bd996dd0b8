"""The 2.11–2.13 config/backend passes: before-code warns or fails on torch 2.13, after-code runs clean."""

from __future__ import annotations

import pytest
from support.torchrun import run_code, torch_or_skip

from torchmigrate import migrate_source

INLINE = """\
import torch
import torch._dynamo.config as cfg

cfg.inline_inbuilt_nn_modules = True

@torch._dynamo.config.patch(inline_inbuilt_nn_modules=True)
def double(x):
    return x * 2

result = double(torch.ones(2))
"""

DEFER = """\
import torch
import torch._inductor.config as inductor_config

inductor_config.max_autotune_defer_layout_freezing = True
with torch._inductor.config.patch(max_autotune_defer_layout_freezing=True):
    result = torch.ones(2) + 1
"""


def test_inline_inbuilt_nn_modules() -> None:
    torch = torch_or_skip()
    before = run_code(INLINE)
    assert any("inline_inbuilt_nn_modules is deprecated" in w for w in before.deprecations)
    migrated = migrate_source(INLINE, to="2.12", unsafe_fixes=True)
    assert migrated.passes_applied == ["dynamo-inline-nn-modules"]
    after = run_code(migrated.code)
    assert after.deprecations == []
    torch.testing.assert_close(after.namespace["result"], before.namespace["result"])


def test_defer_layout_freezing_option_is_gone_in_2_13() -> None:
    torch = torch_or_skip()
    with pytest.raises(AttributeError, match="max_autotune_defer_layout_freezing"):
        run_code(DEFER)
    assert migrate_source(DEFER, to="2.12", unsafe_fixes=True).code == DEFER  # still valid on 2.12: nothing to do
    migrated = migrate_source(DEFER, to="2.13", unsafe_fixes=True)
    assert migrated.passes_applied == ["defer-layout-freezing-removed"]
    after = run_code(migrated.code)
    assert after.deprecations == []
    torch.testing.assert_close(after.namespace["result"], torch.full((2,), 2.0))


PROFILER = """\
import torch
from torch.profiler import ProfilerActivity, profile

with profile(activities=[ProfilerActivity.CPU]) as prof:
    torch.ones(4) @ torch.ones(4)
with_metadata = [e.name for e in prof.events() if e.metadata_json]
count = len(prof.events())
"""

ADAGRAD = """\
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    model(torch.ones(1, 4)).sum().backward()
    opt.step()
weight = model.weight.detach().clone()
"""


def test_profiler_metadata_json() -> None:
    torch_or_skip()
    before = run_code(PROFILER)
    assert any("metadata_json" in w for w in before.deprecations)
    migrated = migrate_source(PROFILER, to="2.12", unsafe_fixes=True)
    assert migrated.passes_applied == ["profiler-metadata-json"]
    after = run_code(migrated.code)
    assert after.deprecations == []
    assert after.namespace["count"] == before.namespace["count"] > 0
    assert after.namespace["with_metadata"] == before.namespace["with_metadata"]


def test_adagrad_fused_is_opt_in_and_matches() -> None:
    torch = torch_or_skip()
    assert migrate_source(ADAGRAD, to="2.12", unsafe_fixes=True).code == ADAGRAD
    migrated = migrate_source(ADAGRAD, to="2.12", select=["adagrad-fused"], unsafe_fixes=True)
    assert "fused=True" in migrated.code
    before, after = run_code(ADAGRAD), run_code(migrated.code)
    assert after.deprecations == []
    torch.testing.assert_close(after.namespace["weight"], before.namespace["weight"])
