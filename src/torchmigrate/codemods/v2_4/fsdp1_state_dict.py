"""FSDP1's state-dict configuration and legacy optimizer-state APIs are deprecated: use `torch.distributed.checkpoint.state_dict`.

## What it does
Reports (a finding, no edit) each call of
- `FullyShardedDataParallel.state_dict_type(...)` (the context manager) and `FullyShardedDataParallel.set_state_dict_type(...)`,
  → `get_state_dict(model, optimizers, options=StateDictOptions(full_state_dict=..., cpu_offload=...))` and
  `set_state_dict(model, optimizers, model_state_dict=..., optim_state_dict=..., options=...)` from
  `torch.distributed.checkpoint.state_dict`;
- `full_optim_state_dict` / `sharded_optim_state_dict` → `get_state_dict` (or FSDP1's own `optim_state_dict`);
- `shard_full_optim_state_dict` / `flatten_sharded_optim_state_dict` / `scatter_full_optim_state_dict` →
  `set_state_dict` (or FSDP1's `optim_state_dict_to_load`),

in every import form (`from torch.distributed.fsdp import FullyShardedDataParallel as FSDP`, the
`fully_sharded_data_parallel` module).

## Why
PyTorch 2.4 made `state_dict_type()` / `set_state_dict_type()` warn "FSDP.state_dict_type() and
FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can
support different parallelisms, FSDP1, FSDP2, DDP." (pytorch/pytorch#127794, FutureWarning); the five legacy
optimizer-state functions warn since 2.0 that they "may be removed after PyTorch 2.2" (torch 2.13.0
`torch/distributed/fsdp/fully_sharded_data_parallel.py`, `_warn_legacy_optim_state_dict`). The pass is filed under
the later of the two.

## Fix safety
No automatic fix: the replacement is a different shape of code — the state-dict type becomes `StateDictOptions`
passed to each call instead of a mode set on the module, and model and optimizer state come from one call — so each
site needs rewriting by hand (see the distributed checkpoint recipe).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import CallContext

CLASSES = (
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
)
DSD = "torch.distributed.checkpoint.state_dict"
ADVICE = {
    "state_dict_type": f"{DSD}.get_state_dict / set_state_dict with options=StateDictOptions(full_state_dict=…, cpu_offload=…)",
    "set_state_dict_type": f"{DSD}.get_state_dict / set_state_dict with options=StateDictOptions(full_state_dict=…, cpu_offload=…)",
    "full_optim_state_dict": f"{DSD}.get_state_dict(model, optim) (or FSDP.optim_state_dict(model, optim))",
    "sharded_optim_state_dict": f"{DSD}.get_state_dict(model, optim) (or FSDP.optim_state_dict(model, optim))",
    "shard_full_optim_state_dict": f"{DSD}.set_state_dict(model, optim, …) (or FSDP.optim_state_dict_to_load)",
    "flatten_sharded_optim_state_dict": f"{DSD}.set_state_dict(model, optim, …) (or FSDP.optim_state_dict_to_load)",
    "scatter_full_optim_state_dict": f"{DSD}.set_state_dict(model, optim, …) (or FSDP.optim_state_dict_to_load)",
}

PASS = Pass(
    id="fsdp1-state-dict",
    release="2.4",
    kind=DEPRECATION,
    safety=SAFE,
    title="FSDP.state_dict_type / full_optim_state_dict & co. → torch.distributed.checkpoint.state_dict (finding)",
    evidence=(
        "pytorch/pytorch#127794 (2.4: state_dict_type deprecated in favour of get_state_dict/set_state_dict); torch "
        "2.13.0 torch/distributed/fsdp/fully_sharded_data_parallel.py (FutureWarnings, _warn_legacy_optim_state_dict); "
        "finding only: emits no new form"
    ),
    since="1.8",
    examples=[
        Example(
            title="the state-dict context manager and a full optimizer state dict",
            before="""
                from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType

                with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
                    state = model.state_dict()
                osd = FSDP.full_optim_state_dict(model, optim)
            """,
            findings=2,
        ),
        Example(
            title="the module path; loading an optimizer state",
            before="""
                import torch.distributed.fsdp.fully_sharded_data_parallel as fsdp

                fsdp.FullyShardedDataParallel.set_state_dict_type(model, sd_type)
                sharded = fsdp.FullyShardedDataParallel.scatter_full_optim_state_dict(full_osd, model)
            """,
            findings=2,
        ),
        Unchanged(
            """
            from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

            settings = FSDP.get_state_dict_type(model)
            osd = FSDP.optim_state_dict(model, optim)
            sd = fairscale_model.gather_full_optim_state_dict(optim)
            """,
            title="APIs that are not deprecated; another library's method",
        ),
    ],
)


@PASS.rewrites_calls(*(f"{cls}.{name}" for cls in CLASSES for name in ADVICE))
def report(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    name = ctx.qualname.rpartition(".")[2]
    ctx.finding(f"FullyShardedDataParallel.{name} is deprecated: use {ADVICE[name]}")
    return None
