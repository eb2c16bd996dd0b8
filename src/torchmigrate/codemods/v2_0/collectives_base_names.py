"""`torch.distributed._all_gather_base` / `_reduce_scatter_base` are private and deprecated: use the public names.

## What it does
Renames `_all_gather_base` → `all_gather_into_tensor` and `_reduce_scatter_base` → `reduce_scatter_tensor` (under
`torch.distributed` and `torch.distributed.distributed_c10d`), in calls, attribute chains and imports. With
`--to 2.13` or later, `single-collectives` then moves them on to `all_gather_single` / `reduce_scatter_single`.

## Why
Since 2.0 the private functions warn "torch.distributed._all_gather_base is a private function and will be
deprecated. Please use torch.distributed.all_gather_into_tensor instead." (likewise `_reduce_scatter_base`; 2.0.1
`torch/distributed/distributed_c10d.py:2562-2566,3030-3034`), and on 2.13 they warn still.

## Fix safety
Safe: each private function only warns and returns the public one called with the same arguments in the same order
(2.0.1 `:2541-2567`, `:3010-3035`; signatures `(output_tensor, input_tensor, group=None, async_op=False)` and
`(output, input, op=ReduceOp.SUM, group=None, async_op=False)` on both sides).
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged

_MODULES = ("torch.distributed", "torch.distributed.distributed_c10d")
_RENAMES = {"_all_gather_base": "all_gather_into_tensor", "_reduce_scatter_base": "reduce_scatter_tensor"}

PASS = Pass(
    id="collectives-base-names",
    release="2.0",
    since="1.13",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed._all_gather_base / _reduce_scatter_base → all_gather_into_tensor / reduce_scatter_tensor",
    evidence=(
        "torch 2.0.1 torch/distributed/distributed_c10d.py:2459,2541-2567,2934,3010-3035 (warning, thin wrappers)"
        "; since 1.13: all_gather_into_tensor / reduce_scatter_tensor, and _all_gather_base / "
        "_reduce_scatter_base only warn and call them (torch 1.13.1 wheel, "
        "torch/distributed/distributed_c10d.py:2285,2392,2753,2854)"
    ),
    renames={f"{m}.{old}": f"{m}.{new}" for m in _MODULES for old, new in _RENAMES.items()},
    examples=[
        Example(
            before="""
                import torch.distributed as dist

                dist._all_gather_base(out, inp, group=pg)
                dist._reduce_scatter_base(out2, inp2, dist.ReduceOp.SUM, pg)
            """,
            after="""
                import torch.distributed as dist

                dist.all_gather_into_tensor(out, inp, group=pg)
                dist.reduce_scatter_tensor(out2, inp2, dist.ReduceOp.SUM, pg)
            """,
        ),
        Example(
            title="from-import of the c10d module",
            before="""
                from torch.distributed.distributed_c10d import _all_gather_base

                _all_gather_base(out, inp)
            """,
            after="""
                from torch.distributed.distributed_c10d import all_gather_into_tensor

                all_gather_into_tensor(out, inp)
            """,
        ),
        Example(
            title="import torch",
            before="""
                import torch

                torch.distributed._reduce_scatter_base(out, inp)
            """,
            after="""
                import torch

                torch.distributed.reduce_scatter_tensor(out, inp)
            """,
        ),
        Unchanged("pg._allgather_base(out, inp)\nself._all_gather_base(out, inp)\n", title="ProcessGroup methods, look-alikes"),
    ],
)
