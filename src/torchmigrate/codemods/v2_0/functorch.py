"""`functorch` was folded into PyTorch 2.0 as `torch.func`: `functorch.vmap` → `torch.func.vmap` and friends.

## What it does
Renames `functorch.vmap`, `grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian` and `functionalize`
to their `torch.func` namesakes (imports included: `from functorch import vmap` → `from torch.func import vmap`), and
`torch.nn.utils.stateless.functional_call` → `torch.func.functional_call` (its second parameter was renamed from
`parameters_and_buffers` to `parameter_and_buffer_dicts`; a keyword argument follows). `functorch.make_functional`,
`make_functional_with_buffers` and `combine_state_for_ensemble` have no drop-in replacement: finding.

## Why
PyTorch 2.0 release notes: functorch became `torch.func`, and the `functorch.*` transforms are deprecated wrappers
that warn with a FutureWarning ("`functorch.vmap` is deprecated as of PyTorch 2.0 … Please use `torch.vmap` instead").
`torch.nn.utils.stateless.functional_call` warns likewise ("… is deprecated as of PyTorch 2.0 …").

## Fix safety
Safe: on torch 2.13 every `functorch.X` above only warns and calls `torch._functorch` with the same arguments as
`torch.func.X` (same signatures, checked with `inspect.signature`), and `stateless.functional_call` forwards to
`torch.func.functional_call`.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.renames import RenameTransformer

TRANSFORMS = ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functionalize")
_NO_DROP_IN = {
    "functorch.make_functional": "torch.func.functional_call with a dict of the module's parameters",
    "functorch.make_functional_with_buffers": "torch.func.functional_call with dicts of parameters and buffers",
    "functorch.combine_state_for_ensemble": "torch.func.stack_module_state plus torch.func.functional_call",
}

PASS = Pass(
    id="functorch",
    release="2.0",
    since="2.0",
    kind=DEPRECATION,
    safety=SAFE,
    title="functorch.vmap/grad/vjp/jvp/jacrev/jacfwd/hessian/functionalize → torch.func.*; stateless.functional_call → torch.func",
    evidence=(
        "PyTorch 2.0 release notes (functorch → torch.func); FutureWarnings and signatures checked on torch 2.13"
        "; since 2.0: torch.func (torch 2.0.1 wheel, torch/func/__init__.py)"
    ),
    triggers=("functorch", "functional_call"),
    qualnames=frozenset({"torch.nn.utils.stateless.functional_call", *_NO_DROP_IN}),  # besides the renames
    renames={
        **{f"functorch.{name}": f"torch.func.{name}" for name in TRANSFORMS},
        "torch.nn.utils.stateless.functional_call": "torch.func.functional_call",
    },
    examples=[
        Example(
            before="""
                from functorch import grad, vmap

                per_sample = vmap(grad(loss_fn), in_dims=(None, 0))
            """,
            after="""
                from torch.func import grad, vmap

                per_sample = vmap(grad(loss_fn), in_dims=(None, 0))
            """,
        ),
        Example(
            title="import functorch, with import torch present",
            before="""
                import functorch
                import torch

                j = functorch.jacrev(f)(x)
            """,
            after="""
                import torch

                j = torch.func.jacrev(f)(x)
            """,
        ),
        Example(
            title="stateless.functional_call with the old keyword",
            before="""
                import torch

                out = torch.nn.utils.stateless.functional_call(model, parameters_and_buffers=params, args=(x,))
            """,
            after="""
                import torch

                out = torch.func.functional_call(model, parameter_and_buffer_dicts=params, args=(x,))
            """,
        ),
        Example(
            title="from torch.nn.utils.stateless import functional_call",
            before="""
                from torch.nn.utils.stateless import functional_call

                out = functional_call(m, p, (x,))
            """,
            after="""
                from torch.func import functional_call

                out = functional_call(m, p, (x,))
            """,
        ),
        Example(
            title="make_functional has no drop-in replacement: finding",
            before="""
                import functorch

                fmodel, params = functorch.make_functional(model)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: torch.vmap, a user vmap",
            before="""
                import torch
                from mylib import vmap

                a = torch.vmap(f)
                b = vmap(f)
            """,
        ),
    ],
)


class FunctorchRenames(RenameTransformer):
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = self.qualname(original_node.func)
        if name == "torch.nn.utils.stateless.functional_call" and self.allowed(original_node):
            old = kwarg(updated_node, "parameters_and_buffers")
            if old is not None:
                args = [
                    a.with_changes(keyword=cst.Name("parameter_and_buffer_dicts")) if a is old else a for a in updated_node.args
                ]
                self.edited(original_node, "functional_call(parameters_and_buffers=) → parameter_and_buffer_dicts=")
                updated_node = updated_node.with_changes(args=args)
        return super().leave_Call(original_node, updated_node)

    def _no_drop_in(self, node: cst.BaseExpression) -> None:
        name = self.qualname(node)
        if name not in _NO_DROP_IN or not self.allowed(node):
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.ImportAlias, cst.Attribute)):
            return
        self.finding(
            node,
            f"{name} is deprecated since PyTorch 2.0 and has no drop-in replacement: use {_NO_DROP_IN[name]} "
            "(see the torch.func migration guide)",
        )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._no_drop_in(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._no_drop_in(node)


PASS.uses(FunctorchRenames)
