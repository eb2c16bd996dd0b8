"""Shared by the two DDP ``broadcast_buffers=`` passes: which calls they look at, and how a call's keyword moves."""

from __future__ import annotations

import ast

import libcst as cst

DDP = ("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel")
# DistributedDataParallel.__init__ on torch 2.13.0, in order (broadcast_buffers is the fifth parameter).
PARAMS = ("module", "device_ids", "output_device", "dim", "broadcast_buffers", "init_sync", "process_group")
OLD, NEW = "broadcast_buffers", "forward_sync_buffers"


def passes_broadcast_buffers(call: ast.Call) -> bool:
    return any(k.arg == OLD for k in call.keywords)


def literal_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def renamed(call: cst.Call) -> cst.Call:
    """``call`` with its ``broadcast_buffers=`` keyword renamed ``forward_sync_buffers=`` in place."""
    args = [a.with_changes(keyword=cst.Name(NEW)) if a.keyword is not None and a.keyword.value == OLD else a for a in call.args]
    return call.with_changes(args=args)
