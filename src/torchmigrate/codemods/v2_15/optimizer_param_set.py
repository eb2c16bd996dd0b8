"""Optimizers warn from PyTorch 2.15 when their parameters come in a `set`: pass a list.

## What it does
Wraps a `params` argument of a `torch.optim` optimizer (`SGD`, `Adam`, `AdamW`, … and the `Optimizer` base) that is
visibly a set — a set display `{a, b}`, a set comprehension or a `set(...)` call — in `list(...)`:
`torch.optim.SGD({w, b}, lr=0.1)` → `torch.optim.SGD(list({w, b}), lr=0.1)`. The migrated code keeps the set's
de-duplication and its order in this run; a finding says to replace it by an ordered collection (the order of a set
of tensors changes between runs, and with it the order of the optimizer's `state_dict`).

## Why
2.15's `Optimizer.__init__` warns "optimizer parameters need to be organized in ordered collections, but the ordering
of tensors in sets will change between runs. Please use a list instead. This will be an error in a future release."
(`FutureWarning`, 2.15.0 `torch/optim/optimizer.py:423-430`). Parameter groups given as sets were already a
`TypeError` (2.13 `torch/optim/optimizer.py:1119`).

## Fix safety
Safe: the constructor's next step is `param_groups = list(params)` (2.15.0 `torch/optim/optimizer.py:435`, the same
on 2.13), so `list(s)` gives it exactly the list it built from the set itself. Every built-in optimizer passes `params`
to that constructor unchanged. Writing a deterministic order instead is the maintainer's call (the finding).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import arg
from torchmigrate.python.transform import CallContext

OPTIMIZERS = (
    "Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "Muon", "NAdam", "Optimizer",
    "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam",
)

PASS = Pass(
    id="optimizer-param-set",
    release="2.15",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.optim.X({params...}) → torch.optim.X(list({params...})) (a set warns from 2.15)",
    evidence=(
        "torch 2.15.0 torch/optim/optimizer.py:423-430 (FutureWarning), :435 (param_groups = list(params)); torch/optim/__init__.py"
        "; since 1.8: Optimizer takes a list of parameters on every release and itself runs list(params) on "
        "what it gets (torch 1.9.0 wheel, torch/optim/optimizer.py:47)"
    ),
    examples=[
        Example(
            before="""
                import torch

                opt = torch.optim.SGD({w, b}, lr=0.1)
                opt2 = torch.optim.AdamW(params=set(model.parameters()) - frozen, lr=1e-3)
                opt3 = torch.optim.Adam({p for m in mods for p in m.parameters()})
            """,
            after="""
                import torch

                opt = torch.optim.SGD(list({w, b}), lr=0.1)
                opt2 = torch.optim.AdamW(params=list(set(model.parameters()) - frozen), lr=1e-3)
                opt3 = torch.optim.Adam(list({p for m in mods for p in m.parameters()}))
            """,
            findings=3,
        ),
        Example(
            title="from-import",
            before="""
                from torch.optim import Adam as A

                opt = A(set(params))
            """,
            after="""
                from torch.optim import Adam as A

                opt = A(list(set(params)))
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch

            opt = torch.optim.SGD([w, b], lr=0.1)
            opt2 = torch.optim.Adam(model.parameters())
            other = mylib.SGD({w, b})
            """,
            title="ordered parameters; another library's optimizer",
        ),
    ],
)


def _set_valued(node: cst.BaseExpression) -> bool:
    """Visibly a set: a display, a comprehension, ``set(...)``, or set algebra on one of those."""
    if isinstance(node, (cst.Set, cst.SetComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "set":
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Subtract, cst.BitOr, cst.BitAnd, cst.BitXor)):
        return _set_valued(node.left) or _set_valued(node.right)
    return False


@PASS.rewrites_calls(*(f"torch.optim.{name}" for name in OPTIMIZERS), "torch.optim.optimizer.Optimizer")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    params = arg(call, 0, "params")
    if params is None or not _set_valued(params.value):
        return None
    ctx.finding(
        "optimizer parameters given as a set: their order (and the state_dict's) changes between runs; "
        "list(...) keeps today's behaviour, an ordered collection (model.parameters(), a list) makes it reproducible"
    )
    ctx.message = f"{ctx.qualname.rpartition('.')[2]}: set of parameters → list(...) (a set warns from 2.15)"
    wrapped = cst.Call(func=cst.Name("list"), args=[cst.Arg(params.value)])
    return call.with_changes(args=[a.with_changes(value=wrapped) if a is params else a for a in call.args])
