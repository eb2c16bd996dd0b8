"""The renamed CUDA memory functions: `memory_cached` → `memory_reserved`, `reset_max_memory_*` → `reset_peak_memory_stats`.

## What it does
| before | after |
|---|---|
| `torch.cuda.memory_cached(d)` | `torch.cuda.memory_reserved(d)` |
| `torch.cuda.max_memory_cached(d)` | `torch.cuda.max_memory_reserved(d)` |
| `torch.cuda.reset_max_memory_allocated(d)` | `torch.cuda.reset_peak_memory_stats(d)` |
| `torch.cuda.reset_max_memory_cached(d)` | `torch.cuda.reset_peak_memory_stats(d)` |

The same for the `torch.cuda.memory.*` spellings and every import form (`from torch.cuda import memory_cached`,
`import torch as th`); an import left unused is removed.

## Why
PyTorch 1.4 renamed the caching allocator's "cached" statistics to "reserved" and replaced the per-statistic peak
resets with one `reset_peak_memory_stats` (both new in 1.4, when the old names were deprecated). The old names
are still there in 2.13, each a wrapper that warns and calls its replacement: `memory_cached` / `max_memory_cached` are
`@deprecated("… has been renamed to torch.cuda.memory_reserved", category=FutureWarning)` and return
`memory_reserved(device=device)` / `max_memory_reserved(device=device)`; `reset_max_memory_allocated` /
`reset_max_memory_cached` warn "now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats"
(FutureWarning) and `return reset_peak_memory_stats(device=device)` (torch 2.13.0 `torch/cuda/memory.py`). The change
predates 1.8, the oldest release this tool knows, so the pass is filed under 1.8 and runs for every target.

## Fix safety
Safe: each old function is exactly a call of its replacement with the same `device` argument, so results and side
effects are the same; only the FutureWarning goes. (A reset of one peak already reset all of them since 1.4.)
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged

_NAMES = {
    "memory_cached": "memory_reserved",
    "max_memory_cached": "max_memory_reserved",
    "reset_max_memory_allocated": "reset_peak_memory_stats",
    "reset_max_memory_cached": "reset_peak_memory_stats",
}

PASS = Pass(
    id="cuda-memory-names",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.cuda.memory_cached / reset_max_memory_* → memory_reserved / reset_peak_memory_stats",
    evidence=(
        "PyTorch 1.4 (memory_reserved and reset_peak_memory_stats added, the old names deprecated); torch 2.13.0 "
        "torch/cuda/memory.py:479-530 and 607-622: the old functions warn (FutureWarning) and return "
        "reset_peak_memory_stats / memory_reserved / max_memory_reserved(device=device); "
        "since 1.8: memory_reserved, max_memory_reserved and reset_peak_memory_stats (torch 1.9.0 wheel, torch/cuda/memory.py:222, 333, 349)"
    ),
    since="1.8",
    renames={
        **{f"torch.cuda.{old}": f"torch.cuda.{new}" for old, new in _NAMES.items()},
        **{f"torch.cuda.memory.{old}": f"torch.cuda.memory.{new}" for old, new in _NAMES.items()},
    },
    examples=[
        Example(
            title="a memory report",
            before="""
                import torch

                torch.cuda.reset_max_memory_allocated()
                train_step()
                print(torch.cuda.memory_cached(0) / 2**30, torch.cuda.max_memory_cached(device=0))
            """,
            after="""
                import torch

                torch.cuda.reset_peak_memory_stats()
                train_step()
                print(torch.cuda.memory_reserved(0) / 2**30, torch.cuda.max_memory_reserved(device=0))
            """,
        ),
        Example(
            title="import torch as th; both resets",
            before="""
                import torch as th

                th.cuda.reset_max_memory_cached(dev)
                th.cuda.reset_max_memory_allocated(dev)
            """,
            after="""
                import torch as th

                th.cuda.reset_peak_memory_stats(dev)
                th.cuda.reset_peak_memory_stats(dev)
            """,
        ),
        Example(
            title="from-imports",
            before="""
                from torch.cuda import memory_cached, reset_max_memory_allocated

                reset_max_memory_allocated()
                used = memory_cached()
            """,
            after="""
                from torch.cuda import memory_reserved, reset_peak_memory_stats

                reset_peak_memory_stats()
                used = memory_reserved()
            """,
        ),
        Example(
            title="torch.cuda.memory module",
            before="""
                import torch.cuda.memory as cm

                peak = cm.max_memory_cached()
            """,
            after="""
                import torch.cuda.memory as cm

                peak = cm.max_memory_reserved()
            """,
        ),
        Unchanged(
            """
            class Tracker:
                def memory_cached(self):
                    return 0

            def report(tracker):
                return tracker.memory_cached(), tracker.max_memory_cached
            """,
            title="look-alikes: a method and an attribute of the same name",
        ),
    ],
)
