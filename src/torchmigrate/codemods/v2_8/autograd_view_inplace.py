"""A custom `autograd.Function` that modifies an input in place errors on views of leaves since PyTorch 2.8.

## What it does
Reports (no edit) each `ctx.mark_dirty(...)` call in `forward` / `setup_context` of a class deriving from
`torch.autograd.Function`: the declaration that the function modifies an input in place.

## Why
2.8 added the missing in-place-on-view check to custom Functions (release notes, BC-breaking, pytorch/pytorch#153094):
when the dirty input is a view of a leaf tensor that requires grad, `Function.apply` now raises `RuntimeError: a view
of a leaf Variable that requires grad is being used in an in-place operation.` (it silently leaked memory before).
Checked on torch 2.13: the release note's `Func` (`inp.add_(1); ctx.mark_dirty(inp)`) raises on `a.view_as(a)` of a
leaf and still works on views of non-leaf tensors; a forward that modifies its input without `mark_dirty` is not
affected by this check. `mark_dirty` is therefore the precise, visible marker; whether a caller passes such a view
is only known at run time, hence a finding.

## Fix safety
Finding only: make sure callers never pass a view of a leaf that requires grad (pass the leaf itself, clone the view,
or make the function out-of-place).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.transform import PassTransformer

FUNCTION_BASES = {"torch.autograd.Function", "torch.autograd.function.Function"}

PASS = Pass(
    id="autograd-view-inplace",
    release="2.8",
    since="1.8",
    safety=SAFE,
    kind=BEHAVIOUR,
    title="custom autograd.Function marking an input dirty: errors on views of leaves since 2.8 (finding)",
    evidence=(
        "PyTorch 2.8 release notes, BC-breaking (pytorch/pytorch#153094)"
        "; finding only: emits no new form"
    ),
    triggers=("mark_dirty",),
    examples=[
        Example(
            title="the release note's function",
            before="""
                import torch

                class Func(torch.autograd.Function):
                    @staticmethod
                    def forward(ctx, inp):
                        inp.add_(1)
                        ctx.mark_dirty(inp)
                        return inp

                    @staticmethod
                    def backward(ctx, gO):
                        return gO
            """,
            findings=1,
        ),
        Example(
            title="from-import of Function, setup_context style",
            before="""
                from torch.autograd import Function

                class AddOne(Function):
                    @staticmethod
                    def forward(x):
                        return x.add_(1)

                    @staticmethod
                    def setup_context(ctx, inputs, output):
                        ctx.mark_dirty(inputs[0])
            """,
            findings=1,
        ),
        Example(
            title="other classes with a mark_dirty method, and out-of-place functions, are not reported",
            before="""
                import torch

                class Cache:
                    def forward(self, ctx, x):
                        ctx.mark_dirty(x)

                class Double(torch.autograd.Function):
                    @staticmethod
                    def forward(ctx, x):
                        return x * 2
            """,
        ),
    ],
)


@PASS.uses
class MarkDirty(PassTransformer):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._in_function_class: list[tuple[bool, int]] = []  # (is an autograd.Function, method depth at entry)
        self._method: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = {self.qualname(b.value) for b in node.bases}
        self._in_function_class.append((bool(bases & FUNCTION_BASES), len(self._method)))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self._in_function_class.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._method.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._method.pop()
        return updated_node

    def visit_Call(self, node: cst.Call) -> None:
        if not self._in_function_class:
            return
        is_function, depth = self._in_function_class[-1]
        if not is_function or len(self._method) <= depth or self._method[depth] not in ("forward", "setup_context"):
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "mark_dirty":
            self.finding(
                node,
                "since 2.8 apply() raises RuntimeError when an input marked dirty is a view of a leaf that requires "
                "grad (it leaked memory before): make sure callers never pass such a view",
            )
