"""`torch.backends.cuda.sdp_kernel(...)` is deprecated since PyTorch 2.3: use `torch.nn.attention.sdpa_kernel([...])`.

## What it does
Turns the flag form into the list form, listing only the enabled backends, in the order the old function builds them:
`sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False)` →
`sdpa_kernel([SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION])`. Every flag defaults to `True` (`enable_flash`,
`enable_math`, `enable_mem_efficient`, `enable_cudnn`), so a flag that is not given counts as enabled. Flags may be
positional, in the old order.

## Why
PyTorch 2.3 added `torch.nn.attention.sdpa_kernel` and deprecated `torch.backends.cuda.sdp_kernel` with a FutureWarning
("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be removed. Please see
`torch.nn.attention.sdpa_kernel()` for the new context manager, with updated signature.").

## Fix safety
Safe: on torch 2.13 `sdp_kernel` itself builds exactly this list (flash, mem-efficient, math, cuDNN) and enters
`sdpa_kernel(backend_list)`. Only literal `True` / `False` flags are rewritten; a flag given by a variable (or
`**kwargs`) gets a finding, because the list cannot be known before the program runs.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import has_star_args
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="sdp-kernel",
    release="2.3",
    since="2.3",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.backends.cuda.sdp_kernel(flags) → torch.nn.attention.sdpa_kernel([backends])",
    evidence=(
        "PyTorch 2.3 release notes (torch.nn.attention.sdpa_kernel; sdp_kernel deprecated); FutureWarning and implementation checked on torch 2.13"
        "; since 2.3: torch.nn.attention.sdpa_kernel, and sdp_kernel builds the same backend list (torch 2.3.1 wheel, "
        "torch/backends/cuda/__init__.py:330)"
    ),
    examples=[
        Example(
            title="math only",
            before="""
                import torch

                with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False, enable_cudnn=False):
                    y = attn(q, k, v)
            """,
            after="""
                import torch

                with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
                    y = attn(q, k, v)
            """,
        ),
        Example(
            title="flags not given default to True; from-import",
            before="""
                from torch.backends.cuda import sdp_kernel

                with sdp_kernel(enable_math=False):
                    pass
            """,
            after="""
                from torch.nn.attention import SDPBackend, sdpa_kernel

                with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
                    pass
            """,
        ),
        Example(
            title="positional flags",
            before="""
                import torch as th

                ctx = th.backends.cuda.sdp_kernel(True, False, False, False)
            """,
            after="""
                import torch as th

                ctx = th.nn.attention.sdpa_kernel([th.nn.attention.SDPBackend.FLASH_ATTENTION])
            """,
        ),
        Example(
            title="a flag from a variable: finding",
            before="""
                import torch

                with torch.backends.cuda.sdp_kernel(enable_flash=use_flash):
                    pass
            """,
            findings=1,
        ),
        Example(
            title="look-alikes",
            before="""
                import mylib

                with mylib.sdp_kernel(enable_flash=False):
                    pass
            """,
        ),
    ],
)

# The old parameters in order, and the backend each enables (in the order sdp_kernel appends them).
_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
_BACKENDS = (
    ("enable_flash", "FLASH_ATTENTION"),
    ("enable_mem_efficient", "EFFICIENT_ATTENTION"),
    ("enable_math", "MATH"),
    ("enable_cudnn", "CUDNN_ATTENTION"),
)


@PASS.rewrites_calls("torch.backends.cuda.sdp_kernel")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if has_star_args(call):
        ctx.finding("sdp_kernel(*args/**kwargs): list the enabled backends in torch.nn.attention.sdpa_kernel([...]) by hand")
        return None
    values: dict[str, bool] = dict.fromkeys(_FLAGS, True)
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > len(_FLAGS):
        return None
    given = list(zip(_FLAGS, positional, strict=False))
    given += [(a.keyword.value, a) for a in call.args if a.keyword is not None]
    for name, a in given:
        if name not in values:
            return None
        if not (isinstance(a.value, cst.Name) and a.value.value in ("True", "False")):
            ctx.finding(
                f"sdp_kernel({name}=<not a literal>): the backend list depends on a runtime value; write "
                "torch.nn.attention.sdpa_kernel([...]) listing the enabled SDPBackend members yourself"
            )
            return None
        values[name] = a.value.value == "True"
    backend = ctx.transformer.ref("torch.nn.attention.SDPBackend", like=ctx.original.func)
    elements = [cst.Element(cst.Attribute(value=backend, attr=cst.Name(member))) for flag, member in _BACKENDS if values[flag]]
    elements = [
        e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if i < len(elements) - 1 else e
        for i, e in enumerate(elements)
    ]
    ctx.message = "sdp_kernel(flags) → sdpa_kernel([enabled backends])"
    return cst.Call(func=ctx.ref("torch.nn.attention.sdpa_kernel"), args=[cst.Arg(cst.List(elements))])
