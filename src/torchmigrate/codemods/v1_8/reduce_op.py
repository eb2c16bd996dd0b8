"""`torch.distributed.reduce_op` is deprecated: use `torch.distributed.ReduceOp`.

## What it does
`dist.reduce_op.SUM` → `dist.ReduceOp.SUM` (any member, any alias of `torch.distributed`), and
`from torch.distributed import reduce_op` → `ReduceOp`.

## Why
Deprecated long before torchmigrate's 1.8 floor; on torch 2.13 `reduce_op` is a `_reduce_op` object whose attribute
access warns `FutureWarning: torch.distributed.reduce_op is deprecated, please use torch.distributed.ReduceOp instead`
and returns the `ReduceOp` member (torch/distributed/distributed_c10d.py).

## Fix safety
Safe: `dist.reduce_op.SUM is dist.ReduceOp.SUM` (checked on torch 2.13).
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

PASS = Pass(
    id="reduce-op",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed.reduce_op → torch.distributed.ReduceOp",
    evidence=(
        "torch 2.13 torch/distributed/distributed_c10d.py _reduce_op (FutureWarning; returns the ReduceOp member)"
        "; since 1.8: torch.distributed.ReduceOp in every release the tool knows (torch 1.9.0 wheel, torch/distributed/distributed_c10d.py)"
    ),
    renames={"torch.distributed.reduce_op": "torch.distributed.ReduceOp"},
    examples=[
        Example(
            before="""
                import torch.distributed as dist

                dist.all_reduce(t, op=dist.reduce_op.SUM)
            """,
            after="""
                import torch.distributed as dist

                dist.all_reduce(t, op=dist.ReduceOp.SUM)
            """,
        ),
        Example(
            title="from-import",
            before="""
                from torch.distributed import all_reduce, reduce_op

                all_reduce(t, reduce_op.MAX)
            """,
            after="""
                from torch.distributed import all_reduce, ReduceOp

                all_reduce(t, ReduceOp.MAX)
            """,
        ),
        Example(
            title="look-alike: another library's reduce_op",
            before="""
                import horovod.torch as hvd

                hvd.allreduce(t, op=hvd.reduce_op.Sum)
            """,
        ),
    ],
)
