"""`torch.autograd.profiler.load_nvprof`, `parse_nvprof_trace` and `EnforceUnique` are deprecated in PyTorch 2.15 (finding).

## What it does
Reports every use of the three names (calls, references, imports), however they are imported.

## Why
2.15 marks them `@deprecated(..., category=FutureWarning)`: "`torch.autograd.profiler.load_nvprof` is deprecated and
will be removed in PyTorch 2.17." — likewise `parse_nvprof_trace` and `EnforceUnique` (2.15.0
`torch/autograd/profiler.py:1216,1248,1261`). They read traces of the `nvprof` tool, which NVIDIA retired; the
profiler writes Chrome/Perfetto traces itself.

## Fix safety
Finding only: there is no drop-in replacement for reading nvprof databases. Profile with `torch.profiler.profile` and
export with `prof.export_chrome_trace(path)`, or keep the nvprof reader in your own code.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import PassTransformer

_NAMES = {f"torch.autograd.profiler.{n}" for n in ("load_nvprof", "parse_nvprof_trace", "EnforceUnique")}

PASS = Pass(
    id="profiler-nvprof",
    release="2.15",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.autograd.profiler.load_nvprof / parse_nvprof_trace / EnforceUnique are deprecated (finding)",
    evidence=(
        "torch 2.15.0 torch/autograd/profiler.py:1216,1248,1261 (FutureWarning, removal announced for 2.17)"
        "; finding only: emits no new form"
    ),
    qualnames=frozenset(_NAMES),
    examples=[
        Example(
            before="""
                import torch

                events = torch.autograd.profiler.load_nvprof("trace.nvvp")
            """,
            findings=1,
        ),
        Example(
            title="from-imports: reported once, at the import",
            before="""
                from torch.autograd.profiler import EnforceUnique, parse_nvprof_trace

                seen = EnforceUnique()
                rows = parse_nvprof_trace(path)
            """,
            findings=2,
        ),
        Unchanged("from mytools import load_nvprof\n\nevents = load_nvprof(path)\n", title="look-alike"),
    ],
)


@PASS.uses
class Nvprof(PassTransformer):
    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.ImportFrom) and parent.module is not None:
            module = cst.Module(body=[]).code_for_node(parent.module)
            name = f"{module}.{cst.Module(body=[]).code_for_node(node.name)}"
            if name in _NAMES:
                self.finding(node, _message(name))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = self.qualname(node)
        if name in _NAMES:
            self.finding(node, _message(name))


def _message(name: str) -> str:
    return (
        f"{name} is deprecated from 2.15 and will be removed in 2.17: profile with torch.profiler.profile and export "
        "with prof.export_chrome_trace(path), or keep an nvprof reader of your own"
    )
