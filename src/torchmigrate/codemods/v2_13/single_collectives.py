"""PyTorch 2.13 renamed the tensor collectives to the `_single` scheme: `all_gather_single`, `reduce_scatter_single`.

## What it does
Renames calls, attribute chains and imports:

| old (FutureWarning in 2.13) | new (2.13) |
|---|---|
| `torch.distributed.all_gather_into_tensor` | `torch.distributed.all_gather_single` |
| `torch.distributed.reduce_scatter_tensor` | `torch.distributed.reduce_scatter_single` |
| `torch.distributed._all_gather_base` | `torch.distributed.all_gather_single` |
| `torch.distributed._reduce_scatter_base` | `torch.distributed.reduce_scatter_single` |
| `funcol.all_gather_tensor[_autograd]` | `funcol.all_gather_single[_autograd]` |
| `funcol.reduce_scatter_tensor[_autograd]` | `funcol.reduce_scatter_single[_autograd]` |
| `funcol.all_gather_into_tensor_coalesced` | `funcol.all_gather_single_coalesced` |
| `funcol.reduce_scatter_tensor_coalesced` | `funcol.reduce_scatter_single_coalesced` |

(`funcol` is `torch.distributed._functional_collectives`; the same names under `torch.distributed.distributed_c10d`
are renamed too.) The new names do not exist before 2.13, so the pass runs only for `--to 2.13` and later. For code
written before 2.0, `collectives-base-names` first moves `_all_gather_base` / `_reduce_scatter_base` to the public 2.0
names, which this pass then renames.

## Why
PyTorch 2.13 aligned the collective names with torchcomms' `TorchCommBackend` and deprecated the old names: they are
thin wrappers around the new functions that emit a `FutureWarning` (2.13 release notes, Deprecations;
pytorch/pytorch#186123, #186124, #186125, #186134, #186135, #186144). 2.15 drops the warning from
`all_gather_into_tensor` and `reduce_scatter_tensor` but keeps them only as aliases: "Alias of all_gather_single, kept
for backward compatibility. New code should call all_gather_single" (2.15.0 `torch/distributed/distributed_c10d.py:5436-5449`),
so the rename is still what 2.15 recommends, and it keeps code that also runs on 2.13 or 2.14 free of the warning.

## Fix safety
Safe. Checked on torch 2.13.0 with `inspect.signature` and the source: each old function calls the new one with the
same arguments, and the signatures are identical (`all_gather_single(output_tensor, input_tensor, group=None,
async_op=False)`, `reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False)`,
`funcol.all_gather_single(self, gather_dim, group, tag="")`, `funcol.reduce_scatter_single(self, reduceOp,
scatter_dim, group, tag="")`), so positional and keyword arguments keep their meaning. Only the deprecation warning
goes away.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

_DIST = "torch.distributed."
_C10D = "torch.distributed.distributed_c10d."
_FUNCOL = "torch.distributed._functional_collectives."

_RENAMES = {
    "all_gather_into_tensor": "all_gather_single",
    "reduce_scatter_tensor": "reduce_scatter_single",
    "_all_gather_base": "all_gather_single",
    "_reduce_scatter_base": "reduce_scatter_single",
}
_FUNCOL_RENAMES = {
    "all_gather_tensor": "all_gather_single",
    "all_gather_tensor_autograd": "all_gather_single_autograd",
    "reduce_scatter_tensor": "reduce_scatter_single",
    "reduce_scatter_tensor_autograd": "reduce_scatter_single_autograd",
    "all_gather_into_tensor_coalesced": "all_gather_single_coalesced",
    "reduce_scatter_tensor_coalesced": "reduce_scatter_single_coalesced",
}

PASS = Pass(
    id="single-collectives",
    release="2.13",
    since="2.13",
    kind=DEPRECATION,
    safety=SAFE,
    title="all_gather_into_tensor / reduce_scatter_tensor → all_gather_single / reduce_scatter_single",
    evidence=(
        "PyTorch 2.13 release notes, Deprecations (pytorch/pytorch#186123, #186124, #186125, #186134, #186135, #186144)"
        "; since 2.13: all_gather_single / reduce_scatter_single (torch 2.13.0, "
        "torch/distributed/_functional_collectives.py)"
    ),
    renames={
        **{_DIST + old: _DIST + new for old, new in _RENAMES.items()},
        **{_C10D + old: _C10D + new for old, new in _RENAMES.items()},
        **{_FUNCOL + old: _FUNCOL + new for old, new in _FUNCOL_RENAMES.items()},
    },
    examples=[
        Example(
            title="torch.distributed alias",
            before="""
                import torch.distributed as dist

                dist.all_gather_into_tensor(out, inp, group=pg)
                dist.reduce_scatter_tensor(out2, inp2, op=dist.ReduceOp.SUM)
            """,
            after="""
                import torch.distributed as dist

                dist.all_gather_single(out, inp, group=pg)
                dist.reduce_scatter_single(out2, inp2, op=dist.ReduceOp.SUM)
            """,
        ),
        Example(
            title="private base names and import torch",
            before="""
                import torch

                torch.distributed._all_gather_base(out, inp)
            """,
            after="""
                import torch

                torch.distributed.all_gather_single(out, inp)
            """,
        ),
        Example(
            title="functional collectives, module alias",
            before="""
                import torch.distributed._functional_collectives as funcol

                def f(t, pg):
                    g = funcol.all_gather_tensor(t, 0, pg)
                    return funcol.reduce_scatter_tensor(g, "sum", 0, pg)
            """,
            after="""
                import torch.distributed._functional_collectives as funcol

                def f(t, pg):
                    g = funcol.all_gather_single(t, 0, pg)
                    return funcol.reduce_scatter_single(g, "sum", 0, pg)
            """,
        ),
        Example(
            title="from-imports, function-local",
            before="""
                def f(t, pg):
                    from torch.distributed._functional_collectives import all_gather_tensor_autograd
                    from torch.distributed import all_gather_into_tensor as agit
                    agit(t, t, pg)
                    return all_gather_tensor_autograd(t, 0, pg)
            """,
            after="""
                def f(t, pg):
                    from torch.distributed._functional_collectives import all_gather_single_autograd
                    from torch.distributed import all_gather_single as agit
                    agit(t, t, pg)
                    return all_gather_single_autograd(t, 0, pg)
            """,
        ),
        Example(
            title="parenthesized import keeps its layout",
            before="""
                from torch.distributed.distributed_c10d import (
                    _all_gather_base as legacy_all_gather_base,
                    reduce_scatter_tensor as legacy_reducescatter,
                )
            """,
            after="""
                from torch.distributed.distributed_c10d import (
                    all_gather_single as legacy_all_gather_base,
                    reduce_scatter_single as legacy_reducescatter,
                )
            """,
        ),
        Example(
            title="look-alikes: a ProcessGroup method, a user function",
            before="""
                def all_gather_into_tensor(out, inp):
                    return out

                all_gather_into_tensor(a, b)
                pg._allgather_base(a, b)
                self.reduce_scatter_tensor(a, b)
            """,
        ),
    ],
)
