"""`nn.Softmax(dim=...)` / `nn.LogSoftmax(dim=...)` accept only an `int` (or `None`) from PyTorch 2.14.

## What it does
- A `dim` that is visibly a NumPy scalar — the result of a NumPy call such as `np.int64(1)` or `np.argmax(shape)` —
  is wrapped in `int(...)`.
- A literal `True` / `False` gets a finding: it never worked (2.13 failed at the first forward with
  `TypeError: softmax(): argument 'dim' (position 1) must be int, not bool`); 2.14 fails when the module is built.

Other expressions are left alone: a plain Python `int` is what 2.14 wants.

## Why
2.14 added `if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)): raise TypeError(...)` to both
constructors (2.14.1 `torch/nn/modules/activation.py:1811`, `:1898`). On 2.13 a NumPy integer `dim` worked (checked:
`nn.Softmax(dim=np.int64(1))` gives the same values as `dim=1`); on 2.14.1 it raises `TypeError: dim must be an int or
None, got <class 'numpy.int64'>`. `nn.Softmin` did not get the check.

## Fix safety
Safe: `int()` of a NumPy integer is the same dimension, and `nn.Softmax` stores it to pass it on unchanged.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import arg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="softmax-dim-int",
    release="2.14",
    since="1.8",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="nn.Softmax / nn.LogSoftmax(dim=<NumPy integer>) → dim=int(...); dim=<bool>: finding",
    evidence=(
        "torch 2.14.1 torch/nn/modules/activation.py:1811,1898 (TypeError for non-int dim); checked on 2.13.0 and 2.14.1"
        "; since 1.8: nn.Softmax / nn.LogSoftmax take an int dim on every release (torch 1.9.0 wheel, "
        "torch/nn/modules/activation.py:1246,1317)"
    ),
    examples=[
        Example(
            before="""
                import numpy as np
                import torch.nn as nn

                head = nn.Softmax(dim=np.int64(1))
                log_head = nn.LogSoftmax(np.argmax(shape))
            """,
            after="""
                import numpy as np
                import torch.nn as nn

                head = nn.Softmax(dim=int(np.int64(1)))
                log_head = nn.LogSoftmax(int(np.argmax(shape)))
            """,
        ),
        Example(
            title="a bool dim never worked: finding",
            before="""
                from torch import nn

                act = nn.Softmax(dim=True)
            """,
            findings=1,
        ),
        Unchanged(
            """
            import numpy as np
            import torch

            a = torch.nn.Softmax(dim=-1)
            b = torch.nn.Softmax(dim=axis)
            c = torch.nn.Softmin(dim=np.int64(1))
            d = np.Softmax(dim=np.int64(1))
            """,
            title="ints, unknown values, Softmin and look-alikes are left alone",
        ),
    ],
)


def _numpy_call(ctx: CallContext, node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Call):
        return False
    name = ctx.qualname_of(node.func)
    return name is not None and name.split(".")[0] == "numpy"


@PASS.rewrites_calls("torch.nn.Softmax", "torch.nn.LogSoftmax", "torch.nn.modules.activation.Softmax",
                     "torch.nn.modules.activation.LogSoftmax")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    dim = arg(call, 0, "dim")
    original = arg(ctx.original, 0, "dim")
    if dim is None or original is None:
        return None
    value = original.value
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        ctx.finding(
            f"{ctx.qualname.rpartition('.')[2]}(dim={value.value}): a bool dim never worked (2.13 failed at the first "
            "forward) and raises TypeError from 2.14: pass the int dimension you mean"
        )
        return None
    if not _numpy_call(ctx, value):
        return None
    ctx.message = f"{ctx.qualname.rpartition('.')[2]}: NumPy dim → int(dim) (2.14 accepts only int)"
    wrapped = cst.Call(func=cst.Name("int"), args=[cst.Arg(dim.value)])
    return call.with_changes(args=[a.with_changes(value=wrapped) if a is dim else a for a in call.args])
