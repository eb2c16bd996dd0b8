"""`GreenContext.set_context()` / `pop_context()` are deprecated in PyTorch 2.14; `green_contexts.SUPPORTED` is gone (finding).

## What it does
In files that use `torch.cuda.green_contexts`, reports calls of `.set_context()` and `.pop_context()` (the context
stack API) and any reference to `torch.cuda.green_contexts.SUPPORTED`. The replacement has another shape (a stream
used as a context manager), so nothing is rewritten.

## Why
2.14 deprecates the stack API: "`GreenContext.set_context` and `GreenContext.pop_context` are deprecated. Please create
a stream with `GreenContext.Stream()` and use `torch.cuda.stream(stream)` instead." (`@deprecated(...,
category=FutureWarning)`, 2.14.1 `torch/cuda/green_contexts.py:29-33,308,337`). The module-level `SUPPORTED` flag of
2.13 (`torch/cuda/green_contexts.py:9,13`) is no longer defined.

## Fix safety
Finding only: `set_context()` … `pop_context()` brackets become `with torch.cuda.stream(ctx.Stream()):` around the
same code; for `SUPPORTED`, check `torch.cuda.is_available()` and handle the error `GreenContext.create` raises.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="green-context-stack",
    release="2.14",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="GreenContext.set_context()/pop_context() → torch.cuda.stream(ctx.Stream()); green_contexts.SUPPORTED gone (finding)",
    evidence=(
        "torch 2.14.1 torch/cuda/green_contexts.py:29-33,308,337; 2.13 torch/cuda/green_contexts.py:9,13 (SUPPORTED)"
        "; finding only: emits no new form"
    ),
    triggers=("set_context", "pop_context", "SUPPORTED"),
    examples=[
        Example(
            before="""
                from torch.cuda import green_contexts

                if green_contexts.SUPPORTED:
                    ctx = green_contexts.GreenContext.create(num_sms=16)
                    ctx.set_context()
                    y = model(x)
                    ctx.pop_context()
            """,
            findings=3,
        ),
        Unchanged(
            """
            import torch

            ctx = torch.cuda.green_contexts.GreenContext.create(num_sms=16)
            with torch.cuda.stream(ctx.Stream()):
                y = model(x)
            logger.set_context(run_id)
            """,
            title="the stream form; a file's other set_context",
        ),
        Unchanged("session.set_context(user)\nsession.pop_context()\n", title="files without green contexts"),
    ],
)


@PASS.uses
class GreenContextStack(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self._green = self.whole_text_has(lambda text: "green_contexts" in text or "GreenContext" in text)
        return self._green

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("set_context", "pop_context") and not node.args:
            if self.qualname(func) is None:
                self.finding(
                    node,
                    f"GreenContext.{func.attr.value}() is deprecated from 2.14: run the code under "
                    "`with torch.cuda.stream(ctx.Stream()):` instead of set_context() … pop_context()",
                )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.qualname(node) == "torch.cuda.green_contexts.SUPPORTED":
            self.finding(node, "torch.cuda.green_contexts.SUPPORTED is gone in 2.14: check torch.cuda.is_available() instead")

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "SUPPORTED" and self.qualname(node) == "torch.cuda.green_contexts.SUPPORTED":
            self.finding(node, "torch.cuda.green_contexts.SUPPORTED is gone in 2.14: check torch.cuda.is_available() instead")
