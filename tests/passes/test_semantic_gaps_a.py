"""The most common legacy forms (catalog gaps, rows 1-8) on real torch 2.13: the old code warns (or is shown to be a
deprecated path), the migrated code runs without a deprecation warning and gives the same results.

UserWarnings raised in torch's C++ code (``TORCH_WARN_ONCE``: meshgrid) fire once per process unless
``torch.set_warn_always(True)``, so the tests switch it on; they look for the warning text in every warning the
snippet triggered, whatever file it names.
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.torchrun import run_code, torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def migrate(code: str, pass_id: str, to: str = "2.13", **options: Any) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=[pass_id], **options)
    assert result.error is None
    assert result.edits, f"{pass_id} changed nothing"
    assert not result.findings, result.findings
    again = migrate_source(result.code, to=to, select=[pass_id], **options)
    assert again.code == result.code and not again.edits
    return result.code


def warnings_of(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every warning it triggered (any category, any file)."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(textwrap.dedent(code), "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [f"{w.category.__name__}: {w.message}" for w in caught]


# --- meshgrid-indexing -----------------------------------------------------------------------------------------

MESHGRID = """
import torch
a, b, c = torch.arange(3.0), torch.arange(4.0), torch.arange(2.0)
ys, xs = torch.meshgrid(a, b)
grid = torch.stack(torch.meshgrid([a, b, c]), dim=-1)
coords = [a, c]
g1, g2 = torch.meshgrid(*coords)
"""


def test_meshgrid_gets_its_default_indexing() -> None:
    new = migrate(MESHGRID, "meshgrid-indexing")
    assert new.count('indexing="ij"') == 3
    old_ns, old_warnings = warnings_of(MESHGRID)
    new_ns, new_warnings = warnings_of(new)
    assert any("indexing argument" in w for w in old_warnings)
    assert new_warnings == []
    for name in ("ys", "xs", "grid", "g1", "g2"):
        assert torch.equal(old_ns[name], new_ns[name]), name


# --- cuda-memory-names -----------------------------------------------------------------------------------------

CUDA_MEMORY = """
import torch
reserved = torch.cuda.memory_cached()
peak = torch.cuda.max_memory_cached(0)
torch.cuda.reset_max_memory_allocated()
torch.cuda.reset_max_memory_cached(0)
"""


def test_cuda_memory_names_call_what_the_old_ones_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CPU build ``reset_peak_memory_stats`` itself cannot run (no CUDA allocator), so both the old and the new
    spelling are pointed at a recorder: the old functions are shown to call exactly the new one."""
    import torch.cuda.memory as memory

    calls: list[Any] = []

    def record(device: Any = None) -> None:
        calls.append(device)

    monkeypatch.setattr(memory, "reset_peak_memory_stats", record)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", record)
    new = migrate(CUDA_MEMORY, "cuda-memory-names")
    assert "cached" not in new and "reset_max" not in new
    old = run_code(CUDA_MEMORY)
    old_calls, calls[:] = list(calls), []
    ran = run_code(new)
    assert len(old.deprecations) == 4 and all(w.startswith("FutureWarning") for w in old.deprecations)
    assert ran.deprecations == [] and ran.all_deprecations == []
    assert calls == old_calls == [None, 0]
    assert (ran.namespace["reserved"], ran.namespace["peak"]) == (old.namespace["reserved"], old.namespace["peak"])
