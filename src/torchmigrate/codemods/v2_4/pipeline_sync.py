"""`torch.distributed.pipeline` (`sync.Pipe`, the RPC pipeline) was removed in PyTorch 2.4: use `torch.distributed.pipelining`.

## What it does
Reports (no edit) each import of `torch.distributed.pipeline` or a module below it (`pipeline.sync`,
`pipeline.sync.Pipe`, `pipeline.sync.skip`, …) and each use spelled from `import torch`
(`torch.distributed.pipeline.sync.Pipe(...)`). `torch.distributed.pipelining` itself is not reported.

## Why
2.3 deprecated the package ("torch.distributed.pipeline is deprecated. For up-to-date pipeline parallel
implementation, please refer to the PiPPy library under the PyTorch organization", pytorch/pytorch#121464) and 2.4
deleted it (pytorch/pytorch#127354; the 2.4 wheel has no `torch/distributed/pipeline/`): on 2.13 the import is a
`ModuleNotFoundError`.

## Fix safety
Finding only: the replacement is a different API. `torch.distributed.pipelining` splits a model with
`pipeline(module, mb_args=..., split_spec=...)` or `pipe_split()` markers, builds a `PipelineStage` per rank
(`build_stage`) and runs a schedule (`ScheduleGPipe`, `Schedule1F1B`, `ScheduleInterleaved1F1B`, …); `Pipe`'s
`chunks=` becomes the schedule's `n_microbatches=`, and it runs one stage per process (torchrun) instead of one
process driving several devices.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import chain_root, dotted_name
from torchmigrate.python.transform import PassTransformer

OLD = "torch.distributed.pipeline"
MESSAGE = (
    "torch.distributed.pipeline (Pipe) was removed in 2.4: use torch.distributed.pipelining — split the model with "
    "pipeline(module, mb_args=..., split_spec=...) or pipe_split(), build a PipelineStage per rank and run a schedule "
    "(ScheduleGPipe(stage, n_microbatches=chunks), Schedule1F1B, …) under torchrun"
)

PASS = Pass(
    id="pipeline-sync",
    since="1.8",
    release="2.4",
    kind=REMOVAL,
    safety=SAFE,
    title="torch.distributed.pipeline.sync.Pipe (removed in 2.4) → torch.distributed.pipelining (finding)",
    evidence=(
        "deprecated in 2.3 (pytorch/pytorch#121464; DeprecationWarning in the 2.3 wheel), removed in 2.4 (pytorch/pytorch#127354; absent from the 2.4 wheel)"
        "; finding only: emits no new form"
    ),
    triggers=("pipeline",),
    qualnames=frozenset({"torch.distributed.pipeline"}),  # and its submodules; not every file saying "pipeline"
    examples=[
        Example(
            before="""
                from torch.distributed.pipeline.sync import Pipe

                model = Pipe(torch.nn.Sequential(a, b), chunks=8)
            """,
            findings=1,
        ),
        Example(
            title="spelled from import torch",
            before="""
                import torch

                model = torch.distributed.pipeline.sync.Pipe(seq, chunks=4)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: the new package, another library's pipeline",
            before="""
                from torch.distributed.pipelining import pipeline, ScheduleGPipe
                from transformers import pipeline as hf_pipeline
            """,
        ),
    ],
)


def _removed(module: str) -> bool:
    return module == OLD or module.startswith(OLD + ".")


@PASS.uses
class RemovedPipeline(PassTransformer):
    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.module is not None and not node.relative:
            module = dotted_name(node.module) or ""
            names = [] if isinstance(node.names, cst.ImportStar) else [dotted_name(a.name) or "" for a in node.names]
            if _removed(module) or (module == "torch.distributed" and "pipeline" in names):
                self.finding(node, MESSAGE)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        if any(_removed(dotted_name(alias.name) or "") for alias in node.names):
            self.finding(node, MESSAGE)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        root = chain_root(node)
        if root is None or self.qualname(root) != "torch":
            return True
        if _removed(self.qualname(node) or ""):
            self.finding(node, MESSAGE)
            return False  # one finding for the whole chain
        return True
