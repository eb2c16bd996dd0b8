"""Inductor config keys that moved or went away in PyTorch 2.8.

## What it does
- `torch._inductor.config.custom_op_default_layout_constraint` → `torch._functorch.config.custom_op_default_layout_constraint`
  (assignments and reads; in `torch._inductor.config.patch(...)` and `torch.compile(options=...)` a finding, since
  the key now belongs to another config module).
- `torch._inductor.config.aot_inductor.compile_wrapper_with_O0` (removed) gets a finding: set
  `aot_inductor.compile_wrapper_opt_level = "O0"` instead.

## Why
2.8 moved the layout constraint to `torch._functorch.config` because it affects ProxyTensor tracing, not only Inductor
(2.7.1 `torch/_inductor/config.py:128`; 2.8.0 `torch/_functorch/config.py:193`, gone from the Inductor config), and
replaced the boolean `compile_wrapper_with_O0` (2.7.1 `torch/_inductor/config.py:1172`) by
`compile_wrapper_opt_level` (2.8.0 `:1309`, default `"O1"`). Setting a key a config module no longer has raises
`AttributeError`.

## Fix safety
Safe: the moved key takes the same values and is read by the same code. The wrapper optimisation level is reported,
not rewritten: `compile_wrapper_with_O0=True` marked only `run_impl` as `optnone`, `compile_wrapper_opt_level="O0"`
compiles the whole wrapper at `-O0`.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.configkeys import RENAME, REPORT, ConfigKeys, Key

INDUCTOR = "torch._inductor.config"

PASS = Pass(
    id="inductor-config-renames",
    release="2.8",
    since="2.8",
    kind=REMOVAL,
    safety=SAFE,
    title="inductor custom_op_default_layout_constraint → torch._functorch.config; compile_wrapper_with_O0 (finding)",
    evidence=(
        "torch 2.7.1 torch/_inductor/config.py:128,1172; 2.8.0 torch/_functorch/config.py:193, torch/_inductor/config.py:1309"
        "; since 2.8: torch._functorch.config.custom_op_default_layout_constraint (torch 2.8.0 wheel, "
        "torch/_functorch/config.py:193; absent from 2.7.1)"
    ),
    triggers=("custom_op_default_layout_constraint", "compile_wrapper_with_O0"),
    examples=[
        Example(
            before="""
                import torch

                torch._inductor.config.custom_op_default_layout_constraint = "needs_fixed_stride_order"
            """,
            after="""
                import torch
                import torch._functorch.config

                torch._functorch.config.custom_op_default_layout_constraint = "needs_fixed_stride_order"
            """,
        ),
        Example(
            title="from-import of the config module",
            before="""
                from torch._inductor import config

                config.custom_op_default_layout_constraint = "flexible_layout"
            """,
            after="""
                import torch._functorch.config
                from torch._inductor import config

                torch._functorch.config.custom_op_default_layout_constraint = "flexible_layout"
            """,
        ),
        Example(
            title="the removed wrapper flag, and the moved key in compile options: findings",
            before="""
                import torch

                torch._inductor.config.aot_inductor.compile_wrapper_with_O0 = True
                compiled = torch.compile(model, options={"custom_op_default_layout_constraint": "flexible_layout"})
            """,
            findings=2,
        ),
        Unchanged(
            """
            import torch

            torch._functorch.config.custom_op_default_layout_constraint = "flexible_layout"
            """,
            title="already migrated",
        ),
    ],
)


@PASS.uses
class InductorConfig28(ConfigKeys):
    KEYS = (
        Key(INDUCTOR, "custom_op_default_layout_constraint", RENAME,
            "moved to torch._functorch.config in 2.8", new_module="torch._functorch.config",
            new_key="custom_op_default_layout_constraint"),
        Key(INDUCTOR, "aot_inductor.compile_wrapper_with_O0", REPORT,
            'removed in 2.8: set torch._inductor.config.aot_inductor.compile_wrapper_opt_level = "O0" (it builds the '
            "whole wrapper at -O0, where the old flag marked only run_impl)"),
    )
