"""`torch.compile(fullgraph=True)` that runs no compiled code warns in PyTorch 2.12 and raises from 2.13 (finding).

## What it does
Reports each `torch.compile(..., fullgraph=True)` (call or decorator) in a file that visibly keeps Dynamo from
compiling anything:

- it turns Dynamo off: `torch._dynamo.config.disable = True`, or sets the `TORCH_COMPILE_DISABLE` environment variable
  (`os.environ[...] = ...`, `os.environ.setdefault(...)`, `os.putenv(...)`);
- it defines a `TorchDispatchMode` subclass, under which Dynamo skips the frame (a non-infra dispatch mode is
  active).

## Why
pytorch/pytorch#177809 made `fullgraph=True` promise that compiled code runs: when every frame is skipped, 2.12 warns
and 2.13 raises `RuntimeError: torch.compile with fullgraph=True found no compiled frames.` (pytorch/pytorch#181940;
2.13 `torch/_dynamo/eval_frame.py:1187-1200`). Checked on torch 2.13.0: `torch._dynamo.config.disable = True`,
`TORCH_COMPILE_DISABLE=1` and an active `TorchDispatchMode` each raise it; a function marked
`torch.compiler.disable` does not (torch.compile returns it as it is).

## Fix safety
Finding only. The PR names the two ways out: `fullgraph=False` (with `error_on_graph_break=True` when graph breaks
should still fail), or calling the skipped code through a wrapper function that Dynamo does compile.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="fullgraph-no-compiled-frames",
    release="2.12",
    since="1.8",
    removed_in="2.13",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.compile(fullgraph=True) where Dynamo is disabled or a dispatch mode is active: raises from 2.13 (finding)",
    evidence=(
        "pytorch/pytorch#177809, #181940; torch 2.13 torch/_dynamo/eval_frame.py:1187-1200 (checked on 2.13.0)"
        "; finding only: emits no new form"
    ),
    triggers=("fullgraph",),
    sliceable=False,  # what disables Dynamo sits in other statements
    examples=[
        Example(
            title="Dynamo turned off in the same file",
            before="""
                import os

                import torch

                os.environ["TORCH_COMPILE_DISABLE"] = "1"
                step = torch.compile(train_step, fullgraph=True)
            """,
            findings=1,
        ),
        Example(
            title="a dispatch mode of the file's own; config flag; decorator form",
            before="""
                import torch
                from torch.utils._python_dispatch import TorchDispatchMode

                torch._dynamo.config.disable = True

                class Logging(TorchDispatchMode):
                    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                        return func(*args, **(kwargs or {}))

                @torch.compile(fullgraph=True)
                def f(x):
                    return x * 2
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch

            step = torch.compile(train_step, fullgraph=True)
            other = torch.compile(train_step, fullgraph=False)
            """,
            title="nothing visibly disables compilation",
        ),
    ],
)

_DISPATCH_MODES = frozenset({"torch.utils._python_dispatch.TorchDispatchMode", "torch.utils._python_dispatch.BaseTorchDispatchMode"})


def _true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _names_compile_disable(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == "TORCH_COMPILE_DISABLE"


def _message(why: str) -> str:
    return (
        f"torch.compile(fullgraph=True) may run no compiled code here ({why}): 2.12 warns and 2.13 raises "
        "'found no compiled frames'; use fullgraph=False (error_on_graph_break=True keeps graph breaks "
        "fatal) or compile a wrapper that Dynamo can trace"
    )


_FULLGRAPH_TRUE = re.compile(r"fullgraph(?<=\bfullgraph)\s*=\s*True\b")  # led by a literal: found fast


def _ast_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _ast_names_compile_disable(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "TORCH_COMPILE_DISABLE"


def detect(file: AstFile) -> Iterator[Site]:
    """The transformer's findings, exactly, from the stdlib ast: each ``torch.compile(..., fullgraph=True)`` when the
    file also disables Dynamo or defines a dispatch mode. A reason inside a statement that may be a version guard by
    the fuller rule sends the file to libcst (the transformer may not see it)."""
    if not _FULLGRAPH_TRUE.search(file.text):
        return  # no `torch.compile(..., fullgraph=True)` can be spelled: no site
    reasons: list[str] = []
    sites: list[ast.Call] = []
    unsure: ast.AST | None = None
    for node in file.walk():
        found: str | None = None
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and file.qualname(target) == "torch._dynamo.config.disable" and _ast_true(node.value):
                    reasons.append(found := "torch._dynamo.config.disable = True")
                if (
                    isinstance(target, ast.Subscript)
                    and file.qualname(target.value) == "os.environ"
                    and _ast_names_compile_disable(target.slice)
                ):
                    reasons.append(found := "TORCH_COMPILE_DISABLE is set")
        elif isinstance(node, ast.ClassDef):
            if any(file.qualname(base) in _DISPATCH_MODES for base in node.bases):
                reasons.append(found := f"the TorchDispatchMode {node.name} (Dynamo skips frames while it is active)")
        elif isinstance(node, ast.Call):
            name = file.qualname(node.func)
            first = node.args[0] if node.args else node.keywords[0].value if node.keywords else None
            if name in ("os.environ.setdefault", "os.putenv") and _ast_names_compile_disable(first):
                reasons.append(found := "TORCH_COMPILE_DISABLE is set")
            if name == "torch.compile" and any(k.arg == "fullgraph" and _ast_true(k.value) for k in node.keywords):
                sites.append(node)
        if found is not None and unsure is None and file.in_uncertain(node.lineno):  # type: ignore[attr-defined]
            unsure = node
    if reasons and sites:
        if unsure is not None:
            yield file.edit(unsure)
        why = "; ".join(dict.fromkeys(reasons))
        for site in sites:
            yield file.finding(site, _message(why))


PASS.analyse = analyser(PASS.id, detect, exact=True)


@PASS.uses
class FullgraphNoCompiledFrames(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self._reasons: list[str] = []
        self._sites: list[cst.Call] = []
        return True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and self.qualname(t) == "torch._dynamo.config.disable" and _true(node.value):
                self._reasons.append("torch._dynamo.config.disable = True")
            if isinstance(t, cst.Subscript) and self.qualname(t.value) == "os.environ" and len(t.slice) == 1:
                index = t.slice[0].slice
                if isinstance(index, cst.Index) and _names_compile_disable(index.value):
                    self._reasons.append("TORCH_COMPILE_DISABLE is set")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if any(self.qualname(base.value) in _DISPATCH_MODES for base in node.bases):
            self._reasons.append(f"the TorchDispatchMode {node.name.value} (Dynamo skips frames while it is active)")

    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualname(node.func)
        if name in ("os.environ.setdefault", "os.putenv") and node.args and _names_compile_disable(node.args[0].value):
            self._reasons.append("TORCH_COMPILE_DISABLE is set")
        if name == "torch.compile":
            fullgraph = kwarg(node, "fullgraph")
            if fullgraph is not None and _true(fullgraph.value):
                self._sites.append(node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self._reasons:
            why = "; ".join(dict.fromkeys(self._reasons))
            for site in self._sites:
                self.finding(site, _message(why))
        return super().leave_Module(original_node, updated_node)
