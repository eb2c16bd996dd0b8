"""torchcomms-backed process groups (2.13+): one device backend per group, no overlap promise for concurrent P2P.

## What it does
Reports two patterns, only when migrating to 2.13 (`--to 2.13`); nothing is rewritten:

- a multi-device backend string — `init_process_group("cpu:gloo,cuda:nccl")`, `new_group(…, backend="cpu:gloo,
  cuda:nccl")` — a literal that maps several devices to backends;
- point-to-point operations issued concurrently on one group: two or more `dist.isend` / `dist.irecv` calls in one
  function on the same group (the same group expression, or none), or one such call in a loop, whose works are not
  each waited on right away (`dist.isend(…).wait()` is not concurrent). Reported once per function.

## Why
PyTorch is moving `torch.distributed` onto torchcomms: 2.13 ships it as "a new communications backend for PyTorch
Distributed" (2.13 release notes, Highlights), and the 2.12 release announced it as the process-group layer from
2.13 on, with process groups created eagerly in `init_process_group` with a single device backend, and P2P
operations issued concurrently on one group no longer guaranteed to progress together (a rank that posts two
`isend`s before its `irecv` can wait forever if its peer does the same). On torch 2.13.0 torchcomms is still
opt-in — `torch.distributed.config.use_torchcomms` defaults to `False` and `TORCH_DISTRIBUTED_USE_TORCHCOMMS=1`
turns it on — so use that variable to test your job on the new path before it becomes the default.

## Fix safety
No automatic fix. For a multi-device string, give each device its own group (one `init_process_group` backend for
the accelerator, `dist.new_group(backend="gloo")` for CPU tensors). For concurrent P2P, post the operations
together with `dist.batch_isend_irecv([dist.P2POp(dist.isend, …), dist.P2POp(dist.irecv, …)])`, or wait on each
work before the next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import arg
from torchmigrate.python.transform import PassTransformer, Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    id="torchcomms-default",
    release="2.13",
    since="1.8",
    kind=BEHAVIOUR,
    safety=REVIEW,
    title="torchcomms: multi-device backend strings and concurrent isend/irecv on one group → findings",
    evidence=(
        "PyTorch 2.12 release announcement of torchcomms for 2.13; 2.13 release notes, Highlights (torchcomms); "
        "torch.distributed.config.use_torchcomms / TORCH_DISTRIBUTED_USE_TORCHCOMMS in torch 2.13.0"
        "; finding only: emits no new form"
    ),
    triggers=("init_process_group", "new_group", "isend", "irecv"),
    examples=[
        Example(
            title="multi-device backend string",
            before="""
                import torch.distributed as dist

                dist.init_process_group("cpu:gloo,cuda:nccl")
                side = dist.new_group([0, 1], backend="cpu:gloo,cuda:nccl")
            """,
            findings=2,
        ),
        Example(
            title="concurrent isend/irecv on the default group",
            before="""
                import torch.distributed as dist

                def exchange(a, b, peer):
                    reqs = [dist.isend(a, peer), dist.irecv(b, peer)]
                    for r in reqs:
                        r.wait()
            """,
            findings=1,
        ),
        Example(
            title="isend in a loop or a comprehension, works collected and waited later",
            before="""
                import torch.distributed as dist

                def fan_out(x, peers, pg):
                    works = []
                    for p in peers:
                        works.append(dist.isend(x, p, pg))
                    return works

                def fan_in(bufs, peers):
                    return [dist.irecv(b, p) for b, p in zip(bufs, peers)]
            """,
            findings=2,
        ),
        Example(
            title="fine: single backends, batch_isend_irecv, waited at once, different groups",
            before="""
                from torch import distributed as dist

                dist.init_process_group(backend="nccl")
                def a(x, y, peer):
                    ops = [dist.P2POp(dist.isend, x, peer), dist.P2POp(dist.irecv, y, peer)]
                    for w in dist.batch_isend_irecv(ops):
                        w.wait()

                def b(x, y, peer):
                    dist.isend(x, peer).wait()
                    dist.irecv(y, peer).wait()

                def c(x, y, peer, g1, g2):
                    w1 = dist.isend(x, peer, group=g1)
                    w2 = dist.irecv(y, peer, group=g2)
                    return w1, w2
            """,
        ),
    ],
)

_INIT = {"torch.distributed.init_process_group": 0, "torch.distributed.distributed_c10d.init_process_group": 0}
_NEW_GROUP = {"torch.distributed.new_group": 2, "torch.distributed.distributed_c10d.new_group": 2}
_P2P = {
    "torch.distributed.isend",
    "torch.distributed.irecv",
    "torch.distributed.distributed_c10d.isend",
    "torch.distributed.distributed_c10d.irecv",
}
BACKEND_MESSAGE = (
    "multi-device backend string {value}: with torchcomms (announced as the 2.13+ process-group layer; try it with "
    "TORCH_DISTRIBUTED_USE_TORCHCOMMS=1) a process group has a single device backend — create one group per device "
    "(e.g. init_process_group for the accelerator, dist.new_group(backend='gloo') for CPU tensors)"
)
P2P_MESSAGE = (
    "isend/irecv issued concurrently on one group: with torchcomms (2.13+, TORCH_DISTRIBUTED_USE_TORCHCOMMS=1 to try "
    "it) concurrent P2P on one group is not guaranteed to overlap and can hang — post them together with "
    "dist.batch_isend_irecv([dist.P2POp(...), ...]) or wait on each work before the next"
)
_CODE = cst.Module(body=[])


@PASS.uses
class TorchcommsTransformer(PassTransformer):
    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        # (id(scope), group expression) → number of concurrent P2P calls seen; scopes already reported.
        self.p2p: dict[tuple[int, str], int] = {}
        self.reported: set[int] = set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        qualname = self.qualname(original_node.func)
        if qualname in _INIT or qualname in _NEW_GROUP:
            index = _INIT.get(qualname, _NEW_GROUP.get(qualname or "", 0))
            backend = arg(original_node, index, "backend")
            if backend is not None and isinstance(backend.value, cst.SimpleString):
                value = backend.value.evaluated_value
                if isinstance(value, str) and ":" in value and "," in value:
                    self.finding(backend.value, BACKEND_MESSAGE.format(value=backend.value.value))
        elif qualname in _P2P:
            self._p2p(original_node)
        return updated_node

    def _where(self, node: cst.CSTNode) -> tuple[cst.CSTNode | None, bool]:
        """(the enclosing function or module, whether a loop or comprehension of it repeats the call)."""
        in_loop = False
        current = self.get_metadata(ParentNodeProvider, node, None)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.Module)):
            if isinstance(current, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                in_loop = True
            current = self.get_metadata(ParentNodeProvider, current, None)
        return current, in_loop

    def _p2p(self, call: cst.Call) -> None:
        parent = self.get_metadata(ParentNodeProvider, call, None)
        if isinstance(parent, cst.Attribute) and parent.attr.value == "wait":
            return  # dist.isend(...).wait(): completes before the next operation
        group = arg(call, 2, "group")
        key_group = _CODE.code_for_node(group.value) if group is not None else "None"
        if key_group == "None":
            key_group = "<default>"
        function, in_loop = self._where(call)
        key = (id(function), key_group)
        self.p2p[key] = self.p2p.get(key, 0) + (2 if in_loop else 1)
        if self.p2p[key] >= 2 and id(function) not in self.reported:
            self.reported.add(id(function))
            self.finding(call, P2P_MESSAGE)
