"""ddp-forward-sync-buffers / ddp-broadcast-buffers-false (2.13) on a one-rank gloo group: the old keyword warns, the
new one does not; `True` keeps what DDP syncs at construction and in forward, `False` now also syncs at construction
(why that pass is a review edit)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.dist_group import one_rank_group
from support.torchrun import run_code

from torchmigrate import migrate_source

BUILD = textwrap.dedent(
    """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3))
    on = DDP(net, broadcast_buffers=True)
    off = DDP(net, broadcast_buffers=False)
    """
)


def _recorder(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record what each DDP construction syncs: the ``broadcast_buffers`` flag of its init-time module sync."""
    import torch.nn.parallel.distributed as ddp_module

    real = ddp_module._sync_module_states
    synced: list[bool] = []

    def record(*args: Any, **kwargs: Any) -> Any:
        synced.append(kwargs["broadcast_buffers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(ddp_module, "_sync_module_states", record)
    return synced


def test_forward_sync_buffers_keeps_true_and_shows_what_false_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    safe = migrate_source(BUILD, to="2.13", select=["ddp-forward-sync-buffers"])
    both = migrate_source(BUILD, to="2.13", select=["ddp-forward-sync-buffers", "ddp-broadcast-buffers-false"], unsafe_fixes=True)
    assert "on = DDP(net, forward_sync_buffers=True)" in safe.code and "broadcast_buffers=False" in safe.code
    assert "off = DDP(net, forward_sync_buffers=False)" in both.code and "broadcast_buffers" not in both.code
    assert sorted((e.pass_id, e.safety) for e in both.edits) == [("ddp-broadcast-buffers-false", "review"), ("ddp-forward-sync-buffers", "safe")]
    synced = _recorder(monkeypatch)
    with one_rank_group(tmp_path):
        old = run_code(BUILD)
        old_synced, synced[:] = list(synced), []
        new = run_code(both.code)
        new_synced = list(synced)
    assert [w.startswith("FutureWarning: `broadcast_buffers` is deprecated") for w in old.deprecations] == [True, True]
    assert new.deprecations == []
    for name in ("on", "off"):
        assert old.namespace[name].forward_sync_buffers == new.namespace[name].forward_sync_buffers, name
        assert old.namespace[name].broadcast_buffers == new.namespace[name].broadcast_buffers, name
    assert old_synced == [True, False]  # broadcast_buffers=False skipped the buffers at construction …
    assert new_synced == [True, True]  # … forward_sync_buffers=False does not: the review note


def test_not_emitted_below_2_13() -> None:
    assert migrate_source(BUILD, to="2.12").code == BUILD
