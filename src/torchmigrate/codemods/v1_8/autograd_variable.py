"""`torch.autograd.Variable` is deprecated since PyTorch 0.4: `Variable(x)` is `x.detach()`.

## What it does
| before | after |
|---|---|
| `Variable(x)` | `x.detach()` |
| `Variable(x, requires_grad=True)` / `Variable(x, True)` | `x.detach().requires_grad_()` |
| `Variable(x, requires_grad=flag)` | `x.detach().requires_grad_(flag)` |
| `Variable(torch.zeros(n))` (a new tensor from a torch factory) | `torch.zeros(n)` |
| `Variable(torch.zeros(n), requires_grad=True)` | `torch.zeros(n, requires_grad=True)` |
| `isinstance(v, Variable)` | `isinstance(v, torch.Tensor)` |

Every import form resolves (`from torch.autograd import Variable`, `torch.autograd.Variable`,
`from torch.autograd.variable import Variable`, `as` aliases); the import goes when nothing uses it any more.
Findings (what to write instead) for `volatile=` (it does nothing since 0.4: use `with torch.no_grad():`), `name=`
and other arguments, `*args` / `**kwargs`, and `Variable()` without data.

## Why
PyTorch 0.4 merged `Variable` into `Tensor` ("`Variable` wrapping continues to work as before but returns an object
of type `torch.Tensor`", 0.4.0 migration guide) and documents the API as deprecated. It still exists in 2.13, without
a warning: `torch/autograd/variable.py` defines `Variable` on `torch._C._LegacyVariableBase`, whose constructor
detaches its data and sets `requires_grad`; `volatile=True` warns "volatile was removed and now has no effect".
The change predates 1.8, the oldest release this tool knows, so the pass is filed under 1.8 and runs for every target.

## Fix safety
Safe: `Variable(x)` returns `x.detach()` — a new tensor sharing `x`'s storage and version counter, with no history and
`requires_grad=False` — not `x` itself, so the rewrite keeps the `.detach()` (dropping it would let gradients flow
through `x` where they did not). `requires_grad=r` sets the flag on that detached leaf, as `requires_grad_(r)` does
(both raise the same `RuntimeError` for integer tensors). Only for a new tensor made by a torch factory in the call
itself (`torch.zeros`, `torch.randn`, `torch.tensor`, `torch.from_numpy`, `*_like`, …, without `out=` or
`requires_grad=`) is the detach dropped: such a tensor has no history and nothing else refers to it. Legacy
constructors (`torch.FloatTensor(t)`) are not treated so: given a tensor they return an alias that keeps its history.
`isinstance(v, Variable)` is `isinstance(v, torch.Tensor)` by `VariableMeta.__instancecheck__`.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import bind, kwarg, method_call, with_kwarg
from torchmigrate.python.transform import CallContext, PassTransformer

VARIABLE = ("torch.autograd.Variable", "torch.autograd.variable.Variable")
# Factories whose result is a new leaf tensor nobody else refers to (no `out=`, no `requires_grad=True`): Variable() of
# it is the same tensor. `as_tensor` may return its argument itself and the legacy `torch.FloatTensor(t)` an alias of
# `t` with its history, so they are not here.
FRESH = frozenset(
    f"torch.{name}"
    for name in (
        "arange empty eye full linspace logspace ones rand randint randn randperm tensor zeros "
        "empty_like full_like ones_like rand_like randint_like randn_like zeros_like from_numpy"
    ).split()
)
NO_REQUIRES_GRAD_KWARG = frozenset({"torch.from_numpy"})

PASS = Pass(
    id="autograd-variable",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="Variable(x[, requires_grad=r]) → x.detach()[.requires_grad_(r)]",
    qualnames=frozenset(VARIABLE),
    evidence=(
        "PyTorch 0.4.0 migration guide (Tensor and Variable merged; volatile removed); torch 2.13.0 "
        "torch/autograd/variable.py (Variable on _LegacyVariableBase, VariableMeta.__instancecheck__); "
        "since 1.8: Tensor.detach and requires_grad_ exist in every release the tool knows"
    ),
    since="1.8",
    examples=[
        Example(
            title="wrapping an existing tensor keeps the detach",
            before="""
                import torch
                from torch.autograd import Variable

                inputs = Variable(batch.cuda())
                target = Variable(labels, requires_grad=False)
                h = Variable(hidden.data)
            """,
            after="""
                import torch

                inputs = batch.cuda().detach()
                target = labels.detach()
                h = hidden.data.detach()
            """,
        ),
        Example(
            title="requires_grad, by keyword or position; an expression as data",
            before="""
                import torch
                from torch.autograd import Variable

                w = Variable(init, requires_grad=True)
                b = Variable(bias0, True)
                z = Variable(a + b, requires_grad=train)
            """,
            after="""
                import torch

                w = init.detach().requires_grad_()
                b = bias0.detach().requires_grad_()
                z = (a + b).detach().requires_grad_(train)
            """,
        ),
        Example(
            title="a new tensor from a factory needs no detach",
            before="""
                import numpy as np
                import torch
                from torch.autograd import Variable

                h0 = Variable(torch.zeros(2, n, 16))
                c0 = Variable(torch.zeros(2, n, 16), requires_grad=True)
                x = Variable(torch.from_numpy(np.ones(3)), requires_grad=True)
                y = Variable(torch.FloatTensor(t))
            """,
            after="""
                import numpy as np
                import torch

                h0 = torch.zeros(2, n, 16)
                c0 = torch.zeros(2, n, 16, requires_grad=True)
                x = torch.from_numpy(np.ones(3)).requires_grad_()
                y = torch.FloatTensor(t).detach()
            """,
        ),
        Example(
            title="torch.autograd.Variable, an alias, isinstance",
            before="""
                import torch
                from torch.autograd import Variable as V

                v = torch.autograd.Variable(x)
                if isinstance(v, V):
                    u = V(v * 2)
            """,
            after="""
                import torch

                v = x.detach()
                if isinstance(v, torch.Tensor):
                    u = (v * 2).detach()
            """,
        ),
        Example(
            title="import torch as th; a nested Variable; isinstance with a tuple",
            before="""
                import torch as th
                from torch.autograd import Variable

                v = Variable(th.randn(3), requires_grad=True)
                w = th.autograd.Variable(Variable(v))
                ok = isinstance(w, (Variable, list))
            """,
            after="""
                import torch as th

                v = th.randn(3, requires_grad=True)
                w = v.detach().detach()
                ok = isinstance(w, (th.Tensor, list))
            """,
        ),
        Example(
            title="volatile (no effect since 0.4), name= and no data: findings",
            before="""
                from torch.autograd import Variable

                x = Variable(images, volatile=True)
                y = Variable(t, name="y")
                e = Variable()
            """,
            findings=3,
        ),
        Unchanged(
            """
            from mylib import Variable

            v = Variable(x)

            class Model:
                def run(self, x):
                    return self.Variable(x)
            """,
            title="look-alikes: another library's Variable, a method",
        ),
    ],
)


def _fresh_factory(ctx: CallContext, data: cst.BaseExpression) -> str | None:
    """The qualified name of the torch factory ``data`` calls, when its result is a new leaf nobody else holds."""
    original = _original_data(ctx)
    if not isinstance(data, cst.Call) or not isinstance(original, cst.Call):
        return None
    if not isinstance(original.func, cst.Name | cst.Attribute):
        return None
    name = ctx.qualname_of(original.func)
    if name not in FRESH or any(a.star for a in data.args):
        return None
    if kwarg(data, "out") is not None or kwarg(data, "requires_grad") is not None:
        return None
    return name


def _original_data(ctx: CallContext) -> cst.BaseExpression | None:
    found = bind(ctx.original, ("data", "requires_grad", "volatile")).value("data")
    return found


@PASS.rewrites_calls(*VARIABLE)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    bound = bind(call, ("data", "requires_grad", "volatile"))
    if bound.star:
        ctx.finding("Variable(*args/**kwargs): write x.detach() (and .requires_grad_(r) for requires_grad=r) instead")
        return None
    if "volatile" in bound:
        ctx.finding(
            "Variable(..., volatile=...) has had no effect since 0.4: compute under `with torch.no_grad():` and use "
            "x.detach() instead of Variable(x)"
        )
        return None
    if not bound.exact:
        ctx.finding("Variable(...) with other arguments (name=, _grad_fn=): write x.detach() instead and drop them")
        return None
    data = bound.value("data")
    if data is None:
        ctx.finding("Variable() without data is an empty tensor: write torch.empty(0) if that is meant")
        return None
    flag = bound.value("requires_grad")
    wants_grad: bool | None = False
    if flag is not None:
        wants_grad = {"True": True, "False": False}.get(flag.value) if isinstance(flag, cst.Name) else None
    factory = _fresh_factory(ctx, data)
    ctx.message = "Variable(x) → x.detach() (Variable returns a detached alias)"
    if factory is not None:
        ctx.message = "Variable(torch factory) → the factory's new tensor"
        if wants_grad is False:
            return data.with_changes(lpar=[], rpar=[]) if isinstance(data, cst.Call) else data
        if factory not in NO_REQUIRES_GRAD_KWARG:
            assert isinstance(data, cst.Call)
            value = flag if flag is not None else cst.Name("True")
            return with_kwarg(data, "requires_grad", value)
        return _requires_grad(data, wants_grad, flag)
    detached = method_call(data, "detach")
    if wants_grad is False:
        return detached
    return _requires_grad(detached, wants_grad, flag)


def _requires_grad(node: cst.BaseExpression, wants: bool | None, flag: cst.BaseExpression | None) -> cst.Call:
    if wants is True or flag is None:
        return method_call(node, "requires_grad_")
    return method_call(node, "requires_grad_", cst.Arg(flag))


@PASS.uses
class Variables(PassTransformer):
    """Call rewriting, plus ``isinstance(v, Variable)`` → ``isinstance(v, torch.Tensor)``."""

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node or not isinstance(original_node.func, cst.Name):
            return result
        if original_node.func.value != "isinstance" or len(original_node.args) != 2 or not self.allowed(original_node):
            return result
        if "isinstance" in self.global_names():  # the file binds a name isinstance of its own
            return result
        kinds = original_node.args[1].value
        targets = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        if not any(self._is_variable(t) for t in targets):
            return result
        self.edited(original_node, "isinstance(v, Variable) → isinstance(v, torch.Tensor) (Variable's own check)")
        self.drop_imports_of(original_node.args[1])
        tensor = self.ref("torch.Tensor")
        new_kinds = updated_node.args[1].value
        if isinstance(new_kinds, cst.Tuple) and isinstance(kinds, cst.Tuple):
            elements = [
                e.with_changes(value=tensor) if self._is_variable(o.value) else e
                for e, o in zip(new_kinds.elements, kinds.elements, strict=True)
            ]
            new_kinds = new_kinds.with_changes(elements=elements)
        else:
            new_kinds = tensor
        args = list(updated_node.args)
        args[1] = args[1].with_changes(value=new_kinds)
        return updated_node.with_changes(args=args)

    def _is_variable(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name | cst.Attribute) and self.qualname(node) in VARIABLE
