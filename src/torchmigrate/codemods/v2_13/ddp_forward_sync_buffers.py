"""DDP `broadcast_buffers=` is deprecated in PyTorch 2.13: `broadcast_buffers=True` → `forward_sync_buffers=True`.

## What it does
In `DistributedDataParallel(...)` calls (any import form: `torch.nn.parallel.DistributedDataParallel`, `from
torch.nn.parallel import DistributedDataParallel as DDP`):
- `broadcast_buffers=True` → `forward_sync_buffers=True`;
- `broadcast_buffers=<anything>` next to `forward_sync_buffers=` → dropped (its value is ignored then).

`broadcast_buffers=False` or a value that may be false is the job of `ddp-broadcast-buffers-false` (a review edit).
A `broadcast_buffers` given by position (the fifth argument, never seen in the corpus) is not looked for.

## Why
PyTorch 2.13 deprecated the argument (`.. deprecated:: 2.13 Use forward_sync_buffers instead`) with a FutureWarning
"`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike `broadcast_buffers=False`,
`forward_sync_buffers=False` still syncs buffers at init." (torch 2.13.0 `torch/nn/parallel/distributed.py`,
`DistributedDataParallel.__init__`). `forward_sync_buffers` does not exist before 2.13, so the edit is made only for
code that needs 2.13 (`since`).

## Fix safety
Safe: with `broadcast_buffers=True` (or nothing) DDP sets `self.forward_sync_buffers = True` and syncs buffers at
init; `forward_sync_buffers=True` sets the same flag and always syncs at init, so both the init broadcast and the
per-forward broadcast are unchanged (checked on a one-rank gloo group, recording what init syncs). When both
arguments are given, 2.13 ignores `broadcast_buffers` (and warns about it), so dropping it changes nothing.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import bind, fix_commas, kwarg, without_args
from torchmigrate.python.transform import CallContext

from ._ddp_buffers import DDP, NEW, OLD, PARAMS, literal_true, passes_broadcast_buffers, renamed

PASS = Pass(
    id="ddp-forward-sync-buffers",
    release="2.13",
    kind=DEPRECATION,
    safety=SAFE,
    title="DistributedDataParallel(broadcast_buffers=True) → forward_sync_buffers=True",
    evidence=(
        "torch 2.13.0 torch/nn/parallel/distributed.py: broadcast_buffers `deprecated:: 2.13`, FutureWarning, "
        "forward_sync_buffers / init_sync_buffers in __init__; "
        "since 2.13: forward_sync_buffers first ships in 2.13 (absent from the torch 2.12.0 wheel, torch/nn/parallel/distributed.py)"
    ),
    since="2.13",
    triggers=(OLD,),
    call_filter=passes_broadcast_buffers,
    examples=[
        Example(
            title="the common call",
            before="""
                import torch

                model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], broadcast_buffers=True)
            """,
            after="""
                import torch

                model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], forward_sync_buffers=True)
            """,
        ),
        Example(
            title="an alias; both arguments given",
            before="""
                from torch.nn.parallel import DistributedDataParallel as DDP

                ddp = DDP(
                    net,
                    broadcast_buffers=sync,
                    forward_sync_buffers=True,
                )
            """,
            after="""
                from torch.nn.parallel import DistributedDataParallel as DDP

                ddp = DDP(
                    net,
                    forward_sync_buffers=True,
                )
            """,
        ),
        Unchanged(
            """
            from torch.nn.parallel import DistributedDataParallel as DDP

            ddp = DDP(net, broadcast_buffers=False)
            ddp2 = DDP(net, **ddp_kwargs)
            wrapped = MMDistributedDataParallel(net, broadcast_buffers=True)
            flag = ddp.broadcast_buffers
            """,
            title="False is a review edit of its own; kwargs, another wrapper, the attribute",
        ),
    ],
)


@PASS.rewrites_calls(*DDP)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = kwarg(call, OLD)
    if old is None or bind(call, PARAMS).get(OLD) is not old:  # absent, or also given by position (a TypeError)
        return None
    if kwarg(call, NEW) is not None:
        ctx.message = "DistributedDataParallel: dropped broadcast_buffers=, ignored when forward_sync_buffers= is given"
        return call.with_changes(args=fix_commas(without_args(call, [OLD])))
    if not literal_true(old.value):
        return None
    ctx.message = "DistributedDataParallel: broadcast_buffers=True → forward_sync_buffers=True (deprecated in 2.13)"
    return renamed(call)
