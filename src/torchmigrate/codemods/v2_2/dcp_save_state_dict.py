"""`dcp.save_state_dict` / `dcp.load_state_dict` are deprecated since PyTorch 2.2: use `dcp.save` / `dcp.load`.

## What it does
- `dcp.save_state_dict(state_dict, storage_writer, process_group, coordinator_rank, no_dist, planner)` →
  `dcp.save(state_dict, storage_writer=..., process_group=..., no_dist=..., planner=...)`;
- `dcp.load_state_dict(state_dict, storage_reader, ...)` → `dcp.load(state_dict, storage_reader=..., ...)`.
The new functions take everything after the state dict by keyword, so positional arguments become keywords.
A `coordinator_rank` other than a literal `0` (the new functions always coordinate on rank 0) or `*args` /
`**kwargs`: finding.

## Why
2.2 added `save` / `load` and deprecated the old pair (2.2 wheel `torch/distributed/checkpoint/state_dict_saver.py`
and `state_dict_loader.py`); torch 2.13 warns `FutureWarning: save_state_dict is deprecated and will be removed in
future versions.Please use save instead.`

## Fix safety
Review: for a state dict of tensors the checkpoint is the same, but the new functions also call `state_dict()` /
`load_state_dict()` on `Stateful` values (a model or optimizer put in the dict directly), take `no_dist=True`
automatically when no process group is initialised (with a warning) instead of failing, and accept a
`checkpoint_id=` path in place of the storage object.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import bind, make_kwarg, with_args
from torchmigrate.python.transform import CallContext

DCP = "torch.distributed.checkpoint"
OLD = {
    "save_state_dict": ("save", ("state_dict", "storage_writer", "process_group", "coordinator_rank", "no_dist", "planner")),
    "load_state_dict": ("load", ("state_dict", "storage_reader", "process_group", "coordinator_rank", "no_dist", "planner")),
}
_MODULES = {"save_state_dict": "state_dict_saver", "load_state_dict": "state_dict_loader"}

PASS = Pass(
    id="dcp-save-state-dict",
    since="2.2",
    release="2.2",
    kind=DEPRECATION,
    safety=REVIEW,
    title="torch.distributed.checkpoint.save_state_dict / load_state_dict → save / load",
    evidence=(
        "2.2 wheel torch/distributed/checkpoint/state_dict_saver.py, state_dict_loader.py (save/load added, old pair deprecated); FutureWarning and round trip checked on torch 2.13"
        "; since 2.2: dcp.save / dcp.load (torch 2.2.2 wheel, torch/distributed/checkpoint/state_dict_saver.py; absent from 2.1.2)"
    ),
    review_note="save/load also handle Stateful values and infer no_dist when no process group is initialised",
    examples=[
        Example(
            before="""
                import torch.distributed.checkpoint as dcp

                dcp.save_state_dict(state_dict, dcp.FileSystemWriter(path))
                dcp.load_state_dict(state_dict, storage_reader=dcp.FileSystemReader(path), no_dist=True)
            """,
            after="""
                import torch.distributed.checkpoint as dcp

                dcp.save(state_dict, storage_writer=dcp.FileSystemWriter(path))
                dcp.load(state_dict, storage_reader=dcp.FileSystemReader(path), no_dist=True)
            """,
        ),
        Example(
            title="from-import, positional process group",
            before="""
                from torch.distributed.checkpoint import FileSystemWriter, save_state_dict

                save_state_dict(sd, FileSystemWriter(d), pg, 0, False)
            """,
            after="""
                from torch.distributed.checkpoint import save, FileSystemWriter

                save(sd, storage_writer=FileSystemWriter(d), process_group=pg, no_dist=False)
            """,
        ),
        Example(
            title="another coordinator rank: finding",
            before="""
                import torch.distributed.checkpoint as dcp

                dcp.save_state_dict(sd, writer, coordinator_rank=rank)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: a module's load_state_dict, the new API",
            before="""
                import torch.distributed.checkpoint as dcp

                model.load_state_dict(sd)
                dcp.save(sd, checkpoint_id=path)
            """,
        ),
    ],
)


@PASS.rewrites_calls(*(f"{DCP}.{old}" for old in OLD), *(f"{DCP}.{_MODULES[old]}.{old}" for old in OLD))
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = ctx.qualname.rpartition(".")[2]
    new, params = OLD[old]
    bound = bind(call, params)
    if not bound.exact:
        ctx.finding(f"{old}(...) with *args/**kwargs or unknown arguments: call {DCP}.{new}(state_dict, {params[1]}=..., ...) by hand")
        return None
    rank = bound.value("coordinator_rank")
    if rank is not None and not (isinstance(rank, cst.Integer) and rank.value == "0"):
        ctx.finding(f"{old}(coordinator_rank=...): {DCP}.{new} always coordinates on rank 0; keep the old call or move to rank 0")
        return None
    args: list[cst.Arg] = []
    for a in call.args:
        param = next(p for p, bound_arg in bound.args.items() if bound_arg is a)
        if param == "coordinator_rank":
            continue
        if a.keyword is None and param != "state_dict":
            a = make_kwarg(param, a.value).with_changes(comma=a.comma)
        args.append(a)
    ctx.message = f"dcp.{old}(...) → dcp.{new}(...)"
    return with_args(call, args).with_changes(func=ctx.ref(f"{DCP}.{new}"))
