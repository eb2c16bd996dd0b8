"""Catalog-gaps passes on real torch 2.13 (profiler, backends flags, compile helpers, pytree, samplers, …): the old code
warns or fails, the migrated code runs without a deprecation warning and agrees."""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def migrate(code: str, *pass_ids: str, to: str = "2.13", findings: int = 0) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=list(pass_ids), unsafe_fixes=True)
    assert result.error is None
    assert result.edits, f"{pass_ids} changed nothing"
    assert len(result.findings) == findings, result.findings
    return result.code


def run(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every warning (any category) whose text says "deprecated"."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(textwrap.dedent(code), "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [str(w.message) for w in caught if "deprecat" in str(w.message).lower()]


PROFILER = """
import torch

per_event = [(e.key, e.cuda_time_total, e.self_cuda_time_total, e.self_cuda_memory_usage) for e in prof.function_events]
"""
PROFILER_AVERAGES = """
import torch

top = sorted(prof.key_averages(), key=lambda e: e.self_cuda_time_total)
averaged = [(e.key, e.cuda_time_total, e.cuda_time) for e in top]
"""


def test_profiler_event_attributes() -> None:
    # the same FunctionEvent / FunctionEventAvg objects torch.profiler returns; the legacy (non-kineto) profiler
    # starts in milliseconds where kineto takes seconds
    with torch.autograd.profiler.profile(use_kineto=False) as prof:
        torch.randn(16, 16) @ torch.randn(16, 16)
    after = migrate(PROFILER, "profiler-device-attrs")
    _, old_warnings = run(PROFILER, prof=prof)
    assert old_warnings  # FunctionEvent's cuda_* properties warn
    new, new_warnings = run(after, prof=prof)
    assert new_warnings == []
    assert new["per_event"] and all(isinstance(v, int) for _, *values in new["per_event"] for v in values)
    # on the averaged events the old names are gone altogether
    with pytest.raises(AttributeError):
        run(PROFILER_AVERAGES, prof=prof)
    new, new_warnings = run(migrate(PROFILER_AVERAGES, "profiler-device-attrs"), prof=prof)
    assert new_warnings == [] and new["averaged"]


HAS_FLAGS = """
import torch as th
from torch import has_mkldnn

flags = (th.has_cuda, th.has_cudnn, th.has_mps, has_mkldnn)
"""


def test_has_flags_become_backends_calls() -> None:
    old, old_warnings = run(HAS_FLAGS)
    assert len(old_warnings) >= 4  # one per flag (the from-import may be looked up twice)
    new, new_warnings = run(migrate(HAS_FLAGS, "has-backends"))
    assert new_warnings == []
    assert new["flags"] == old["flags"]
