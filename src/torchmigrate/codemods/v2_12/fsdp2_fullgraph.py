"""`torch.compile(model, fullgraph=True)` on an FSDP2 (`fully_shard`) model fails from PyTorch 2.12.

## What it does
Reports (a finding, no edit) a `torch.compile(m, fullgraph=True)` — or `m.compile(fullgraph=True)` — where `m` was
visibly sharded with FSDP2 earlier in the same scope: `fully_shard(m, …)` or `m = fully_shard(…)`, imported from
`torch.distributed.fsdp` or the older `torch.distributed._composable.fsdp`. A model sharded somewhere the tool cannot
see (another function, another file) is not reported: this pass stays quiet rather than guess.

## Why
PyTorch 2.12 stopped supporting compiling through the FSDP2 hooks without graph breaks (2.12 release notes,
Deprecations, FSDP2; pytorch/pytorch#174863, #174906). Checked on torch 2.13.0 with a 1-rank gloo mesh on CPU:
the forward of `torch.compile(fully_sharded_model, fullgraph=True)` raises `torch._dynamo.exc.Unsupported`
("Attempted to call function marked as skipped"); with `fullgraph=False` it runs.

## Fix safety
No automatic fix, because there are two right answers: keep the FSDP2 model and drop `fullgraph=True` (graph breaks
around the hooks), or compile first and shard the compiled model (`fully_shard(torch.compile(model, fullgraph=True))`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import ScopeProvider

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import arg, dotted_name, kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer, Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    id="fsdp2-fullgraph",
    follows_uses="all",  # what was sharded (a variable or an attribute chain) is followed to its compile()
    release="2.12",
    since="1.8",
    kind=BEHAVIOUR,
    safety=REVIEW,
    title="torch.compile(fully_shard model, fullgraph=True) → finding: fullgraph=False, or compile before fully_shard",
    evidence=(
        "PyTorch 2.12 release notes, Deprecations, FSDP2 (pytorch/pytorch#174863, #174906)"
        "; finding only: emits no new form"
    ),
    triggers=("fully_shard",),
    examples=[
        Example(
            title="fully_shard then compile with fullgraph=True",
            before="""
                import torch
                from torch.distributed.fsdp import fully_shard

                def build(model, mesh):
                    for layer in model.layers:
                        fully_shard(layer, mesh=mesh)
                    fully_shard(model, mesh=mesh)
                    return torch.compile(model, fullgraph=True)
            """,
            findings=1,
        ),
        Example(
            title="assigned result, old _composable path, Module.compile",
            before="""
                from torch.distributed._composable.fsdp import fully_shard

                import torch

                sharded = fully_shard(net)
                sharded.compile(fullgraph=True)
                other = torch.compile(fully_shard(net2), fullgraph=True)
            """,
            findings=2,
        ),
        Example(
            title="fine: fullgraph=False, compile before sharding, another model, another scope",
            before="""
                import torch
                from torch.distributed.fsdp import fully_shard

                def a(model):
                    fully_shard(model)
                    return torch.compile(model, fullgraph=False)

                def b(model):
                    compiled = torch.compile(model, fullgraph=True)
                    fully_shard(compiled)
                    return compiled

                def c(model, head):
                    fully_shard(model)
                    return torch.compile(head, fullgraph=True)

                def d(model):
                    return torch.compile(model, fullgraph=True)
            """,
        ),
    ],
)

MESSAGE = (
    "`{name}` is sharded with FSDP2 (fully_shard) above: from 2.12, compiling through the FSDP2 hooks with "
    "fullgraph=True fails (torch._dynamo Unsupported). Use fullgraph=False, or compile first and shard the compiled "
    "model: fully_shard(torch.compile(model, fullgraph=True))"
)


def _is_fully_shard(qualname: str | None) -> bool:
    return qualname is not None and qualname.startswith("torch.distributed.") and qualname.endswith(".fully_shard")


def _fullgraph_true(call: cst.Call) -> bool:
    given = kwarg(call, "fullgraph")
    return given is not None and isinstance(given.value, cst.Name) and given.value.value == "True"


def detect(file: AstFile) -> Iterator[Site]:
    """A cheap bound on the transformer's sites: it reports only calls that pass the literal ``fullgraph=True``."""
    for node in file.walk():
        if isinstance(node, ast.Call) and any(
            k.arg == "fullgraph" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords
        ):
            yield file.finding(node, "")  # not exact: libcst decides and words the finding


PASS.analyse = analyser(PASS.id, detect)


@PASS.uses
class Fsdp2FullgraphTransformer(PassTransformer):
    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self.sharded: set[tuple[int, str]] = set()  # (id(scope), dotted name) sharded so far, in source order

    def _scope_id(self, node: cst.CSTNode) -> int:
        return id(self.get_metadata(ScopeProvider, node, None))

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        value = original_node.value
        if isinstance(value, cst.Call) and _is_fully_shard(self.qualname(value.func)):
            for target in original_node.targets:
                name = dotted_name(target.target)
                if name:
                    self.sharded.add((self._scope_id(original_node), name))
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        qualname = self.qualname(original_node.func)
        if _is_fully_shard(qualname):
            first = arg(original_node, 0, "module")
            name = dotted_name(first.value) if first is not None else None
            if name:
                self.sharded.add((self._scope_id(original_node), name))
            return updated_node
        if not _fullgraph_true(original_node):
            return updated_node
        model: str | None = None
        if qualname == "torch.compile":
            first = arg(original_node, 0, "model")
            if first is not None and isinstance(first.value, cst.Call) and _is_fully_shard(self.qualname(first.value.func)):
                self.finding(original_node, MESSAGE.format(name="fully_shard(...)"))
                return updated_node
            model = dotted_name(first.value) if first is not None else None
        elif isinstance(original_node.func, cst.Attribute) and original_node.func.attr.value == "compile":
            model = dotted_name(original_node.func.value)
        if model and (self._scope_id(original_node), model) in self.sharded:
            self.finding(original_node, MESSAGE.format(name=model))
        return updated_node
