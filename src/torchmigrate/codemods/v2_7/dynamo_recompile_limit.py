"""The dynamo "cache limit" options were renamed "recompile limit" in PyTorch 2.7.

## What it does
| before | after |
|---|---|
| `torch._dynamo.config.cache_size_limit` | `torch._dynamo.config.recompile_limit` |
| `torch._dynamo.config.accumulated_cache_size_limit` | `torch._dynamo.config.accumulated_recompile_limit` |
| `torch._dynamo.config.fail_on_cache_limit_hit` | `torch._dynamo.config.fail_on_recompile_limit_hit` |

In assignments and reads through any alias of the config module, in `torch._dynamo.config.patch(cache_size_limit=8)`
(keyword, dict and `("name", value)` forms, decorators and `with` blocks alike).

## Why
pytorch/pytorch#143709 ("Rename cache limit to recompile limit in configs", in 2.7) renamed the options and kept the
old names as aliases (2.7.1 `torch/_dynamo/config.py:53-77`: `cache_size_limit: int =
Config(alias="torch._dynamo.config.recompile_limit")`; still so in 2.15.0 `:137-150`). 2.14 added
`torch.compile(recompile_limit=...)`, which uses the new name too.

## Fix safety
Safe: an alias reads and writes the very option it names (`torch/utils/_config_module.py`), so the program sets the same
value under the documented name. The new names exist from 2.7.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.configkeys import RENAME, ConfigKeys, Key

DYNAMO = "torch._dynamo.config"
_WHY = "renamed in 2.7; the old name is an alias"

PASS = Pass(
    id="dynamo-recompile-limit",
    release="2.7",
    since="2.7",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch._dynamo.config.cache_size_limit (and friends) → recompile_limit",
    evidence=(
        "pytorch/pytorch#143709; torch 2.6.0 torch/_dynamo/config.py:44-56 (old keys), 2.7.1 :53-77 (aliases), 2.15.0 :137-150"
        "; since 2.7: recompile_limit, accumulated_recompile_limit, fail_on_recompile_limit_hit, the old "
        "names aliases of them (torch 2.7.1 wheel, torch/_dynamo/config.py:53-78; absent from 2.6.0)"
    ),
    triggers=("cache_size_limit", "fail_on_cache_limit_hit"),
    examples=[
        Example(
            before="""
                import torch

                torch._dynamo.config.cache_size_limit = 64
                torch._dynamo.config.accumulated_cache_size_limit = 512
                print(torch._dynamo.config.cache_size_limit)
            """,
            after="""
                import torch

                torch._dynamo.config.recompile_limit = 64
                torch._dynamo.config.accumulated_recompile_limit = 512
                print(torch._dynamo.config.recompile_limit)
            """,
        ),
        Example(
            title="config module alias; patch as a decorator and in a with block",
            before="""
                import torch._dynamo.config as dcfg

                dcfg.fail_on_cache_limit_hit = True

                @dcfg.patch(cache_size_limit=1, verbose=True)
                def test_once():
                    with dcfg.patch({"accumulated_cache_size_limit": 2}):
                        run()
            """,
            after="""
                import torch._dynamo.config as dcfg

                dcfg.fail_on_recompile_limit_hit = True

                @dcfg.patch(recompile_limit=1, verbose=True)
                def test_once():
                    with dcfg.patch({"accumulated_recompile_limit": 2}):
                        run()
            """,
        ),
        Example(
            title="from torch._dynamo import config",
            before="""
                from torch._dynamo import config

                with config.patch("cache_size_limit", 4):
                    run()
            """,
            after="""
                from torch._dynamo import config

                with config.patch("recompile_limit", 4):
                    run()
            """,
        ),
        Unchanged(
            """
            import functools

            cache = functools.lru_cache(maxsize=8)
            settings.cache_size_limit = 8
            """,
            title="other objects' cache_size_limit",
        ),
    ],
)


@PASS.uses
class RecompileLimit(ConfigKeys):
    KEYS = (
        Key(DYNAMO, "cache_size_limit", RENAME, _WHY, new_key="recompile_limit"),
        Key(DYNAMO, "accumulated_cache_size_limit", RENAME, _WHY, new_key="accumulated_recompile_limit"),
        Key(DYNAMO, "fail_on_cache_limit_hit", RENAME, _WHY, new_key="fail_on_recompile_limit_hit"),
    )
