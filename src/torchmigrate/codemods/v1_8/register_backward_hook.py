"""`Module.register_backward_hook` is deprecated: use `register_full_backward_hook`.

## What it does
`module.register_backward_hook(hook)` → `module.register_full_backward_hook(hook)`, on any receiver (no other
library of note has a method of that name) but `self` in a class that does not visibly subclass a `torch.nn` class
(there it may be a method of its own); `_register_backward_hook` and `Tensor.register_hook` are different names and
stay.

## Why
1.8 added `register_full_backward_hook` and deprecated the old method ("This function is deprecated in favor of
`register_full_backward_hook` and the behavior of this function will change in future versions", torch 2.13
`torch/nn/modules/module.py`). On torch 2.13 a module whose forward builds more than one autograd node warns
`FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and
will be removed in future versions.` at backward time. torchmigrate files changes older than its 1.8 floor under 1.8.

## Fix safety
Review: `grad_output` is the same, but `grad_input` changes meaning — the old hook received the gradients of the
inputs of the *last autograd node* of the forward (for `nn.Linear`: bias, input and weight gradients), the full hook
receives the gradients of the *module's inputs* (one per positional tensor argument). Hooks that only read
`grad_output`, or return `None`, keep working; check hooks that index or replace `grad_input`. Full hooks also
cannot be combined with in-place changes of the module's inputs or outputs.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="register-backward-hook",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=REVIEW,
    title="module.register_backward_hook → register_full_backward_hook (grad_input changes meaning)",
    evidence=(
        "PyTorch 1.8 (register_full_backward_hook added); torch 2.13 torch/nn/modules/module.py docstring and FutureWarning; grad_input difference checked on torch 2.13"
        "; since 1.8: register_full_backward_hook (torch 1.9.0 wheel, torch/nn/modules/module.py)"
    ),
    review_note="grad_input becomes the gradients of the module's inputs (not of the last autograd node's inputs)",
    triggers=("register_backward_hook",),
    examples=[
        Example(
            before="""
                handle = model.encoder.register_backward_hook(save_grad)
            """,
            after="""
                handle = model.encoder.register_full_backward_hook(save_grad)
            """,
        ),
        Example(
            title="on self, inside a module",
            before="""
                import torch


                class Tracked(torch.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.register_backward_hook(self._hook)
            """,
            after="""
                import torch


                class Tracked(torch.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.register_full_backward_hook(self._hook)
            """,
        ),
        Example(
            title="look-alikes: the private method, tensor hooks, the new name, self of a class that is no module",
            before="""
                model._register_backward_hook = lambda *a: None
                t.register_hook(fn)
                m.register_full_backward_hook(fn)


                class Registry:
                    def add(self, fn):
                        self.register_backward_hook(fn)
            """,
        ),
    ],
)


@PASS.uses
class FullBackwardHook(PassTransformer):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._modules: list[bool] = []  # per enclosing class: does it subclass a torch.nn class?

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._modules.append(any((self.qualname(base.value) or "").startswith("torch.nn.") for base in node.bases))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self._modules.pop()
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "register_backward_hook"):
            return updated_node
        if isinstance(func.value, cst.Name) and func.value.value == "self" and not (self._modules and self._modules[-1]):
            return updated_node  # `self` of a class that is not visibly an nn.Module: a method of its own
        if not self.allowed(original_node):
            return updated_node
        self.edited(original_node, "register_backward_hook → register_full_backward_hook (review grad_input)")
        return updated_node.with_changes(func=func.with_changes(attr=cst.Name("register_full_backward_hook")))
