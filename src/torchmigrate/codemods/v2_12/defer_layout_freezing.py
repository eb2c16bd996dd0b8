"""Deferred layout freezing under `max-autotune` became opt-in in PyTorch 2.12.

## What it does
Reports (no edit) each `torch.compile(..., mode="max-autotune")` or `mode="max-autotune-no-cudagraphs"` call, with how
to get the 2.11 behaviour back if you relied on it. Only for code written for 2.11 (`--from 2.11`): no other release
deferred the freezing, so older code never relied on it.

## Why
In 2.11 Inductor deferred layout freezing for `max_autotune` templates, exposing more fusions; it caused a failure mode
in regional compilation, so 2.12 freezes layouts immediately again (pytorch/pytorch#175330). Code tuned on 2.11 can
opt back in with `torch._inductor.config.max_autotune_defer_layout_freezing = True` or the environment variable
`TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING=1`. The option exists in 2.12 only: it is gone in 2.13, where
setting it raises `AttributeError` (the `defer-layout-freezing-removed` pass deletes such assignments).

## Fix safety
Finding only: whether the deferred layouts mattered is a performance question only a benchmark can answer.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="defer-layout-freezing",
    release="2.12",
    since="1.8",
    kind=BEHAVIOUR,
    old_behaviour_since="2.11",  # only 2.11 deferred the freezing: code written for an older release never saw it
    safety=REVIEW,
    title='torch.compile(mode="max-autotune"): layout freezing no longer deferred (finding)',
    evidence=(
        "PyTorch 2.12 release notes, Backwards Incompatible Changes / Inductor (pytorch/pytorch#175330)"
        "; finding only: emits no new form"
    ),
    triggers=("max-autotune",),
    examples=[
        Example(
            before="""
                import torch

                fast = torch.compile(model, mode="max-autotune")
            """,
            findings=1,
        ),
        Example(
            title="other modes are not reported",
            before="""
                import torch

                fast = torch.compile(model, mode="reduce-overhead")
            """,
        ),
    ],
)


@PASS.rewrites_calls("torch.compile")
def report(call: cst.Call, ctx: CallContext) -> None:
    mode = kwarg(ctx.original, "mode")
    if mode is None or not isinstance(mode.value, cst.SimpleString):
        return None
    if str(mode.value.evaluated_value).startswith("max-autotune"):
        ctx.finding(
            "since 2.12 max-autotune freezes layouts immediately (2.11 deferred it for more fusions); if this model "
            "was tuned on 2.11 and got slower, set TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING=1 on 2.12 "
            "(the option does not exist in 2.13)"
        )
    return None
