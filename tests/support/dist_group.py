"""A 1-rank gloo process group for semantic tests of the distributed passes (CPU only, no network port)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.torchrun import torch_or_skip


@contextmanager
def one_rank_group(tmp_path: Path) -> Iterator[Any]:
    """``init_process_group("gloo", file://…, rank=0, world_size=1)``; yields the WORLD group, destroys it after."""
    torch_or_skip()
    import torch.distributed as dist

    if not dist.is_available():  # pragma: no cover - distributed is built into the CPU wheels
        import pytest

        pytest.skip("torch.distributed is not available")
    # torch.distributed.nn.functional binds `group=group.WORLD` as a default argument when first imported: import it
    # while no group exists (default None = "the default group"), or it would keep a group a later test destroyed.
    import torch.distributed.nn.functional  # noqa: F401

    store = tmp_path / "filestore"
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    try:
        yield dist.group.WORLD
    finally:
        dist.destroy_process_group()
