"""The rest of TorchScript's Python API is deprecated from PyTorch 2.11: `fork`/`wait`, `freeze`, and friends.

## What it does
Reports (no edit) each call of `torch.jit.fork`, `torch.jit.wait`, `torch.jit.freeze`,
`torch.jit.optimize_for_inference`, `torch.jit.interface` and `torch.jit.trace_module`, each with the route away from
TorchScript. `trace`, `script`, `save` and `load` are the `jit-to-export` pass's (2.10); harmless helpers such as
`torch.jit.is_scripting()`, `torch.jit.annotate` and `torch.jit.Final` do not warn and are not reported. Like
`jit-to-export`, it says nothing where TorchScript is the file's purpose: test modules and files that patch, tune or
extend TorchScript. Decided from the stdlib `ast` alone: the pass never needs libcst.

## Why
TorchScript is deprecated (pytorch/pytorch#167669, PyTorch 2.10 release notes); from 2.11 these functions warn too.
On torch 2.13.0 each call emits a `DeprecationWarning` such as "`torch.jit.fork` is deprecated. Please use
`torch.compile` instead." (`trace_module` warns through `torch.jit.trace_method`).

## Fix safety
Finding only: each of these works on scripted code or changes how work is scheduled, so the replacement depends on what
the code is for — `torch.compile` for speed (freeze / optimize_for_inference), plain calls or Python concurrency for
`fork`/`wait` in eager code, `torch.export.export` per method instead of `trace_module`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchmigrate.codemods.v2_10.jit_to_export.context import on_purpose
from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.core.results import Finding
from torchmigrate.python.astscope import names_of, span

ID = "jit-utilities"

_ROUTES = {
    "fork": "in eager code call the function directly (or use Python threads); inside compiled code torch.compile "
    "schedules work itself",
    "wait": "pairs with torch.jit.fork: use the function's result directly",
    "freeze": "use torch.compile(model) (or torch.export + AOTInductor for deployment) instead of freezing a ScriptModule",
    "optimize_for_inference": "use torch.compile(model, mode='max-autotune') or torch.export + AOTInductor",
    "interface": "TorchScript interfaces have no torch.export equivalent: use ordinary Python classes (typing.Protocol)",
    "trace_module": "export each method with torch.export.export (wrap it in an nn.Module whose forward calls it)",
}
TARGETS = {f"torch.jit.{name}": name for name in _ROUTES}


@dataclass(frozen=True)
class Findings:
    """The plan of a pass that only reports (see ``Pass.analyse``)."""

    findings: tuple[Finding, ...] = ()

    @property
    def has_edits(self) -> bool:
        return False


def analyse(text: str, tree: ast.Module) -> Findings:
    names = names_of(tree, text)
    if on_purpose(tree, names) is not None:
        return Findings()
    found: list[Finding] = []
    for node, qualname in names.rooted("torch"):
        name = TARGETS.get(qualname)
        if name is None or names.guarded(node):
            continue
        parent = names.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            line, col = span(parent, names).start
            found.append(Finding(line, col + 1, ID, _message(name)))
        elif isinstance(parent, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
            line, col = span(node, names).start  # `@torch.jit.interface`, used bare: at its `@`
            found.append(Finding(line, names.columns.lines[line - 1].rfind("@", 0, col) + 1, ID, _message(name)))
    return Findings(tuple(found))


def _message(name: str) -> str:
    return f"torch.jit.{name} is deprecated (TorchScript, warns since 2.11): {_ROUTES[name]}"


PASS = Pass(
    id=ID,
    release="2.11",
    since="1.8",
    kind=DEPRECATION,
    safety=REVIEW,
    title="torch.jit.fork/wait/freeze/optimize_for_inference/interface/trace_module (findings)",
    evidence=(
        "PyTorch 2.10 release notes (TorchScript deprecation, pytorch/pytorch#167669); warnings checked on torch 2.13.0"
        "; finding only: emits no new form"
    ),
    triggers=("jit",),
    qualnames=frozenset(TARGETS),
    analyse=analyse,
    examples=[
        Example(
            before="""
                import torch

                fut = torch.jit.fork(work, x)
                y = torch.jit.wait(fut)
            """,
            findings=2,
        ),
        Example(
            title="freeze through `from torch import jit`",
            before="""
                from torch import jit

                frozen = jit.freeze(scripted.eval())
            """,
            findings=1,
        ),
        Example(
            title="interface decorator",
            before="""
                import torch

                @torch.jit.interface
                class Encoder(torch.nn.Module):
                    def forward(self, x): ...
            """,
            findings=1,
        ),
        Example(
            title="helpers that do not warn are not reported",
            before="""
                import torch

                if torch.jit.is_scripting():
                    pass
                n = torch.jit.annotate(int, 3)
            """,
        ),
        Example(
            title="a test of TorchScript support is not reported",
            before="""
                import torch


                def test_fork():
                    assert torch.jit.wait(torch.jit.fork(torch.neg, torch.ones(1))).item() == -1
            """,
        ),
    ],
)
