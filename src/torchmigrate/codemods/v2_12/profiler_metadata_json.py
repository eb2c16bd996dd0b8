"""The profiler event field `metadata_json` is deprecated in PyTorch 2.12: use `event_metadata`.

## What it does
In files that use the PyTorch profiler (`torch.profiler` or `torch.autograd.profiler`), rewrites reads of
`event.metadata_json` into `event.event_metadata`. A read that is parsed as JSON (`json.loads(event.metadata_json)`)
gets a finding instead, since the new field is not a string.

## Why
2.12 deprecated `FunctionEvent.metadata_json` in favour of the structured `event_metadata` (pytorch/pytorch#179417);
on 2.13 reading it warns "`metadata_json` is deprecated. Use `event_metadata` instead." (`FutureWarning`). 2.15
removes `metadata_json` and deprecates `event_metadata` in turn: with `--to 2.15` the pass
`profiler-event-metadata` then reports each `.event_metadata` read, with what moving on to `.metadata` takes.

## Fix safety
Review: `metadata_json` is a JSON string (often empty), `event_metadata` is an `EventMetadata` named tuple or `None`.
Truthiness checks and passing the value along keep working; string operations on it do not. Methods named
`metadata_json()` (Kineto's own events) are calls, not this field, and are left alone.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="profiler-metadata-json",
    release="2.12",
    since="2.12",
    kind=DEPRECATION,
    removed_in="2.15",
    safety=REVIEW,
    title="profiler event .metadata_json → .event_metadata",
    evidence=(
        "PyTorch 2.12 release notes, Deprecations / Profiler (pytorch/pytorch#179417); removed in 2.15 (2.14.1 "
        "torch/autograd/profiler_util.py:902-908 gone in 2.15.0)"
        "; since 2.12: FunctionEvent.event_metadata (torch 2.12.0 wheel, torch/autograd/profiler_util.py)"
    ),
    triggers=("metadata_json",),
    review_note="event_metadata is a structured EventMetadata named tuple (or None), not a JSON string.",
    examples=[
        Example(
            before="""
                from torch.profiler import profile

                with profile() as prof:
                    run()
                tagged = [e.name for e in prof.events() if e.metadata_json]
            """,
            after="""
                from torch.profiler import profile

                with profile() as prof:
                    run()
                tagged = [e.name for e in prof.events() if e.event_metadata]
            """,
        ),
        Example(
            title="parsed as JSON: finding",
            before="""
                import json
                import torch

                with torch.autograd.profiler.profile() as prof:
                    run()
                meta = [json.loads(e.metadata_json) for e in prof.function_events]
            """,
            findings=1,
        ),
        Example(
            title="Kineto's metadata_json() method and files without the profiler are left alone",
            before="""
                import torch

                md = activity.metadata_json()
                other = record.metadata_json
            """,
        ),
    ],
)

_USES_PROFILER = re.compile(r"\btorch\.(?:autograd\.)?profiler\b|from\s+torch(?:\.autograd)?\s+import\s+[^\n]*\bprofiler\b")


@PASS.uses
class MetadataJson(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        # Only where the profiler is in use: `metadata_json` is too generic a name to rewrite elsewhere.
        return self.whole_text_has(lambda text: bool(_USES_PROFILER.search(text)))

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if original_node.attr.value != "metadata_json" or not self.allowed(original_node):
            return updated_node
        parent = self.get_metadata(ParentNodeProvider, original_node, None)
        if isinstance(parent, cst.Call) and parent.func is original_node:
            return updated_node  # a method call: Kineto's metadata_json(), not the deprecated field
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return updated_node
        if isinstance(parent, cst.Arg):
            call = self.get_metadata(ParentNodeProvider, parent, None)
            if isinstance(call, cst.Call) and self.qualname(call.func) == "json.loads":
                self.finding(
                    original_node,
                    "metadata_json is deprecated since 2.12 and event_metadata is a structured EventMetadata "
                    "(or None), not JSON: read its fields instead of parsing",
                )
                return updated_node
        self.edited(original_node, ".metadata_json → .event_metadata (structured, not a JSON string)")
        return updated_node.with_changes(attr=cst.Name("event_metadata"))
