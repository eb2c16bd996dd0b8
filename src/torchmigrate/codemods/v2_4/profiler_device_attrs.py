"""Profiler events: `cuda_time*`, `self_cuda_*`, `cuda_memory_usage` and `privateuse1_*` became `device_*` in PyTorch 2.4.

## What it does
Renames the attribute on a profiler event, wherever the event is visibly one — an item of `prof.key_averages()`,
`prof.function_events` or `prof.events()`, taken by a `for` loop or comprehension (also through `sorted(...)`,
`list(...)`, a slice, or a variable assigned from them), by indexing, or as the parameter of a `key=lambda e: ...`
over them:

| old | new |
|---|---|
| `cuda_time`, `cuda_time_total`, `self_cuda_time_total` | `device_time`, `device_time_total`, `self_device_time_total` |
| `cuda_memory_usage`, `self_cuda_memory_usage` | `device_memory_usage`, `self_device_memory_usage` |
| `cuda_time_str`, `cuda_time_total_str`, `self_cuda_time_total_str` | `device_time_str`, … |
| `privateuse1_time`, `privateuse1_time_total`, … `privateuse1_memory_usage` | `device_time`, … `device_memory_usage` |

In a file that uses the torch profiler, one of these names on an object the pass cannot identify as an event gets a
finding (except the generic `cuda_time`). `key_averages().table(sort_by="cuda_time_total")` needs nothing: the table
maps `cuda` to `device` itself.

## Why
PyTorch 2.4 unified the CUDA and PrivateUse1 profiler fields into `device_*` (pytorch/pytorch#123247 and its
follow-ups). On torch 2.13 `FunctionEvent.cuda_time`, `.cuda_time_total`, `.self_cuda_time_total` and
`.self_cuda_memory_usage` are deprecated properties returning the `device_*` value (FutureWarning), and every other old
name — all of them on the averaged events `key_averages()` returns, `cuda_memory_usage`, the `_str` forms and the
`privateuse1_*` fields — raises `AttributeError`.

## Fix safety
Safe: the deprecated properties return exactly the new attribute, and the other names no longer exist.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.sites import AstFile, Site, analyser, children_in_source_order
from torchmigrate.python.transform import PassTransformer

RENAMES = {
    "cuda_time": "device_time",
    "cuda_time_total": "device_time_total",
    "self_cuda_time_total": "self_device_time_total",
    "cuda_memory_usage": "device_memory_usage",
    "self_cuda_memory_usage": "self_device_memory_usage",
    "cuda_time_str": "device_time_str",
    "cuda_time_total_str": "device_time_total_str",
    "self_cuda_time_total_str": "self_device_time_total_str",
    "privateuse1_time": "device_time",
    "privateuse1_time_total": "device_time_total",
    "self_privateuse1_time_total": "self_device_time_total",
    "privateuse1_memory_usage": "device_memory_usage",
    "self_privateuse1_memory_usage": "self_device_memory_usage",
    "privateuse1_time_str": "device_time_str",
    "privateuse1_time_total_str": "device_time_total_str",
    "self_privateuse1_time_total_str": "self_device_time_total_str",
}
_GENERIC = {"cuda_time"}  # a name user code may well have for something else: no finding when unidentified
_EVENT_LISTS = {"key_averages", "events"}  # methods returning an EventList
_PASS_THROUGH = {"sorted", "reversed", "list", "tuple", "filter", "iter"}
_PICK = {"max", "min", "next"}
# Whether a text spells one of these words whole: a search per word, each led by its literal (found fast), rather than
# one alternation the regex engine tries at every position.
_PROFILER_WORDS = tuple(re.compile(rf"{w}(?<=\b{w})\b") for w in ("profiler", "key_averages", "function_events"))


def _uses_profiler(text: str) -> bool:
    return any(word.search(text) is not None for word in _PROFILER_WORDS)


PASS = Pass(
    id="profiler-device-attrs",
    since="2.4",
    release="2.4",
    kind=DEPRECATION,
    safety=SAFE,
    title="profiler event .cuda_time* / .self_cuda_* / .privateuse1_* → .device_*",
    evidence=(
        "PyTorch 2.4 profiler device unification (pytorch/pytorch#123247); torch 2.13 torch/autograd/profiler_util.py: "
        "FunctionEvent.cuda_time/cuda_time_total/self_cuda_time_total/self_cuda_memory_usage are @deprecated "
        "properties returning the device_* attribute; FunctionEventAvg has only device_*; checked on torch 2.13"
        "; since 2.4: FunctionEvent.device_time_total & co. (torch 2.4.1 wheel, torch/autograd/profiler_util.py; absent from 2.3.1)"
    ),
    triggers=("cuda_time", "cuda_memory_usage", "privateuse1_"),
    sliceable=False,  # whether `e` is an event is decided by a loop or assignment elsewhere in the file
    examples=[
        Example(
            before="""
                import torch

                with torch.profiler.profile() as prof:
                    model(x)
                for evt in prof.key_averages():
                    print(evt.key, evt.cuda_time_total, evt.self_cuda_time_total, evt.self_cuda_memory_usage)
            """,
            after="""
                import torch

                with torch.profiler.profile() as prof:
                    model(x)
                for evt in prof.key_averages():
                    print(evt.key, evt.device_time_total, evt.self_device_time_total, evt.self_device_memory_usage)
            """,
        ),
        Example(
            title="through a variable, sorted(..., key=lambda), a comprehension and an index",
            before="""
                from torch.autograd import profiler

                with profiler.profile(use_device="cuda") as prof:
                    run()
                events = prof.function_events
                top = sorted(events, key=lambda e: e.cuda_time_total, reverse=True)[:10]
                total = sum(e.cuda_time for e in top)
                first = prof.key_averages()[0].cuda_time_total_str
            """,
            after="""
                from torch.autograd import profiler

                with profiler.profile(use_device="cuda") as prof:
                    run()
                events = prof.function_events
                top = sorted(events, key=lambda e: e.device_time_total, reverse=True)[:10]
                total = sum(e.device_time for e in top)
                first = prof.key_averages()[0].device_time_total_str
            """,
        ),
        Example(
            title="an object the pass cannot identify, in a file that profiles: finding",
            before="""
                import torch.profiler


                def report(stats):
                    return stats.self_cuda_time_total
            """,
            findings=1,
        ),
        Example(
            title="the table's sort key needs nothing; a generic name on an unknown object is not reported",
            before="""
                import time

                print(prof.key_averages().table(sort_by="cuda_time_total"))
                timer.cuda_time = time.time()
            """,
        ),
        Example(
            title="look-alike: a file that does not profile",
            before="""
                def report(stats):
                    return stats.cuda_time_total
            """,
        ),
    ],
)


class ProfilerEventAttrs(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self.lists: set[str] = set()  # names bound to an event list
        self.events: set[str] = set()  # names bound to one event
        self.profiles = _uses_profiler(node.code)
        node.visit(_Bindings(self))
        return True

    def is_list(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.lists
        if isinstance(node, cst.Attribute):
            return node.attr.value == "function_events"
        if isinstance(node, cst.Subscript):
            return self.is_list(node.value) and all(isinstance(e.slice, cst.Slice) for e in node.slice)
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _EVENT_LISTS:
                return True
            if isinstance(func, cst.Name) and func.value in _PASS_THROUGH and node.args:
                return any(self.is_list(a.value) for a in node.args if a.keyword is None)
        return False

    def is_event(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.events
        if isinstance(node, cst.Subscript):
            return self.is_list(node.value) and not any(isinstance(e.slice, cst.Slice) for e in node.slice)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _PICK and node.args:
            return self.is_list(node.args[0].value)
        return False

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        old = original_node.attr.value
        new = RENAMES.get(old)
        if new is None or not self.allowed(original_node):
            return updated_node
        if self.is_event(original_node.value):
            self.edited(original_node, f"profiler event .{old} → .{new}")
            return updated_node.with_changes(attr=cst.Name(new))
        if self.profiles and old not in _GENERIC:
            self.finding(original_node, _unidentified(old, new))
        return updated_node


def _unidentified(old: str, new: str) -> str:
    return f".{old}: if this is a torch profiler event, the attribute is .{new} since PyTorch 2.4 (.{old} is deprecated or gone on 2.13)"


class _Bindings(cst.CSTVisitor):
    """Names bound to event lists (``events = prof.key_averages()``) and to events (``for e in events``, comprehension
    targets, ``key=lambda e: ...`` over an event list), in file order."""

    def __init__(self, owner: ProfilerEventAttrs) -> None:
        self.owner = owner

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.owner.is_list(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.owner.lists.add(target.target.value)

    def _loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name) and self.owner.is_list(iterable):
            self.owner.events.add(target.value)

    def visit_For(self, node: cst.For) -> None:
        self._loop(node.target, node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._loop(node.target, node.iter)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value in (_PASS_THROUGH | _PICK) and node.args):
            return
        if not self.owner.is_list(node.args[0].value):
            return
        for a in node.args:
            if a.keyword is not None and a.keyword.value == "key" and isinstance(a.value, cst.Lambda):
                for param in a.value.params.params:
                    self.owner.events.add(param.name.value)


PASS.uses(ProfilerEventAttrs)


class _AstEvents:
    """``ProfilerEventAttrs``' event lists and events, read from the stdlib ast by the same rules (``_Bindings``
    visits every node in file order, guarded code too)."""

    def __init__(self, tree: ast.Module) -> None:
        self.lists: set[str] = set()
        self.events: set[str] = set()
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Assign):
                if self.is_list(node.value):
                    self.lists.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                if isinstance(node.target, ast.Name) and self.is_list(node.iter):
                    self.events.add(node.target.id)
            elif isinstance(node, ast.Call):
                first = _first_argument(node)
                func = node.func
                if isinstance(func, ast.Name) and func.id in (_PASS_THROUGH | _PICK) and first is not None and self.is_list(first):
                    for keyword in node.keywords:
                        if keyword.arg == "key" and isinstance(keyword.value, ast.Lambda):
                            self.events.update(a.arg for a in keyword.value.args.args)
            stack.extend(reversed(children_in_source_order(node)))

    def is_list(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.lists
        if isinstance(node, ast.Attribute):
            return node.attr == "function_events"
        if isinstance(node, ast.Subscript):
            return self.is_list(node.value) and all(isinstance(e, ast.Slice) for e in _elements(node.slice))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _EVENT_LISTS:
                return True
            if isinstance(func, ast.Name) and func.id in _PASS_THROUGH:
                unnamed = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
                unnamed += [k.value for k in node.keywords if k.arg is None]
                return any(self.is_list(a) for a in unnamed)
        return False

    def is_event(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.events
        if isinstance(node, ast.Subscript):
            return self.is_list(node.value) and not any(isinstance(e, ast.Slice) for e in _elements(node.slice))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PICK:
            first = _first_argument(node)
            return first is not None and self.is_list(first)
        return False


def _elements(index: ast.expr) -> list[ast.expr]:
    return list(index.elts) if isinstance(index, ast.Tuple) and not _parenthesized(index) else [index]


def _parenthesized(node: ast.Tuple) -> bool:
    """``x[(a, b)]`` (one element to libcst) rather than ``x[a, b]``; a tuple display starts with its parenthesis."""
    return bool(node.elts) and (node.col_offset, node.lineno) != (node.elts[0].col_offset, node.elts[0].lineno)


def _first_argument(call: ast.Call) -> ast.expr | None:
    """The value of the call's first argument in source order (``*x`` and ``**x`` give ``x``), as libcst lists them."""
    values = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    starts = [(a.lineno, a.col_offset) for a in call.args] + [(k.lineno, k.col_offset) for k in call.keywords]
    if not starts:
        return None
    first = min(range(len(starts)), key=starts.__getitem__)
    return values[first]


def detect(file: AstFile) -> Iterator[Site]:
    """``ProfilerEventAttrs``' edits and findings from the stdlib ast (exact); an import that spells one of the
    names (libcst sees an Attribute there) is left to libcst."""
    events = _AstEvents(file.tree)
    profiles = _uses_profiler(file.text)
    for node in file.walk():
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            paths = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            if any(part in RENAMES for path in paths for part in path.split(".")[1:]):
                yield file.edit(node)
            continue
        if not isinstance(node, ast.Attribute) or node.attr not in RENAMES:
            continue
        if events.is_event(node.value):
            yield file.edit(node)
        elif profiles and node.attr not in _GENERIC:
            yield file.finding(node, _unidentified(node.attr, RENAMES[node.attr]))


PASS.analyse = analyser(PASS.id, detect, exact=True)
