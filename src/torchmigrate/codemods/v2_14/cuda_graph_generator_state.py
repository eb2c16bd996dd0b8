"""`CUDAGraph.register_generator_state(...)` is a deprecated no-op from PyTorch 2.14: delete the call.

## What it does
Deletes statements `g.register_generator_state(gen)` where `g` is visibly a `torch.cuda.CUDAGraph` (built with
`torch.cuda.CUDAGraph(...)` in the same scope, or annotated so). The same call on a receiver that cannot be told
apart gets a finding; a call whose result is used gets a finding too.

## Why
2.14 registers every generator with a graph by itself: the C++ method now only warns
"CUDAGraph.register_generator_state() is deprecated, and will be removed in a future PyTorch release. It is now a
no-op and can be safely removed from your code." (string in the 2.14.1 wheel's `torch/lib/libtorch_python.so`; the
method stays in `torch/_C/__init__.pyi:11995`).

## Fix safety
Safe on the target: from 2.14 the call does nothing but warn (on 2.13 it registered the generator; 2.14 does that for
every generator itself). It was not run on a GPU here.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.tensors import imports_torch, is_instance
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="cuda-graph-generator-state",
    release="2.14",
    since="2.14",
    kind=DEPRECATION,
    safety=SAFE,
    title="CUDAGraph.register_generator_state(...) → removed (a no-op since 2.14)",
    evidence=(
        "torch 2.14.1 wheel, torch/lib/libtorch_python.so: deprecation string \"It is now a no-op\"; torch/_C/__init__.pyi:11995"
        "; since 2.14: register_generator_state is a no-op from 2.14 (torch 2.14.1 wheel, "
        "libtorch_python.so); before, the deleted call registered the generator"
    ),
    triggers=("register_generator_state",),
    examples=[
        Example(
            before="""
                import torch

                g = torch.cuda.CUDAGraph()
                gen = torch.Generator(device="cuda")
                g.register_generator_state(gen)
                with torch.cuda.graph(g):
                    y = model(x)
            """,
            after="""
                import torch

                g = torch.cuda.CUDAGraph()
                gen = torch.Generator(device="cuda")
                with torch.cuda.graph(g):
                    y = model(x)
            """,
        ),
        Example(
            title="an annotated parameter; the only statement of a block",
            before="""
                from torch.cuda import CUDAGraph

                def prepare(graph: CUDAGraph, gens):
                    for gen in gens:
                        graph.register_generator_state(gen)
            """,
            after="""
                from torch.cuda import CUDAGraph

                def prepare(graph: CUDAGraph, gens):
                    for gen in gens:
                        pass
            """,
        ),
        Example(
            title="an unknown receiver: finding",
            before="""
                import torch

                def prepare(graph, gen):
                    graph.register_generator_state(gen)
            """,
            findings=1,
        ),
        Unchanged("registry.register_generator_state(gen)\n", title="a file without torch"),
    ],
)

_CLASSES = frozenset({"torch.cuda.CUDAGraph", "torch.cuda.graphs.CUDAGraph"})


@PASS.uses
class RegisterGeneratorState(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self._uses_torch = imports_torch(node)
        return True

    def _call(self, node: cst.BaseExpression) -> bool:
        return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "register_generator_state")

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if len(original_node.body) != 1 or not isinstance(original_node.body[0], cst.Expr):
            return updated_node
        call = original_node.body[0].value
        if not self._call(call) or not self.allowed(original_node):
            return updated_node
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        if not is_instance(self, call.func.value, _CLASSES):
            if self._uses_torch:
                self.finding(call, "CUDAGraph.register_generator_state() is a no-op from 2.14: if this is a CUDAGraph, delete the call")
            return updated_node
        self.edited(original_node, "removed CUDAGraph.register_generator_state(...) (a no-op since 2.14)")
        return self.remove_statement(original_node, updated_node)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._call(node):
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if not isinstance(parent, cst.Expr) and self._uses_torch:
            self.finding(node, "CUDAGraph.register_generator_state() is a no-op from 2.14 (it returns None): remove the call")
