"""`torch._dynamo.config.inline_inbuilt_nn_modules` is deprecated in PyTorch 2.12 and does nothing.

## What it does
Deletes assignments to `torch._dynamo.config.inline_inbuilt_nn_modules` (through any alias of the config module) and
drops the `inline_inbuilt_nn_modules=` keyword from `torch._dynamo.config.patch(...)`. Code that reads the option gets
a finding.

## Why
Inlining of built-in `nn.Module`s is always on since 2.12; setting the flag only emits a `FutureWarning`
("does not do anything, inline_inbuilt_nn_modules is always True") and the option will be removed
(pytorch/pytorch#177489, #178205).

## Fix safety
Safe: on 2.12 and later the assignment has no effect besides the warning, so deleting it changes nothing.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.transform import RemoveConfigOption

PASS = Pass(
    id="dynamo-inline-nn-modules",
    release="2.12",
    since="2.12",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch._dynamo.config.inline_inbuilt_nn_modules = … → removed (always on)",
    evidence=(
        "PyTorch 2.12 release notes, Deprecations / Dynamo (pytorch/pytorch#177489, #178205)"
        "; since 2.12: the option does nothing from 2.12 (torch 2.12.0 wheel, torch/_dynamo/config.py:564)"
    ),
    triggers=("inline_inbuilt_nn_modules",),
    examples=[
        Example(
            before="""
                import torch

                torch._dynamo.config.inline_inbuilt_nn_modules = True
                model = torch.compile(model)
            """,
            after="""
                import torch

                model = torch.compile(model)
            """,
        ),
        Example(
            title="config module alias, comment kept",
            before="""
                import torch._dynamo.config as cfg

                cfg.cache_size_limit = 64
                # inline modules for speed
                cfg.inline_inbuilt_nn_modules = False
            """,
            after="""
                import torch._dynamo.config as cfg

                cfg.cache_size_limit = 64
                # inline modules for speed
            """,
        ),
        Example(
            title="config.patch keyword",
            before="""
                import torch

                @torch._dynamo.config.patch(inline_inbuilt_nn_modules=True, cache_size_limit=8)
                def run(m, x):
                    return torch.compile(m)(x)
            """,
            after="""
                import torch

                @torch._dynamo.config.patch(cache_size_limit=8)
                def run(m, x):
                    return torch.compile(m)(x)
            """,
        ),
        Example(
            title="read: finding",
            before="""
                import torch

                if torch._dynamo.config.inline_inbuilt_nn_modules:
                    pass
            """,
            findings=1,
        ),
        Example(
            title="a user object with the same attribute is not touched",
            before="""
                class Cfg:
                    inline_inbuilt_nn_modules = True

                cfg = Cfg()
                cfg.inline_inbuilt_nn_modules = False
            """,
        ),
    ],
)


@PASS.uses
class RemoveInlineInbuiltNnModules(RemoveConfigOption):
    CONFIG_MODULE = "torch._dynamo.config"
    OPTION = "inline_inbuilt_nn_modules"
    WHY = "deprecated in 2.12, inlining of built-in nn.Modules is always on"
