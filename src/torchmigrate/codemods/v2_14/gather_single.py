"""`torch.distributed.gather_into_tensor` (new in 2.14) is deprecated in PyTorch 2.14: use `gather_single`.

## What it does
Renames `torch.distributed.gather_into_tensor` (also under `torch.distributed.distributed_c10d`) to `gather_single`,
in calls, attribute chains and imports.

## Why
2.14 added the single-tensor gather under two names and deprecated one of them at once, following the 2.13 `_single`
naming of the collectives (see `single-collectives`): "`torch.distributed.gather_into_tensor` is deprecated. Please use
`torch.distributed.gather_single` instead." (`FutureWarning`, 2.14.1 `torch/distributed/distributed_c10d.py:5572-5593`).
2.15 keeps it as an alias without the warning ("kept for backward compatibility. New code should call
gather_single", 2.15.0 `:5827`), so the rename is what both releases recommend.

## Fix safety
Safe: `gather_into_tensor(tensor, gather_tensor=None, dst=None, group=None, async_op=False, group_dst=None)` returns
`gather_single(...)` of the same arguments, in the same order (2.14.1 `:5465`, `:5578-5593`).
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged

PASS = Pass(
    id="gather-single",
    release="2.14",
    since="2.14",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed.gather_into_tensor → gather_single",
    evidence=(
        "torch 2.14.1 torch/distributed/distributed_c10d.py:5465,5572-5593 (FutureWarning); 2.15.0 :5827 (alias)"
        "; since 2.14: torch.distributed.gather_single first ships in 2.14 (torch 2.14.1 wheel, "
        "torch/distributed/distributed_c10d.py:5465)"
    ),
    renames={
        "torch.distributed.gather_into_tensor": "torch.distributed.gather_single",
        "torch.distributed.distributed_c10d.gather_into_tensor": "torch.distributed.distributed_c10d.gather_single",
    },
    examples=[
        Example(
            before="""
                import torch.distributed as dist

                dist.gather_into_tensor(t, out if rank == 0 else None, dst=0)
            """,
            after="""
                import torch.distributed as dist

                dist.gather_single(t, out if rank == 0 else None, dst=0)
            """,
        ),
        Example(
            title="from-import",
            before="""
                from torch.distributed import gather_into_tensor

                gather_into_tensor(t, out)
            """,
            after="""
                from torch.distributed import gather_single

                gather_single(t, out)
            """,
        ),
        Unchanged("import torch.distributed as dist\n\ndist.gather(t, gather_list, dst=0)\n", title="other collectives"),
    ],
)
