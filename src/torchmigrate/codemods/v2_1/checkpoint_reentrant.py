"""`torch.utils.checkpoint.checkpoint` warns since PyTorch 2.1 unless `use_reentrant` is passed: pass it.

## What it does
Adds `use_reentrant=True` — the value torch uses when none is given — to `checkpoint(fn, *args)` and
`checkpoint_sequential(functions, segments, input)` calls that do not pass it (`from torch.utils.checkpoint import
checkpoint as ckpt` and other aliases included). A call with `**kwargs` may already carry it: finding. A call that passes
`context_fn=` or `debug=` without `use_reentrant` raises a ValueError today (those need `use_reentrant=False`): finding.

## Why
PyTorch 2.1 made omitting `use_reentrant` a warning (pytorch/pytorch#100551: "To preserve the existing behavior you
can pass in use_reentrant=True. It is recommended that you use use_reentrant=False."). On torch 2.13 the warning is a
UserWarning that announces an exception "starting in PyTorch 2.9" which has not happened: the default is still `True`.

## Fix safety
Safe: `use_reentrant=True` is exactly what the call did. `use_reentrant=False` is what PyTorch recommends (it supports
keyword arguments, `torch.autograd.grad`, and inputs that do not require grad) but it can change memory use and
behaviour with hooks or in-place ops, so switching is left to you: review it after this pass.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg, with_kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import CallContext

_CHECKPOINTS = frozenset({"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"})
_UNKNOWN = "checkpoint(..., **kwargs): cannot tell whether use_reentrant is among them; pass it explicitly"
_CONTEXT = "checkpoint(context_fn=/debug=) without use_reentrant raises ValueError: these need use_reentrant=False"


def _may_lack_use_reentrant(call: ast.Call) -> bool:
    """Precheck: a call that passes ``use_reentrant=`` by keyword needs nothing (see ``rewrite`` below)."""
    return not any(keyword.arg == "use_reentrant" for keyword in call.keywords)


PASS = Pass(
    call_filter=_may_lack_use_reentrant,
    id="checkpoint-reentrant",
    follows_uses="bound",  # **kwargs dicts' changes (star_keys)
    release="2.1",
    since="2.0",
    kind=DEPRECATION,
    safety=SAFE,
    title="checkpoint(fn, x) → checkpoint(fn, x, use_reentrant=True) (the implicit default, made explicit)",
    evidence=(
        "PyTorch 2.1 release notes (deprecation: pytorch/pytorch#100551); warning and default checked on torch 2.13"
        "; since 2.0: checkpoint_sequential takes use_reentrant from 2.0 (torch 2.0.1 wheel, "
        "torch/utils/checkpoint.py:259; 1.13 raised ValueError for it), checkpoint from 1.11"
    ),
    review_note="use_reentrant=False is recommended by PyTorch; switch after checking hooks, in-place ops and memory",
    examples=[
        Example(
            before="""
                import torch.utils.checkpoint

                y = torch.utils.checkpoint.checkpoint(block, x, mask)
            """,
            after="""
                import torch.utils.checkpoint

                y = torch.utils.checkpoint.checkpoint(block, x, mask, use_reentrant=True)
            """,
        ),
        Example(
            title="alias, preserve_rng_state kept",
            before="""
                from torch.utils.checkpoint import checkpoint as ckpt

                y = ckpt(self.layer, x, preserve_rng_state=False)
            """,
            after="""
                from torch.utils.checkpoint import checkpoint as ckpt

                y = ckpt(self.layer, x, preserve_rng_state=False, use_reentrant=True)
            """,
        ),
        Example(
            title="checkpoint_sequential",
            before="""
                from torch.utils.checkpoint import checkpoint_sequential

                y = checkpoint_sequential(model, 2, x)
            """,
            after="""
                from torch.utils.checkpoint import checkpoint_sequential

                y = checkpoint_sequential(model, 2, x, use_reentrant=True)
            """,
        ),
        Example(
            title="already explicit (keyword or the 4th positional of checkpoint_sequential): unchanged",
            before="""
                from torch.utils.checkpoint import checkpoint, checkpoint_sequential

                a = checkpoint(f, x, use_reentrant=False)
                b = checkpoint_sequential(m, 2, x, False)
            """,
        ),
        Example(
            title="**kwargs: finding",
            before="""
                from torch.utils.checkpoint import checkpoint

                y = checkpoint(f, x, **ckpt_kwargs)
            """,
            findings=1,
        ),
        Example(
            title="a wrapper's *args and **kwargs parameters: finding",
            before="""
                from torch.utils.checkpoint import checkpoint
                def run(fn, *args, **kwargs):
                    return checkpoint(fn, *args, **kwargs)
            """,
            findings=1,
        ),
        Example(
            title="a **kwargs parameter that the function gives use_reentrant: nothing to say",
            before="""
                from torch.utils.checkpoint import checkpoint
                def run(fn, x, **kwargs):
                    kwargs.setdefault("use_reentrant", False)
                    return checkpoint(fn, x, **kwargs)
            """,
        ),
        Example(
            title="**kwargs built in the same function with use_reentrant: passed, nothing to say",
            before="""
                from torch.utils.checkpoint import checkpoint


                def forward(self, x):
                    ckpt_kwargs = {"use_reentrant": False} if self.training else {}
                    ckpt_kwargs = {"preserve_rng_state": True}
                    ckpt_kwargs["use_reentrant"] = False
                    return checkpoint(self.block, x, **ckpt_kwargs)
            """,
        ),
        Example(
            title="look-alikes: deepspeed, a method",
            before="""
                import deepspeed

                y = deepspeed.checkpointing.checkpoint(f, x)
                z = self.checkpoint(f, x)
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    if kwarg(call, "use_reentrant") is not None:
        return None
    sequential = ctx.qualname.endswith("_sequential")
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if sequential and len(positional) >= 4:
        return None
    if any(a.star == "**" for a in call.args):
        keys = ctx.star_keys()
        if keys.sets("use_reentrant"):
            return None  # the **kwargs dict built above passes it
        if keys.complete:
            ctx.finding("checkpoint(..., **kwargs): the dict does not set use_reentrant; add use_reentrant=True to it")
        else:
            ctx.finding(_UNKNOWN)
        return None
    if kwarg(call, "context_fn") is not None or kwarg(call, "debug") is not None:
        ctx.finding(_CONTEXT)
        return None
    ctx.message = "use_reentrant=True (the implicit default) made explicit; False is recommended"
    return with_kwarg(call, "use_reentrant", "True")


def detect(file: AstFile) -> Iterator[Site]:
    """``rewrite``'s sites from the stdlib ast: its findings exactly, where a ``**`` argument's keys are certainly
    unknown (:meth:`AstFile.star_keys_unknown`) or ``context_fn=``/``debug=`` is passed; every other call is an edit
    site (the ``**`` dicts libcst's scope analysis must read among them)."""
    for node in file.walk():
        name = file.callee(node)
        if name not in _CHECKPOINTS or not isinstance(node, ast.Call) or not _may_lack_use_reentrant(node):
            continue
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        if name.endswith("_sequential") and len(positional) >= 4:
            continue
        if any(keyword.arg is None for keyword in node.keywords):
            yield file.finding(node, _UNKNOWN) if file.star_keys_unknown(node, "use_reentrant") else file.edit(node)
        elif any(keyword.arg in ("context_fn", "debug") for keyword in node.keywords):
            yield file.finding(node, _CONTEXT)
        else:
            yield file.edit(node)


PASS.analyse = analyser(PASS.id, detect, exact=True)
