"""Config keys PyTorch 2.15 deprecated, renamed or removed (inductor, distributed).

## What it does
| key | 2.15 | what the pass does |
|---|---|---|
| `torch._inductor.config.benchmark_epilogue_fusion` | deprecated alias of `benchmark_template_fusion` | renames (assignments, reads, `patch`, `torch.compile(options=)`) |
| `torch._inductor.config.max_epilogue_benchmarked_choices` | deprecated alias of `max_template_fusion_benchmarked_choices` | renames |
| `torch._inductor.config.use_mixed_mm`, `mixed_mm_choice` | deprecated, do nothing | deletes assignments, `patch` keywords and `options` entries; reads: finding |
| `torch._inductor.config.autoheuristic_use.mixed_mm`, `autoheuristic_collect.mixed_mm` | removed | finding |
| `torch.distributed.config.pipeline_per_direction_p2p` (new in 2.14) | removed | finding |

## Why
2.15.0 `torch/_inductor/config.py:1092-1106`: `benchmark_epilogue_fusion: bool = Config(alias=
"torch._inductor.config.benchmark_template_fusion", deprecated=True, deprecation_message="use benchmark_template_fusion
instead")`, likewise `max_epilogue_benchmarked_choices`; `:430-448`: `use_mixed_mm` and `mixed_mm_choice` are
`Config(..., deprecated=True, deprecation_message="does not do anything")`. The `mixed_mm` autoheuristic entries
(2.14.1 `:824`, `:833`) and `torch.distributed.config.pipeline_per_direction_p2p` (2.14.1
`torch/distributed/config.py:43`) are gone (AttributeError).

## Fix safety
Safe: an alias reads and writes the key it names; the deleted options have no effect from 2.15. The new names do not
exist before 2.15.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.configkeys import DELETE, RENAME, REPORT, ConfigKeys, Key

INDUCTOR = "torch._inductor.config"

PASS = Pass(
    id="inductor-config-2-15",
    release="2.15",
    since="2.15",
    kind=DEPRECATION,
    safety=SAFE,
    title="2.15 inductor keys: *_epilogue_* → *_template_fusion_*; use_mixed_mm / mixed_mm_choice removed (no-ops)",
    evidence=(
        "torch 2.15.0 torch/_inductor/config.py:430-448,1092-1106; 2.14.1 torch/_inductor/config.py:824,833, "
        "torch/distributed/config.py:43"
        "; since 2.15: benchmark_template_fusion / max_template_fusion_benchmarked_choices (torch 2.15.0 "
        "wheel, torch/_inductor/config.py:1083,1099); use_mixed_mm / mixed_mm_choice are read nowhere in "
        "torch/_inductor from 2.7 (torch 2.7.1 wheel)"
    ),
    triggers=("benchmark_epilogue_fusion", "max_epilogue_benchmarked_choices", "mixed_mm", "pipeline_per_direction_p2p"),
    examples=[
        Example(
            before="""
                import torch._inductor.config as inductor_config

                inductor_config.benchmark_epilogue_fusion = False
                inductor_config.max_epilogue_benchmarked_choices = 4
                inductor_config.use_mixed_mm = True
            """,
            after="""
                import torch._inductor.config as inductor_config

                inductor_config.benchmark_template_fusion = False
                inductor_config.max_template_fusion_benchmarked_choices = 4
            """,
        ),
        Example(
            title="torch.compile options and patch",
            before="""
                import torch

                compiled = torch.compile(model, options={"benchmark_epilogue_fusion": True, "mixed_mm_choice": "triton"})
                with torch._inductor.config.patch(max_epilogue_benchmarked_choices=2, use_mixed_mm=False):
                    run()
            """,
            after="""
                import torch

                compiled = torch.compile(model, options={"benchmark_template_fusion": True})
                with torch._inductor.config.patch(max_template_fusion_benchmarked_choices=2):
                    run()
            """,
        ),
        Example(
            title="removed keys: findings",
            before="""
                import torch

                if torch._inductor.config.autoheuristic_use.mixed_mm:
                    pass
                torch.distributed.config.pipeline_per_direction_p2p = True
            """,
            findings=2,
        ),
        Unchanged(
            """
            import torch

            torch._inductor.config.benchmark_template_fusion = True
            kernels.use_mixed_mm = True
            """,
            title="the new key; another object's attribute",
        ),
    ],
)


@PASS.uses
class InductorConfig215(ConfigKeys):
    KEYS = (
        Key(INDUCTOR, "benchmark_epilogue_fusion", RENAME, "deprecated alias since 2.15",
            new_key="benchmark_template_fusion"),
        Key(INDUCTOR, "max_epilogue_benchmarked_choices", RENAME, "deprecated alias since 2.15",
            new_key="max_template_fusion_benchmarked_choices"),
        Key(INDUCTOR, "use_mixed_mm", DELETE, "deprecated in 2.15, does nothing"),
        Key(INDUCTOR, "mixed_mm_choice", DELETE, "deprecated in 2.15, does nothing"),
        Key(INDUCTOR, "autoheuristic_use.mixed_mm", REPORT, "removed in 2.15 (there is no mixed_mm heuristic any more)"),
        Key(INDUCTOR, "autoheuristic_collect.mixed_mm", REPORT, "removed in 2.15 (there is no mixed_mm heuristic any more)"),
        Key("torch.distributed.config", "pipeline_per_direction_p2p", REPORT,
            "removed in 2.15 (added in 2.14; pipelining no longer has per-direction P2P communicators): delete the setting"),
    )
