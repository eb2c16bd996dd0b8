"""`torch._inductor.config.max_autotune_defer_layout_freezing` no longer exists in PyTorch 2.13.

## What it does
Deletes assignments to `torch._inductor.config.max_autotune_defer_layout_freezing` (any alias of the config module)
and drops the keyword from `torch._inductor.config.patch(...)`. Reading the option gets a finding.

## Why
2.12 made deferred layout freezing opt-in through this option (pytorch/pytorch#175330); in 2.13 the option is gone and
setting it raises `AttributeError: torch._inductor.config.max_autotune_defer_layout_freezing does not exist` (checked on
torch 2.13.0).

## Fix safety
Safe: on 2.13 the assignment can only fail; without it Inductor freezes layouts immediately, as 2.12 did by default.
"""

from __future__ import annotations

from torchmigrate.core.passes import SAFE, Example, Pass
from torchmigrate.python.transform import RemoveConfigOption

PASS = Pass(
    id="defer-layout-freezing-removed",
    release="2.13",
    since="1.8",
    safety=SAFE,
    title="torch._inductor.config.max_autotune_defer_layout_freezing = … → removed (option gone in 2.13)",
    evidence=(
        "PyTorch 2.12 release notes (pytorch/pytorch#175330); AttributeError on torch 2.13.0"
        "; since 1.8: the code without the assignment runs everywhere; no released wheel has the option (torch 2.11.0 "
        "and 2.12.0 wheels, torch/_inductor/config.py), and 2.12's config raises AttributeError for unknown keys "
        "(torch/utils/_config_module.py:399)"
    ),
    triggers=("max_autotune_defer_layout_freezing",),
    examples=[
        Example(
            before="""
                import torch._inductor.config as inductor_config

                inductor_config.max_autotune_defer_layout_freezing = True
                inductor_config.max_autotune = True
            """,
            after="""
                import torch._inductor.config as inductor_config

                inductor_config.max_autotune = True
            """,
        ),
        Example(
            title="patch keyword",
            before="""
                import torch

                with torch._inductor.config.patch(max_autotune_defer_layout_freezing=True):
                    out = compiled(x)
            """,
            after="""
                import torch

                with torch._inductor.config.patch():
                    out = compiled(x)
            """,
        ),
    ],
)


@PASS.uses
class RemoveDeferLayoutFreezing(RemoveConfigOption):
    CONFIG_MODULE = "torch._inductor.config"
    OPTION = "max_autotune_defer_layout_freezing"
    WHY = "the option does not exist in 2.13"
