"""`torch.multiprocessing.reductions.reduce_event` became private in PyTorch 2.15 (finding).

## What it does
Reports every use of `torch.multiprocessing.reductions.reduce_event` (calls, references, imports).

## Why
2.15 renamed it `_reduce_event` and registers it for every event class itself (2.14.1
`torch/multiprocessing/reductions.py:103,624` → 2.15.0 `:108,631`); the public name is gone (`AttributeError` /
`ImportError`).

## Fix safety
Finding only: pickling a `torch.cuda.Event` through `torch.multiprocessing` needs no call at all (the reduction is
registered when `torch.multiprocessing` is imported); code that registered it with another pickler has to keep its
own reducer, since the private name may change again.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import PassTransformer

_NAME = "torch.multiprocessing.reductions.reduce_event"
_MESSAGE = (
    "torch.multiprocessing.reductions.reduce_event is private from 2.15 (_reduce_event): torch.multiprocessing "
    "already registers it for CUDA events; drop the call, or keep a reducer of your own"
)

PASS = Pass(
    id="mp-reduce-event",
    release="2.15",
    since="1.8",
    kind=REMOVAL,
    safety=SAFE,
    title="torch.multiprocessing.reductions.reduce_event is gone (finding)",
    evidence=(
        "torch 2.14.1 torch/multiprocessing/reductions.py:103,624 → 2.15.0 :108,631 (_reduce_event)"
        "; finding only: emits no new form"
    ),
    qualnames=frozenset({_NAME}),
    examples=[
        Example(
            before="""
                from multiprocessing.reduction import ForkingPickler

                import torch.multiprocessing.reductions as reductions

                ForkingPickler.register(torch.cuda.Event, reductions.reduce_event)
            """,
            findings=1,
        ),
        Example(
            title="from-import",
            before="""
                from torch.multiprocessing.reductions import reduce_event, reduce_tensor
            """,
            findings=1,
        ),
        Unchanged(
            """
            from torch.multiprocessing.reductions import reduce_tensor

            handle = reduce_tensor(t)
            """,
            title="the other reductions",
        ),
    ],
)


@PASS.uses
class ReduceEvent(PassTransformer):
    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.ImportFrom) and parent.module is not None:
            code = cst.Module(body=[]).code_for_node
            if f"{code(parent.module)}.{code(node.name)}" == _NAME:
                self.finding(node, _MESSAGE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.qualname(node) == _NAME:
            self.finding(node, _MESSAGE)
