"""`enable_symm_mem_for_group` is deprecated since PyTorch 2.11 — but 2.11 to 2.13 still need it for async TP.

## What it does
Reports (no edit) each call of `torch.distributed._symmetric_memory.enable_symm_mem_for_group(...)`, whatever the
import form (`import torch.distributed._symmetric_memory as symm_mem`, `from … import enable_symm_mem_for_group`).

## Why
2.11 deprecated the function with a FutureWarning, "There is no need to call this function anymore"
(pytorch/pytorch#172163). On torch 2.11 to 2.13 that is true for `symm_mem.rendezvous` and the symmetric-memory
workspaces, but not for inductor: `is_symm_mem_enabled_for_group()` still only returns `True` for a group this function
registered (torch 2.13 `torch/distributed/_symmetric_memory/__init__.py`), and the async tensor-parallel fusions
(`_inductor/fx_passes/micro_pipeline_tp.py`) and the one-shot all-reduce lowering (`_inductor/comm_lowering.py`)
check it — deleting the call silently turns them off (pytorch/pytorch#193027). The 2.15 wheel fixes the predicate
("Symmetric memory no longer requires explicit enablement").

## Fix safety
Finding only: delete the call if you do not use async TP / symmetric-memory collectives under `torch.compile`, or
once your torch floor is 2.15; otherwise keep it and silence the FutureWarning
(`warnings.filterwarnings("ignore", message=".*enable_symm_mem_for_group")`).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="symm-mem-enable",
    since="1.8",
    release="2.11",
    kind=DEPRECATION,
    safety=SAFE,
    title="enable_symm_mem_for_group(...) is deprecated, but still gates async TP before 2.15 (finding)",
    evidence=(
        "PyTorch 2.11 release notes (pytorch/pytorch#172163); torch 2.13 is_symm_mem_enabled_for_group reads "
        "_group_name_to_store, which only enable_symm_mem_for_group fills (pytorch/pytorch#193027); fixed in the 2.15 wheel"
        "; finding only: emits no new form"
    ),
    examples=[
        Example(
            before="""
                import torch.distributed._symmetric_memory as symm_mem

                symm_mem.enable_symm_mem_for_group(group.group_name)
            """,
            findings=1,
        ),
        Example(
            title="from-import",
            before="""
                from torch.distributed._symmetric_memory import enable_symm_mem_for_group

                enable_symm_mem_for_group(dist.group.WORLD.group_name)
            """,
            findings=1,
        ),
        Example(
            title="look-alike: a helper of your own",
            before="""
                from mylib.dist import enable_symm_mem_for_group

                enable_symm_mem_for_group(name)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.distributed._symmetric_memory.enable_symm_mem_for_group")
def report(call: cst.Call, ctx: CallContext) -> None:
    ctx.finding(
        "enable_symm_mem_for_group is deprecated since 2.11, but on torch 2.11-2.13 inductor's async-TP fusions and "
        "symmetric-memory all-reduce lowering only run for groups it registered: keep it (and silence the "
        "FutureWarning) if you use them under torch.compile; delete it otherwise, or once your floor is 2.15"
    )
    return None
