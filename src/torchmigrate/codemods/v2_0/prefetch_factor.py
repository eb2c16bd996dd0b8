"""`DataLoader(prefetch_factor=2)` without worker processes raises since PyTorch 2.0: drop the keyword.

## What it does
- `DataLoader(..., prefetch_factor=2)` with no `num_workers` or a literal `num_workers=0` loses the keyword: it had no
  effect without workers;
- with a `num_workers` that is not a literal, a literal `prefetch_factor` gets a finding: the call raises when the
  value is 0 at run time.

## Why
2.0 made `prefetch_factor` default to `None` and raise `ValueError: prefetch_factor option could only be specified
in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.` whenever it
is given with `num_workers=0` (2.0 wheel `torch/utils/data/dataloader.py`). Through 1.13 the default was 2 and only
a different value raised, so `prefetch_factor=2` with no workers was accepted.

## Fix safety
Safe: without worker processes nothing is prefetched, whatever the factor. For a run-time `num_workers`, write
`prefetch_factor=2 if num_workers > 0 else None` (`None` with workers means 2 since 2.0).
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, with_args
from torchmigrate.python.transform import CallContext

PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers")

PASS = Pass(
    id="prefetch-factor",
    release="2.0",
    kind=BEHAVIOUR,
    safety=SAFE,
    since="1.8",  # without workers the keyword never had an effect
    title="DataLoader(prefetch_factor=2) without workers raises since 2.0 → drop it",
    evidence=(
        "1.13 vs 2.0 wheels torch/utils/data/dataloader.py (default 2 → None; ValueError with num_workers == 0); checked on torch 2.13"
        "; since 1.8: a DataLoader call without prefetch_factor= runs on every release"
    ),
    triggers=("prefetch_factor",),
    call_filter=lambda call: any(k.arg == "prefetch_factor" for k in call.keywords),  # the rewriter needs it spelled
    examples=[
        Example(
            before="""
                from torch.utils.data import DataLoader

                loader = DataLoader(ds, batch_size=32, prefetch_factor=2)
                debug = DataLoader(ds, num_workers=0, prefetch_factor=2, shuffle=True)
            """,
            after="""
                from torch.utils.data import DataLoader

                loader = DataLoader(ds, batch_size=32)
                debug = DataLoader(ds, num_workers=0, shuffle=True)
            """,
        ),
        Example(
            title="num_workers known only at run time: finding",
            before="""
                import torch

                loader = torch.utils.data.DataLoader(ds, num_workers=args.workers, prefetch_factor=4)
            """,
            findings=1,
        ),
        Example(
            title="with workers, or prefetch_factor=None: fine",
            before="""
                from torch.utils.data import DataLoader

                a = DataLoader(ds, num_workers=4, prefetch_factor=4)
                b = DataLoader(ds, prefetch_factor=None)
            """,
        ),
    ],
)


def _int(node: cst.BaseExpression) -> int | None:
    return int(node.value) if isinstance(node, cst.Integer) else None


@PASS.rewrites_calls("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    bound = bind(call, PARAMS)
    factor = next((a for a in call.args if a.keyword is not None and a.keyword.value == "prefetch_factor"), None)
    if factor is None or (isinstance(factor.value, cst.Name) and factor.value.value == "None"):
        return None
    workers = bound.get("num_workers")
    if workers is None and bound.star:
        return None  # num_workers may be among **kwargs
    count = 0 if workers is None else _int(workers.value)
    if count is None:
        if _int(factor.value) is not None:
            ctx.finding(
                "DataLoader(prefetch_factor=...) raises ValueError since 2.0 when num_workers is 0: write "
                "prefetch_factor=N if num_workers > 0 else None"
            )
        return None
    if count > 0 or _int(factor.value) != 2:
        return None  # with workers it is used; another value raised before 2.0 too
    ctx.message = "DataLoader: prefetch_factor=2 dropped (no worker processes; it raises since 2.0)"
    return with_args(call, [a for a in call.args if a is not factor])
