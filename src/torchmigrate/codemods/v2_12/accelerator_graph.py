"""Opt-in: device-generic graphs with `torch.accelerator.Graph` (PyTorch 2.12).

## What it does
Rewrites `torch.cuda.CUDAGraph(...)` and `torch.xpu.XPUGraph(...)` into `torch.accelerator.Graph(...)`, and
`torch.cuda.is_current_stream_capturing()` into `torch.accelerator.current_stream().is_capturing()`. A file that hands
its graphs to CUDA-only helpers (`torch.cuda.graph(...)`, `torch.cuda.make_graphed_callables`) or reads CUDA-only graph
attributes (`raw_cuda_graph`, `raw_cuda_graph_exec`, `get_graph_data`) gets a finding per graph instead.
Runs only when selected: `migrate --to 2.12 --select accelerator-graph`.

## Why
2.12 introduced `torch.accelerator.Graph` as one graph interface for every accelerator (pytorch/pytorch#171285), and
`torch.Stream.is_capturing`. The CUDA and XPU classes are not deprecated (checked on torch 2.13.0: no warning), so this
is a modernisation, never part of a default run.

## Fix safety
Review: `torch.accelerator.Graph(keep_graph=False, *, pool=None, capture_error_mode="default")` takes the same
`keep_graph`, and offers `capture_begin`, `capture_end`, `replay`, `reset`, `pool`, `instantiate`, `debug_dump` and
`enable_debug_mode`; it has no `raw_cuda_graph*` or `get_graph_data`. `torch.accelerator.current_stream()` raises
`RuntimeError` on a machine without an accelerator, where `torch.cuda.is_current_stream_capturing()` returned `False`.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import OPPORTUNITY, REVIEW, Example, Pass
from torchmigrate.python.helpers import find_all
from torchmigrate.python.transform import CallContext, PassTransformer

PASS = Pass(
    id="accelerator-graph",
    release="2.12",
    since="2.12",
    kind=OPPORTUNITY,
    safety=REVIEW,
    title="torch.cuda.CUDAGraph / XPUGraph → torch.accelerator.Graph",
    evidence=(
        "PyTorch 2.12 release notes, New Features / Python Frontend (pytorch/pytorch#171285)"
        "; since 2.12: torch.accelerator.Graph (torch 2.12.0 wheel, torch/accelerator/__init__.py)"
    ),
    opt_in=True,
    sliceable=False,  # whether the file uses CUDA-only graph helpers is a fact of the whole file, read by qualified name
    review_note=(
        "torch.accelerator.Graph has no raw_cuda_graph*/get_graph_data; torch.accelerator.current_stream() raises "
        "without an accelerator."
    ),
    examples=[
        Example(
            before="""
                import torch

                g = torch.cuda.CUDAGraph()
                g.capture_begin()
                out = model(static_in)
                g.capture_end()
                if torch.cuda.is_current_stream_capturing():
                    pass
            """,
            after="""
                import torch

                g = torch.accelerator.Graph()
                g.capture_begin()
                out = model(static_in)
                g.capture_end()
                if torch.accelerator.current_stream().is_capturing():
                    pass
            """,
        ),
        Example(
            title="XPU, keep_graph kept",
            before="""
                import torch as th

                g = th.xpu.XPUGraph(keep_graph=True)
            """,
            after="""
                import torch as th

                g = th.accelerator.Graph(keep_graph=True)
            """,
        ),
        Example(
            title="handed to torch.cuda.graph: finding",
            before="""
                import torch

                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    out = model(x)
            """,
            findings=1,
        ),
    ],
)

_CUDA_ONLY_CALLS = {"torch.cuda.graph", "torch.cuda.make_graphed_callables", "torch.cuda.graphs.graph"}
_CUDA_ONLY_ATTRS = {"raw_cuda_graph", "raw_cuda_graph_exec", "get_graph_data"}


@PASS.uses
class AcceleratorGraph(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self.cuda_only = any(
            self.qualname(call.func) in _CUDA_ONLY_CALLS for call in find_all(node, cst.Call)
        ) or any(a.attr.value in _CUDA_ONLY_ATTRS for a in find_all(node, cst.Attribute))
        return True


@PASS.rewrites_calls("torch.cuda.CUDAGraph", "torch.xpu.XPUGraph", "torch.cuda.graphs.CUDAGraph")
def graph(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    transformer = ctx.transformer
    assert isinstance(transformer, AcceleratorGraph)
    if transformer.cuda_only:
        ctx.finding(
            "this file uses CUDA-only graph helpers (torch.cuda.graph, make_graphed_callables or raw_cuda_graph*), "
            "which torch.accelerator.Graph does not support: keep torch.cuda.CUDAGraph here"
        )
        return None
    ctx.message = f"{ctx.qualname} → torch.accelerator.Graph"
    return call.with_changes(func=ctx.ref("torch.accelerator.Graph"))


@PASS.rewrites_calls("torch.cuda.is_current_stream_capturing", "torch.cuda.graphs.is_current_stream_capturing")
def capturing(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if call.args:
        return None
    ctx.message = "is_current_stream_capturing() → torch.accelerator.current_stream().is_capturing()"
    stream = cst.Call(func=ctx.ref("torch.accelerator.current_stream"))
    return cst.Call(func=cst.Attribute(value=stream, attr=cst.Name("is_capturing")))
