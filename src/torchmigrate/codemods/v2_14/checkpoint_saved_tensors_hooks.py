"""Selective activation checkpointing under `saved_tensors_hooks` warns from PyTorch 2.14: choose the behaviour (finding).

## What it does
In files that use saved-tensors hooks (`torch.autograd.graph.saved_tensors_hooks`, `save_on_cpu`), reports each
`torch.utils.checkpoint.checkpoint(..., context_fn=...)` call — selective activation checkpointing (SAC) — that does
not pass `respect_saved_tensors_hooks=`.

## Why
Tensors that SAC keeps are cached outside the autograd graph, so the user's saved-tensors hooks never saw them. 2.14
adds `respect_saved_tensors_hooks: bool | None = None` to `checkpoint` (2.14.1 `torch/utils/checkpoint.py:432`) and,
when a hook is active around an SAC region and the argument is left at `None`, warns that "a future release will route
them through the hooks like any other saved tensor" (`FutureWarning`, `:1616-1627`). `False` keeps today's behaviour
(hooks bypassed), `True` opts into the future one.

## Fix safety
Finding only: which behaviour is right depends on the hook (offloading with `save_on_cpu` usually wants `True`), and
whether a hook is active around the call is decided at run time. The argument does not exist before 2.14.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="checkpoint-saved-tensors-hooks",
    release="2.14",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="checkpoint(context_fn=...) under saved_tensors_hooks: pass respect_saved_tensors_hooks= (finding)",
    evidence=(
        "torch 2.14.1 torch/utils/checkpoint.py:432 (new parameter), :1604-1627 (FutureWarning)"
        "; finding only: emits no new form"
    ),
    triggers=("context_fn",),
    call_filter=lambda call: any(k.arg == "context_fn" for k in call.keywords),
    sliceable=False,  # whether the file uses saved-tensors hooks is decided by statements that spell no trigger word
    examples=[
        Example(
            before="""
                import torch
                from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts

                with torch.autograd.graph.save_on_cpu():
                    y = checkpoint(block, x, use_reentrant=False, context_fn=lambda: create_selective_checkpoint_contexts(policy))
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch
            from torch.utils.checkpoint import checkpoint

            with torch.autograd.graph.save_on_cpu():
                y = checkpoint(block, x, use_reentrant=False, context_fn=sac, respect_saved_tensors_hooks=True)
            z = checkpoint(block, x, use_reentrant=False)
            """,
            title="the choice is made; plain checkpointing",
        ),
        Unchanged(
            """
            from torch.utils.checkpoint import checkpoint

            y = checkpoint(block, x, use_reentrant=False, context_fn=sac)
            """,
            title="a file without saved-tensors hooks",
        ),
    ],
)


@PASS.rewrites_calls("torch.utils.checkpoint.checkpoint")
def report(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if kwarg(call, "context_fn") is None or kwarg(call, "respect_saved_tensors_hooks") is not None:
        return None
    module = ctx.transformer.context.module
    code = module.code if module is not None else ""
    if "saved_tensors_hooks" not in code and "save_on_cpu" not in code:
        return None
    ctx.finding(
        "selective activation checkpointing in a file that uses saved-tensors hooks: from 2.14 this warns when a hook "
        "is active, and a future release routes SAC-saved tensors through the hooks; pass "
        "respect_saved_tensors_hooks=False to keep today's behaviour or True to opt in (new in 2.14)"
    )
    return None
