"""`flex_attention(return_lse=...)` is deprecated since PyTorch 2.9: use `return_aux=AuxRequest(lse=True)`.

## What it does
- `return_lse=False` (the default) is dropped;
- `return_lse=True` (or a value that is not a literal, or `return_lse` passed by position) gets a finding: the call
  then returns `(out, AuxOutput)` instead of `(out, lse)`, so the code that unpacks the result changes too.

## Why
2.9 added `return_aux` / `AuxRequest` and deprecated `return_lse` (the 2.9 wheel's
`torch/nn/attention/flex_attention.py`; 2.8 has neither the parameter nor the warning). torch 2.13 still accepts it
with a warning ("return_lse is deprecated and will be removed in v2.10. Please use return_aux=AuxRequest(lse=True)").

## Fix safety
Safe for the edit it makes: `return_lse=False` is the default. For `True`, write
`out, aux = flex_attention(q, k, v, return_aux=AuxRequest(lse=True))` and use `aux.lse`
(`from torch.nn.attention.flex_attention import AuxRequest`).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, with_args
from torchmigrate.python.transform import CallContext

PARAMS = ("query", "key", "value", "score_mod", "block_mask", "scale", "enable_gqa", "return_lse", "kernel_options")

PASS = Pass(
    id="flex-return-lse",
    release="2.9",
    kind=DEPRECATION,
    safety=SAFE,
    since="1.8",  # dropping the default works wherever flex_attention exists
    title="flex_attention(return_lse=...) → return_aux=AuxRequest(lse=True) (False dropped; True a finding)",
    evidence=(
        "2.9 wheel torch/nn/attention/flex_attention.py (return_aux, AuxRequest; return_lse deprecated); warning checked on torch 2.13"
        "; since 1.8: the call without return_lse=False runs wherever flex_attention exists"
    ),
    triggers=("return_lse",),
    examples=[
        Example(
            before="""
                from torch.nn.attention.flex_attention import flex_attention

                out = flex_attention(q, k, v, block_mask=mask, return_lse=False)
            """,
            after="""
                from torch.nn.attention.flex_attention import flex_attention

                out = flex_attention(q, k, v, block_mask=mask)
            """,
        ),
        Example(
            title="return_lse=True: the result's shape changes, finding",
            before="""
                import torch.nn.attention.flex_attention as fa

                out, lse = fa.flex_attention(q, k, v, return_lse=True)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: return_aux already, another library's flex_attention",
            before="""
                from torch.nn.attention.flex_attention import AuxRequest, flex_attention
                from mylib import flex_attention as my_flex

                out, aux = flex_attention(q, k, v, return_aux=AuxRequest(lse=True))
                o2 = my_flex(q, k, v, return_lse=True)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.nn.attention.flex_attention.flex_attention")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    bound = bind(call, PARAMS)
    lse = bound.get("return_lse")
    if lse is None:
        return None
    if lse.keyword is None or not (isinstance(lse.value, cst.Name) and lse.value.value == "False"):
        ctx.finding(
            "flex_attention(return_lse=...) is deprecated since 2.9: pass return_aux=AuxRequest(lse=True) "
            "(from torch.nn.attention.flex_attention import AuxRequest); the call then returns (out, aux) and the "
            "log-sum-exp is aux.lse"
        )
        return None
    ctx.message = "flex_attention: return_lse=False dropped (the default; return_lse is deprecated since 2.9)"
    return with_args(call, [a for a in call.args if a is not lse])
