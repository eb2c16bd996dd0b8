"""Argument edits keep the call's layout (regression cases from the corpus: speechbrain's
``F.binary_cross_entropy(\\n    xhat, target, reduce=False\\n).mean(...)`` lost the line break before its bracket)."""

from __future__ import annotations

import textwrap

import pytest

from torchmigrate import migrate_source

CASES = [
    (
        "loss-reduction",
        """
        import torch.nn.functional as F

        rec = (
            F.binary_cross_entropy(
                xhat, oracle, reduce=False
            ).mean((-1, -2))
            * w
        ).mean()
        """,
        """
        import torch.nn.functional as F

        rec = (
            F.binary_cross_entropy(
                xhat, oracle, reduction="none"
            ).mean((-1, -2))
            * w
        ).mean()
        """,
    ),
    (
        "loss-reduction",
        """
        import torch.nn.functional as F

        d = F.mse_loss(
            x,
            y,
            size_average=False
        )
        e = F.mse_loss(x, y, size_average=False,
                       )
        """,
        """
        import torch.nn.functional as F

        d = F.mse_loss(
            x,
            y,
            reduction="sum"
        )
        e = F.mse_loss(x, y, reduction="sum",
                       )
        """,
    ),
    (
        "upsample-interpolate",
        """
        import torch.nn.functional as F

        z = F.upsample_nearest(
            x,
            scale_factor=2,
        )
        """,
        """
        import torch.nn.functional as F

        z = F.interpolate(
            x,
            scale_factor=2,
            mode="nearest",
        )
        """,
    ),
    pytest.param(
        "upsampling-modules",
        """
        import torch.nn as nn

        u = nn.UpsamplingNearest2d(
            scale_factor=2
        )
        """,
        """
        import torch.nn as nn

        u = nn.Upsample(
            scale_factor=2, mode="nearest"
        )
        """,
        # one argument on the line under the call is black's right-hand split: the added keyword joins that line
    ),
    (
        "prefetch-factor",
        """
        from torch.utils.data import DataLoader

        loader = DataLoader(
            ds, batch_size=4, prefetch_factor=2
        )
        """,
        """
        from torch.utils.data import DataLoader

        loader = DataLoader(
            ds, batch_size=4
        )
        """,
    ),
    (
        "sampler-init",
        """
        from torch.utils.data import Sampler


        class S(Sampler):
            def __init__(self, d):
                super().__init__(
                    d
                )
        """,
        """
        from torch.utils.data import Sampler


        class S(Sampler):
            def __init__(self, d):
                super().__init__()
        """,
    ),
]


@pytest.mark.parametrize(("pass_id", "before", "after"), CASES)
def test_argument_edits_keep_the_layout(pass_id: str, before: str, after: str) -> None:
    result = migrate_source(textwrap.dedent(before), to="2.13", select=[pass_id], unsafe_fixes=True)  # some are review passes
    assert result.error is None and result.edits
    assert result.code == textwrap.dedent(after)
