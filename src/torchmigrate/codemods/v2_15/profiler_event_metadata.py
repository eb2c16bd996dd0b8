"""The profiler event field `event_metadata` is deprecated in PyTorch 2.15 in favour of `metadata` (finding).

## What it does
In files that use the PyTorch profiler, reports reads of `event.event_metadata`, and `FunctionEvent(...,
metadata_json=...)` (a constructor argument 2.15 removed). With `--to 2.15` this pass runs after
`profiler-metadata-json` (2.12), which rewrites the removed `.metadata_json` into `.event_metadata`: the chain ends on
a working read plus this finding, which says what moving on to `.metadata` takes.

## Why
2.15 deprecates the property: "`event_metadata` is deprecated. Use `metadata` instead." (`FutureWarning`, 2.15.0
`torch/autograd/profiler_util.py:902-908`), and removes `metadata_json` together with its constructor argument
(2.14.1 `torch/autograd/profiler_util.py:902-908` and the `metadata_json=` parameter are gone in 2.15.0).

## Fix safety
Finding only. The two fields hold different things: `event_metadata` is an `EventMetadata` named tuple built from the
event's extra metadata (or `None`), `metadata` a dict keyed by the field names of exported traces, filled from
Kineto's typed metadata (Kineto activity metadata only with `_ExperimentalConfig(expose_kineto_event_metadata=True)`;
2.15.0 `:715-719,836-839`). Renaming the attribute would change what the code reads.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.codemods.v2_12.profiler_metadata_json import _USES_PROFILER
from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="profiler-event-metadata",
    release="2.15",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="profiler event .event_metadata is deprecated: read .metadata (a dict) instead (finding)",
    evidence=(
        "torch 2.15.0 torch/autograd/profiler_util.py:715-719,836-839,902-908; 2.14.1 :902-908 (metadata_json) gone"
        "; finding only: emits no new form"
    ),
    triggers=("event_metadata", "metadata_json"),
    examples=[
        Example(
            before="""
                from torch.profiler import profile

                with profile() as prof:
                    run()
                ranks = [e.event_metadata.rank for e in prof.events() if e.event_metadata]
            """,
            findings=2,
        ),
        Example(
            title="a FunctionEvent built with metadata_json=: finding",
            before="""
                from torch.autograd.profiler_util import FunctionEvent

                ev = FunctionEvent(id=1, name="op", thread=0, start_us=0, end_us=1, metadata_json="{}")
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch

            meta = record.event_metadata
            """,
            title="files without the profiler",
        ),
    ],
)


@PASS.uses
class EventMetadata(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        return self.whole_text_has(lambda text: bool(_USES_PROFILER.search(text)) or "profiler_util" in text)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "event_metadata":
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return
        self.finding(
            node,
            "event_metadata is deprecated from 2.15: .metadata is a dict keyed by trace field names (Kineto activity "
            "metadata needs _ExperimentalConfig(expose_kineto_event_metadata=True)), not an EventMetadata: port the "
            "field reads by hand",
        )

    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualname(node.func)
        if name in ("torch.autograd.profiler_util.FunctionEvent", "torch.autograd.profiler.FunctionEvent"):
            if kwarg(node, "metadata_json") is not None:
                self.finding(node, "FunctionEvent(metadata_json=...) is removed in 2.15: pass typed_metadata={...} instead")
