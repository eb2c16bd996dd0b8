"""FSDP2 moved from `torch.distributed._composable.fsdp` to the public `torch.distributed.fsdp` in PyTorch 2.6.

## What it does
`from torch.distributed._composable.fsdp import fully_shard, MixedPrecisionPolicy` →
`from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy`, in module-level and function-local imports and
in attribute chains. The old submodule `torch.distributed._composable.fsdp.fully_shard` (a module in the old layout,
a function in the new one) maps to `torch.distributed.fsdp`:
`from torch.distributed._composable.fsdp.fully_shard import FSDPModule` → `from torch.distributed.fsdp import FSDPModule`.
`import torch.distributed._composable.fsdp.fully_shard as fs` binds the *function* `fully_shard` on current Python
(the package attribute shadows the submodule), so it cannot be renamed blindly: finding.

## Why
PyTorch 2.6 made FSDP2 public under `torch.distributed.fsdp` (`fully_shard`, `FSDPModule`, `MixedPrecisionPolicy`,
`CPUOffloadPolicy`, …); the old package is a silent re-export ("TODO: For backward compatibility, we are importing
the public objects originally from this file").

## Fix safety
Safe: on torch 2.13 the old names are the same objects as the new ones (checked with `is`).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import dotted_name
from torchmigrate.python.renames import RenameTransformer

_OLD = "torch.distributed._composable.fsdp"
_SUBMODULE = f"{_OLD}.fully_shard"
_NEW = "torch.distributed.fsdp"
_NAMES = (
    "fully_shard",
    "FSDPModule",
    "register_fsdp_forward_method",
    "UnshardHandle",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "CPUOffloadPolicy",
)

PASS = Pass(
    id="fsdp2-public",
    release="2.6",
    since="2.6",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed._composable.fsdp → torch.distributed.fsdp",
    evidence=(
        "PyTorch 2.6 release notes (FSDP2 public as torch.distributed.fsdp.fully_shard); identity checked on torch 2.13"
        "; since 2.6: torch.distributed.fsdp.fully_shard (torch 2.6.0 wheel, torch/distributed/fsdp/__init__.py:2)"
    ),
    triggers=("_composable",),
    renames={_OLD: _NEW, **{f"{_SUBMODULE}.{n}": f"{_NEW}.{n}" for n in _NAMES}},
    qualnames=frozenset(),  # the transformer acts on the renamed names only
    examples=[
        Example(
            before="""
                from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard

                fully_shard(model, mp_policy=MixedPrecisionPolicy())
            """,
            after="""
                from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

                fully_shard(model, mp_policy=MixedPrecisionPolicy())
            """,
        ),
        Example(
            title="function-local import from the fully_shard submodule",
            before="""
                def wrap(model):
                    from torch.distributed._composable.fsdp.fully_shard import FSDPModule, fully_shard

                    return isinstance(fully_shard(model), FSDPModule)
            """,
            after="""
                def wrap(model):
                    from torch.distributed.fsdp import FSDPModule, fully_shard

                    return isinstance(fully_shard(model), FSDPModule)
            """,
        ),
        Example(
            title="attribute chain",
            before="""
                import torch.distributed._composable.fsdp

                torch.distributed._composable.fsdp.fully_shard(m)
            """,
            after="""
                import torch.distributed.fsdp

                torch.distributed.fsdp.fully_shard(m)
            """,
        ),
        Example(
            title="import of the submodule",
            before="""
                import torch.distributed._composable.fsdp.fully_shard
            """,
            after="""
                import torch.distributed.fsdp
            """,
        ),
        Example(
            title="aliased import of the submodule binds the function: finding",
            before="""
                import torch.distributed._composable.fsdp.fully_shard as fs
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: torch.distributed._composable.replicate, FSDP1",
            before="""
                from torch.distributed._composable.replicate import replicate
                from torch.distributed.fsdp import FullyShardedDataParallel
            """,
        ),
    ],
)


class FsdpRenames(RenameTransformer):
    """The declarative renames, plus the one module path whose new home is its parent package."""

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        if not self.allowed(original_node) or all(dotted_name(a.name) != _SUBMODULE for a in updated_node.names):
            return super().leave_Import(original_node, updated_node)
        if any(dotted_name(a.name) == _SUBMODULE and a.asname is not None for a in updated_node.names):
            self.finding(
                original_node,
                f"`import {_SUBMODULE} as ...` binds the function fully_shard, not the module: "
                f"write `from {_NEW} import fully_shard` (and the other names you use) instead",
            )
            return updated_node
        names = [
            a.with_changes(name=cst.parse_expression(_NEW)) if dotted_name(a.name) == _SUBMODULE else a
            for a in updated_node.names
        ]
        self.edited(original_node, f"import {_SUBMODULE} → import {_NEW}")
        return super().leave_Import(original_node, updated_node.with_changes(names=names))


PASS.uses(FsdpRenames)
