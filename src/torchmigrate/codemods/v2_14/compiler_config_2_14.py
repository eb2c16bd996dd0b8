"""Config keys PyTorch 2.14 deprecated, moved or removed (distributed, dynamo, inductor).

## What it does
| key | 2.14 | what the pass does |
|---|---|---|
| `torch.distributed.config.compile_on_one_rank` | deprecated alias of `torch.compiler.config.compile_on_one_rank` | renames assignments and reads; `patch(...)`: finding |
| `torch._dynamo.config.enable_faithful_generator_behavior` | deprecated, does nothing | deletes assignments (and `patch` keywords); reads: finding |
| `torch._inductor.config.partitioned_scatter_memory_budget` | removed | finding |
| `torch._inductor.config.cuda.nvgemm_max_profiling_configs` | removed | finding |

## Why
- `compile_on_one_rank` moved because the compiler stack reads it, not only distributed (2.14.1
  `torch/distributed/config.py:15-22`: `Config(alias="torch.compiler.config.compile_on_one_rank", deprecated=True)`;
  new home `torch/compiler/config.py:110`).
- `enable_faithful_generator_behavior` "does not do anything, generators are always traced lazily" (2.14.1
  `torch/_dynamo/config.py:571-575`).
- `partitioned_scatter_memory_budget` (2.13 `torch/_inductor/config.py:1184`) is gone.
- `cuda.nvgemm_max_profiling_configs` (2.13 `torch/_inductor/config.py:2547`) is gone; nothing read it in 2.13 —
  the NVGEMM backend read the top-level `torch._inductor.config.nvgemm_max_profiling_configs`, whose default rose from
  5 to 10 in 2.14 (2.14.1 `:659-666`).

## Fix safety
Safe: the alias reads and writes the new key; the deleted option has no effect from 2.14. The two removed keys are
reported, not renamed: the budget has no successor, and moving the `cuda.` value to the top-level key would start to
apply a limit that 2.13 never applied.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.configkeys import DELETE, RENAME, REPORT, ConfigKeys, Key

PASS = Pass(
    id="compiler-config-2-14",
    release="2.14",
    since="2.14",
    kind=DEPRECATION,
    safety=SAFE,
    title="2.14 config keys: distributed.config.compile_on_one_rank → compiler.config; no-op/removed keys",
    evidence=(
        "torch 2.14.1 torch/distributed/config.py:15-22, torch/compiler/config.py:110, torch/_dynamo/config.py:571-575, "
        "torch/_inductor/config.py:659-666; 2.13 torch/_inductor/config.py:1184,2547"
        "; since 2.14: torch.compiler.config.compile_on_one_rank (torch 2.14.1 wheel, "
        "torch/compiler/config.py:110; absent from 2.13.0), and enable_faithful_generator_behavior does "
        "nothing from 2.14"
    ),
    triggers=("compile_on_one_rank", "enable_faithful_generator_behavior", "partitioned_scatter_memory_budget",
              "nvgemm_max_profiling_configs"),
    examples=[
        Example(
            before="""
                import torch

                torch.distributed.config.compile_on_one_rank = True
                torch._dynamo.config.enable_faithful_generator_behavior = False
                model = torch.compile(model)
            """,
            after="""
                import torch
                import torch.compiler.config

                torch.compiler.config.compile_on_one_rank = True
                model = torch.compile(model)
            """,
        ),
        Example(
            title="dynamo config alias, patch keyword",
            before="""
                import torch._dynamo.config as dynamo_config

                @dynamo_config.patch(enable_faithful_generator_behavior=True, recompile_limit=4)
                def test_generators():
                    run()
            """,
            after="""
                import torch._dynamo.config as dynamo_config

                @dynamo_config.patch(recompile_limit=4)
                def test_generators():
                    run()
            """,
        ),
        Example(
            title="removed keys and a moved key inside patch: findings",
            before="""
                import torch
                import torch._inductor.config as inductor_config
                from torch.distributed import config as dist_config

                inductor_config.partitioned_scatter_memory_budget = 0.2
                inductor_config.cuda.nvgemm_max_profiling_configs = 3
                with dist_config.patch(compile_on_one_rank=True):
                    run()
            """,
            findings=3,
        ),
        Unchanged(
            """
            import torch

            torch.compiler.config.compile_on_one_rank = True
            torch._inductor.config.nvgemm_max_profiling_configs = 3
            """,
            title="the keys 2.14 wants",
        ),
    ],
)


@PASS.uses
class CompilerConfig214(ConfigKeys):
    KEYS = (
        Key("torch.distributed.config", "compile_on_one_rank", RENAME,
            "deprecated in 2.14: the flag now lives in torch.compiler.config", new_module="torch.compiler.config",
            new_key="compile_on_one_rank"),
        Key("torch._dynamo.config", "enable_faithful_generator_behavior", DELETE,
            "deprecated in 2.14, does nothing: generators are always traced lazily"),
        Key("torch._inductor.config", "partitioned_scatter_memory_budget", REPORT,
            "removed in 2.14 (partitioned scatter no longer takes a memory budget): delete the setting"),
        Key("torch._inductor.config", "cuda.nvgemm_max_profiling_configs", REPORT,
            "removed in 2.14 and never read in 2.13 (NVGEMM read torch._inductor.config.nvgemm_max_profiling_configs, "
            "default 10 from 2.14): delete it, or set the top-level key if you meant to limit NVGEMM autotuning"),
    )
