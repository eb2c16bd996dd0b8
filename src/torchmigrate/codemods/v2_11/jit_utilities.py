"""The rest of TorchScript's Python API is deprecated from PyTorch 2.11: `fork`/`wait`, `freeze`, and friends.

## What it does
Reports (no edit) each call of `torch.jit.fork`, `torch.jit.wait`, `torch.jit.freeze`,
`torch.jit.optimize_for_inference`, `torch.jit.interface` and `torch.jit.trace_module`, each with the route away from
TorchScript. `trace`, `script`, `save` and `load` are the `jit-to-export` pass's (2.10); harmless helpers such as
`torch.jit.is_scripting()`, `torch.jit.annotate` and `torch.jit.Final` do not warn and are not reported.

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

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.transform import CallContext, PassTransformer

PASS = Pass(
    id="jit-utilities",
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
    ],
)

_ROUTES = {
    "fork": "in eager code call the function directly (or use Python threads); inside compiled code torch.compile "
    "schedules work itself",
    "wait": "pairs with torch.jit.fork: use the function's result directly",
    "freeze": "use torch.compile(model) (or torch.export + AOTInductor for deployment) instead of freezing a ScriptModule",
    "optimize_for_inference": "use torch.compile(model, mode='max-autotune') or torch.export + AOTInductor",
    "interface": "TorchScript interfaces have no torch.export equivalent: use ordinary Python classes (typing.Protocol)",
    "trace_module": "export each method with torch.export.export (wrap it in an nn.Module whose forward calls it)",
}


@PASS.uses
class JitUtilities(PassTransformer):
    def visit_Decorator(self, node: cst.Decorator) -> None:
        # `@torch.jit.interface` is used bare, as a class decorator (calls are handled by the call rewriter below).
        if self.qualname(node.decorator) == "torch.jit.interface":
            self.finding(node, f"torch.jit.interface is deprecated (TorchScript, warns since 2.11): {_ROUTES['interface']}")


@PASS.rewrites_calls(*(f"torch.jit.{name}" for name in _ROUTES))
def report(call: cst.Call, ctx: CallContext) -> None:
    name = ctx.qualname.rsplit(".", 1)[-1]
    ctx.finding(f"torch.jit.{name} is deprecated (TorchScript, warns since 2.11): {_ROUTES[name]}")
    return None
