"""DDP `broadcast_buffers=False` is deprecated in PyTorch 2.13, and `forward_sync_buffers=False` syncs buffers at init.

## What it does
In `DistributedDataParallel(...)` calls, `broadcast_buffers=False` → `forward_sync_buffers=False`, and
`broadcast_buffers=<expression>` → `forward_sync_buffers=<expression>` (`broadcast_buffers=True` is the safe pass
`ddp-forward-sync-buffers`).

## Why
PyTorch 2.13 deprecated `broadcast_buffers` (FutureWarning; torch 2.13.0 `torch/nn/parallel/distributed.py`). The
replacement is not the same for `False`: `broadcast_buffers=False` turned off both the buffer broadcast at the start of
every `forward` and the buffer sync at construction (`init_sync_buffers = False`), while `forward_sync_buffers=False`
turns off only the first: DDP's `__init__` always broadcasts rank 0's buffers when `forward_sync_buffers` is given.

## Fix safety
Review: the per-forward behaviour is the same; at construction, every rank's buffers are now overwritten with rank
0's. That is harmless when all ranks build the model the same way (the usual case: BatchNorm statistics start equal),
and wrong for buffers that are meant to differ per rank (a rank-local RNG state, a per-rank cache). PyTorch's own
warning says to keep `broadcast_buffers=False` in that case until an `init_sync_buffers` argument exists — then
suppress this pass on that call (`# migrate: ignore[ddp-broadcast-buffers-false]`) and accept the warning.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass, Unchanged
from torchmigrate.python.helpers import bind, kwarg
from torchmigrate.python.transform import CallContext

from ._ddp_buffers import DDP, NEW, OLD, PARAMS, literal_true, passes_broadcast_buffers, renamed

PASS = Pass(
    id="ddp-broadcast-buffers-false",
    release="2.13",
    kind=DEPRECATION,
    safety=REVIEW,
    title="DistributedDataParallel(broadcast_buffers=False) → forward_sync_buffers=False (now syncs buffers at init)",
    review_note="buffers are now broadcast from rank 0 when DDP is built: check that no buffer is meant to differ per rank",
    evidence=(
        "torch 2.13.0 torch/nn/parallel/distributed.py: broadcast_buffers `deprecated:: 2.13`; init_sync_buffers is "
        "True whenever forward_sync_buffers is given; "
        "since 2.13: forward_sync_buffers first ships in 2.13 (absent from the torch 2.12.0 wheel, torch/nn/parallel/distributed.py)"
    ),
    since="2.13",
    triggers=(OLD,),
    call_filter=passes_broadcast_buffers,
    examples=[
        Example(
            title="False, and a flag from the configuration",
            before="""
                import torch
                from torch.nn.parallel import DistributedDataParallel

                ddp = DistributedDataParallel(model, device_ids=[rank], broadcast_buffers=False)
                ddp2 = torch.nn.parallel.DistributedDataParallel(model, broadcast_buffers=cfg.sync_bn)
            """,
            after="""
                import torch
                from torch.nn.parallel import DistributedDataParallel

                ddp = DistributedDataParallel(model, device_ids=[rank], forward_sync_buffers=False)
                ddp2 = torch.nn.parallel.DistributedDataParallel(model, forward_sync_buffers=cfg.sync_bn)
            """,
        ),
        Unchanged(
            """
            from torch.nn.parallel import DistributedDataParallel as DDP

            ddp = DDP(net, broadcast_buffers=True)
            both = DDP(net, broadcast_buffers=False, forward_sync_buffers=False)
            other = FullyShardedDataParallel(net, broadcast_buffers=False)
            """,
            title="True and both-given are the safe pass's; other wrappers",
        ),
    ],
)


@PASS.rewrites_calls(*DDP)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = kwarg(call, OLD)
    if old is None or bind(call, PARAMS).get(OLD) is not old or kwarg(call, NEW) is not None or literal_true(old.value):
        return None
    ctx.message = (
        "DistributedDataParallel: broadcast_buffers=… → forward_sync_buffers=… (deprecated in 2.13); review: buffers "
        "are now synced from rank 0 at construction"
    )
    return renamed(call)
