"""`torch.distributed._tensor` became the public `torch.distributed.tensor` in PyTorch 2.5.

## What it does
Renames the private DTensor package to the public one, in imports (module-level and function-local) and in attribute
chains: `from torch.distributed._tensor import DTensor, Shard` → `from torch.distributed.tensor import DTensor, Shard`,
`torch.distributed._tensor.placement_types` → `torch.distributed.tensor.placement_types`,
`torch.distributed._tensor.api` → `torch.distributed.tensor`. Names that 2.5 moved elsewhere follow them:
`DTensorSpec` / `TensorMeta` (imported from `_tensor.placement_types`) → `torch.distributed.tensor._dtensor_spec`, and
the old private modules `_tensor.random` / `ops` / `dispatch` / `redistribute` / `sharding_prop` / `op_schema` →
`torch.distributed.tensor._random` / `_ops` / … (these old paths no longer import at all on torch 2.13).

## Why
DTensor was made public as `torch.distributed.tensor` in PyTorch 2.5; `torch.distributed._tensor` is kept only as a
silent backward-compatibility shim ("NOTICE: DTensor has moved to torch.distributed.tensor … We will remove this folder
once we resolve all the BC issues"), so code using it breaks without warning when the shim goes.

## Fix safety
Safe: on torch 2.13 the shim re-exports the very same objects (`torch.distributed._tensor.DTensor is
torch.distributed.tensor.DTensor`), and every target module was checked to import.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

_OLD = "torch.distributed._tensor"
_NEW = "torch.distributed.tensor"

PASS = Pass(
    id="dtensor-public",
    release="2.5",
    since="2.5",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed._tensor → torch.distributed.tensor",
    evidence=(
        "PyTorch 2.5 release notes (DTensor public as torch.distributed.tensor); shim docstring and imports checked on torch 2.13"
        "; since 2.5: torch.distributed.tensor and its private modules (torch 2.5.1 wheel, torch/distributed/tensor/)"
    ),
    renames={
        _OLD: _NEW,
        f"{_OLD}.api": _NEW,
        **{
            f"{_OLD}.placement_types.{n}": f"{_NEW}._dtensor_spec.{n}"
            for n in ("DTensorSpec", "TensorMeta", "ShardOrder", "ShardOrderEntry")
        },
        **{f"{_OLD}.{m}": f"{_NEW}._{m}" for m in ("random", "ops", "dispatch", "redistribute", "sharding_prop", "op_schema")},
    },
    examples=[
        Example(
            before="""
                from torch.distributed._tensor import DTensor, Shard, distribute_tensor

                x = distribute_tensor(t, mesh, [Shard(0)])
            """,
            after="""
                from torch.distributed.tensor import DTensor, Shard, distribute_tensor

                x = distribute_tensor(t, mesh, [Shard(0)])
            """,
        ),
        Example(
            title="function-local import of a submodule",
            before="""
                def shard(t, mesh):
                    from torch.distributed._tensor.placement_types import Replicate

                    return Replicate()
            """,
            after="""
                def shard(t, mesh):
                    from torch.distributed.tensor.placement_types import Replicate

                    return Replicate()
            """,
        ),
        Example(
            title="attribute chain and import torch as th",
            before="""
                import torch as th
                import torch.distributed._tensor

                isinstance(x, th.distributed._tensor.DTensor)
            """,
            after="""
                import torch as th
                import torch.distributed.tensor

                isinstance(x, th.distributed.tensor.DTensor)
            """,
        ),
        Example(
            title="_tensor.api → the public package",
            before="""
                from torch.distributed._tensor.api import DTensor
            """,
            after="""
                from torch.distributed.tensor import DTensor
            """,
        ),
        Example(
            title="DTensorSpec moved to _dtensor_spec",
            before="""
                from torch.distributed._tensor.placement_types import DTensorSpec, Shard
            """,
            after="""
                from torch.distributed.tensor._dtensor_spec import DTensorSpec
                from torch.distributed.tensor.placement_types import Shard
            """,
        ),
        Example(
            title="a function-local import that must be split stays local",
            before="""
                def spec_of(x):
                    from torch.distributed._tensor.placement_types import DTensorSpec, Shard

                    return DTensorSpec, Shard
            """,
            after="""
                def spec_of(x):
                    from torch.distributed.tensor._dtensor_spec import DTensorSpec
                    from torch.distributed.tensor.placement_types import Shard

                    return DTensorSpec, Shard
            """,
        ),
        Example(
            title="look-alikes: another package's _tensor, a private attribute",
            before="""
                from mylib._tensor import DTensor

                self._tensor.api = 1
            """,
        ),
    ],
)
