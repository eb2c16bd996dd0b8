"""Opt-in: `torch.nn.utils.weight_norm` → `torch.nn.utils.parametrizations.weight_norm` (deprecated since 2.1).

## What it does
- `nn.utils.weight_norm(m, name, dim)` → `nn.utils.parametrizations.weight_norm(m, name, dim)` (same parameters);
- `nn.utils.remove_weight_norm(m, name="weight")` → `nn.utils.parametrize.remove_parametrizations(m, name)` (the name,
  optional before, is required now: `"weight"` is written out).
Runs only when selected: `migrate --select weight-norm`.

## Why
PyTorch 2.1 re-implemented weight normalisation on top of `torch.nn.utils.parametrize` and deprecated the old
hook-based function; torch 2.13 warns "`torch.nn.utils.weight_norm` is deprecated in favor of
`torch.nn.utils.parametrizations.weight_norm`." The old function still works, so this is a modernisation, not a fix.

## Fix safety
Review, and opt-in: the module's state-dict keys change — `weight_g` / `weight_v` become
`parametrizations.weight.original0` / `original1` — so checkpoints saved before the change no longer load with
`strict=True` (some projects keep the old form on purpose for that reason). Convert old checkpoints (rename the keys) or
keep the old call. `remove_weight_norm` must be migrated together with the `weight_norm` that applied it (a module
normalised the old way has no parametrization to remove), so migrate whole files or projects at once.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.helpers import bind, fix_commas
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="weight-norm",
    release="2.1",
    since="2.1",
    kind=DEPRECATION,
    safety=REVIEW,
    opt_in=True,
    title="nn.utils.weight_norm → nn.utils.parametrizations.weight_norm (state-dict keys change)",
    evidence=(
        "PyTorch 2.1 release notes (parametrizations.weight_norm; old weight_norm deprecated); FutureWarning and keys checked on torch 2.13"
        "; since 2.1: parametrizations.weight_norm (torch 2.1.2 wheel, torch/nn/utils/parametrizations.py)"
    ),
    renames={
        "torch.nn.utils.weight_norm": "torch.nn.utils.parametrizations.weight_norm",
        # the old submodule of the same name (its remove_weight_norm calls also get the name argument below)
        "torch.nn.utils.weight_norm.weight_norm": "torch.nn.utils.parametrizations.weight_norm",
        "torch.nn.utils.weight_norm.remove_weight_norm": "torch.nn.utils.parametrize.remove_parametrizations",
    },
    review_note="state-dict keys change from weight_g/weight_v to parametrizations.weight.original0/original1",
    examples=[
        Example(
            before="""
                import torch.nn as nn

                conv = nn.utils.weight_norm(nn.Conv1d(4, 4, 3))
            """,
            after="""
                import torch.nn as nn

                conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 4, 3))
            """,
        ),
        Example(
            title="from-imports; remove_weight_norm gets the name it now requires",
            before="""
                from torch.nn.utils import remove_weight_norm, weight_norm

                layer = weight_norm(layer, name='weight', dim=0)
                remove_weight_norm(layer)
            """,
            after="""
                from torch.nn.utils.parametrizations import weight_norm
                from torch.nn.utils.parametrize import remove_parametrizations

                layer = weight_norm(layer, name='weight', dim=0)
                remove_parametrizations(layer, "weight")
            """,
        ),
        Example(
            title="import torch as th; a non-default name is kept",
            before="""
                import torch as th

                th.nn.utils.remove_weight_norm(m, name='w')
            """,
            after="""
                import torch as th

                th.nn.utils.parametrize.remove_parametrizations(m, 'w')
            """,
        ),
        Example(
            title="from the old submodule",
            before="""
                from torch.nn.utils.weight_norm import remove_weight_norm, weight_norm

                remove_weight_norm(weight_norm(m))
            """,
            after="""
                from torch.nn.utils.parametrizations import weight_norm
                from torch.nn.utils.parametrize import remove_parametrizations

                remove_parametrizations(weight_norm(m), "weight")
            """,
        ),
        Example(
            title="look-alikes: spectral_norm, a method named weight_norm",
            before="""
                import torch

                m = torch.nn.utils.spectral_norm(m)
                self.weight_norm(x)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.nn.utils.remove_weight_norm", "torch.nn.utils.weight_norm.remove_weight_norm")
def rewrite_remove(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if any(a.star for a in call.args):
        ctx.finding("remove_weight_norm(*args/**kwargs): use torch.nn.utils.parametrize.remove_parametrizations(m, name)")
        return None
    bound = bind(call, ("module", "name"))
    module, name = bound.value("module"), bound.value("name")
    if module is None:
        return None
    args = [cst.Arg(module), cst.Arg(name if name is not None else cst.SimpleString('"weight"'))]
    ctx.message = "remove_weight_norm → parametrize.remove_parametrizations(m, name)"
    return call.with_changes(func=ctx.ref("torch.nn.utils.parametrize.remove_parametrizations"), args=fix_commas(args))
