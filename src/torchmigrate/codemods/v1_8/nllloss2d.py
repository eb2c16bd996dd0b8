"""`nn.NLLLoss2d` is deprecated: `nn.NLLLoss` is the drop-in replacement.

## What it does
Renames `torch.nn.NLLLoss2d` (and `torch.nn.modules.loss.NLLLoss2d`) to `nn.NLLLoss`, in calls, references and
imports.

## Why
Deprecated long before torchmigrate's 1.8 floor; on torch 2.13 the class is `@deprecated("NLLLoss2d has been
deprecated. Please use NLLLoss instead as a drop-in replacement ...", category=FutureWarning)`, a subclass of
`NLLLoss` whose `__init__` passes its arguments on unchanged (torch/nn/modules/loss.py).

## Fix safety
Safe: same parameters in the same order, same computation (`NLLLoss` takes `(N, C, d1, d2, …)` inputs); checked
equal on torch 2.13. Loss modules have no state, so checkpoints are unaffected.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

PASS = Pass(
    id="nllloss2d",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="nn.NLLLoss2d → nn.NLLLoss",
    evidence=(
        "torch 2.13 torch/nn/modules/loss.py: NLLLoss2d is @deprecated(..., category=FutureWarning) and forwards to NLLLoss.__init__"
        "; since 1.8: nn.NLLLoss takes (N, C, d1, ...) input in every release the tool knows (torch 1.9.0 wheel, torch/nn/modules/loss.py)"
    ),
    renames={"torch.nn.NLLLoss2d": "torch.nn.NLLLoss", "torch.nn.modules.loss.NLLLoss2d": "torch.nn.modules.loss.NLLLoss"},
    examples=[
        Example(
            before="""
                import torch.nn as nn

                criterion = nn.NLLLoss2d(weight=class_weights, ignore_index=255)
            """,
            after="""
                import torch.nn as nn

                criterion = nn.NLLLoss(weight=class_weights, ignore_index=255)
            """,
        ),
        Example(
            title="from-import",
            before="""
                from torch.nn import NLLLoss2d

                loss = NLLLoss2d()(log_probs, target)
            """,
            after="""
                from torch.nn import NLLLoss

                loss = NLLLoss()(log_probs, target)
            """,
        ),
        Example(
            title="look-alike: a class of your own",
            before="""
                from mylib.losses import NLLLoss2d

                loss = NLLLoss2d()
            """,
        ),
    ],
)
