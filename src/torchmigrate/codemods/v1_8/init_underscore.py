"""`nn.init.xavier_uniform` & co. and `nn.utils.clip_grad_norm` are deprecated: use the in-place names ending in `_`.

## What it does
Renames the eleven deprecated `torch.nn.init` functions (`uniform`, `normal`, `constant`, `eye`, `dirac`,
`xavier_uniform`, `xavier_normal`, `kaiming_uniform`, `kaiming_normal`, `orthogonal`, `sparse`) to their `_` forms,
and `torch.nn.utils.clip_grad_norm` to `clip_grad_norm_`, in calls, references and imports. `torch.normal`,
`np.random.normal` and functions of your own are different names and stay.

## Why
Deprecated since PyTorch 0.4; on torch 2.13 each old name is a wrapper that warns
(`FutureWarning: nn.init.xavier_uniform is now deprecated in favor of nn.init.xavier_uniform_.`,
`torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.`) and calls the new
function with the same arguments (torch/nn/init.py `_make_deprecate`, torch/nn/utils/clip_grad.py). torchmigrate
files changes older than its 1.8 floor under 1.8.

## Fix safety
Safe: the old names call the new functions with the same arguments and return their result (checked: same seeded
values, same returned norm).
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

INITS = (
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
)

PASS = Pass(
    id="init-underscore",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="nn.init.xavier_uniform & co. → xavier_uniform_; nn.utils.clip_grad_norm → clip_grad_norm_",
    evidence=(
        "deprecated since PyTorch 0.4; torch 2.13 torch/nn/init.py _make_deprecate and torch/nn/utils/clip_grad.py (FutureWarning, same call)"
        "; since 1.8: xavier_uniform_ & co. (torch 1.9.0 wheel, torch/nn/init.py:297)"
    ),
    renames={
        **{f"torch.nn.init.{name}": f"torch.nn.init.{name}_" for name in INITS},
        "torch.nn.utils.clip_grad_norm": "torch.nn.utils.clip_grad_norm_",
        "torch.nn.utils.clip_grad.clip_grad_norm": "torch.nn.utils.clip_grad.clip_grad_norm_",
    },
    examples=[
        Example(
            before="""
                import torch.nn as nn

                nn.init.xavier_uniform(layer.weight, gain=nn.init.calculate_gain("relu"))
                nn.init.constant(layer.bias, 0)
                nn.utils.clip_grad_norm(model.parameters(), 1.0)
            """,
            after="""
                import torch.nn as nn

                nn.init.xavier_uniform_(layer.weight, gain=nn.init.calculate_gain("relu"))
                nn.init.constant_(layer.bias, 0)
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            """,
        ),
        Example(
            title="from-imports",
            before="""
                from torch.nn.init import kaiming_normal, normal
                from torch.nn.utils import clip_grad_norm

                kaiming_normal(w, mode="fan_out")
                normal(b, std=0.01)
                norm = clip_grad_norm(params, max_norm=5)
            """,
            after="""
                from torch.nn.init import kaiming_normal_, normal_
                from torch.nn.utils import clip_grad_norm_

                kaiming_normal_(w, mode="fan_out")
                normal_(b, std=0.01)
                norm = clip_grad_norm_(params, max_norm=5)
            """,
        ),
        Example(
            title="look-alikes: torch.normal, numpy, the new names already",
            before="""
                import numpy as np
                import torch

                a = torch.normal(0.0, 1.0, size=(3,))
                b = np.random.normal(size=3)
                torch.nn.init.orthogonal_(w)
            """,
        ),
    ],
)
