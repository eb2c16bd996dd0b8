"""`torch._utils.is_compiling` is deprecated since PyTorch 2.5: use `torch.compiler.is_compiling`.

## What it does
Renames `torch._utils.is_compiling` and `torch._dynamo.external_utils.is_compiling` to `torch.compiler.is_compiling`,
in calls, other references and imports (`from torch._utils import is_compiling` → `from torch.compiler import
is_compiling`). `torch._dynamo.is_compiling` is left alone: it is not deprecated on 2.13.

## Why
2.5 made `torch._utils.is_compiling` warn (`UserWarning: torch._utils.is_compiling is deprecated. Use
torch.compiler.is_compiling instead.`; 2.4 had no warning, checked in the 2.4 and 2.5 wheels). The private
`torch._dynamo.external_utils.is_compiling` does not warn on 2.13, but it is the same one-line function and 2.15
deprecates it as well (its wheel's `torch/_dynamo/external_utils.py`).

## Fix safety
Safe: on torch 2.13 both old functions are `return torch.compiler.is_compiling()` (after the warning), and all three
return `True` inside `torch.compile(backend="eager")` / `"aot_eager"` and `False` outside (checked).
`torch.compiler.is_compiling` exists since 2.3.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass

PASS = Pass(
    id="is-compiling",
    release="2.5",
    kind=DEPRECATION,
    safety=SAFE,
    since="2.3",
    title="torch._utils.is_compiling / _dynamo.external_utils.is_compiling → torch.compiler.is_compiling",
    evidence=(
        "warning added in 2.5 (absent from the 2.4 wheel's torch/_utils.py); torch 2.13 torch/_utils.py and "
        "torch/_dynamo/external_utils.py: both return torch.compiler.is_compiling(); 2.15 wheel deprecates external_utils'"
        "; since 2.3: torch.compiler.is_compiling (torch 2.3.1 wheel, torch/compiler/__init__.py; absent from 2.2.2)"
    ),
    renames={
        "torch._utils.is_compiling": "torch.compiler.is_compiling",
        "torch._dynamo.external_utils.is_compiling": "torch.compiler.is_compiling",
    },
    examples=[
        Example(
            before="""
                import torch

                if not torch._utils.is_compiling():
                    log(x)
            """,
            after="""
                import torch

                if not torch.compiler.is_compiling():
                    log(x)
            """,
        ),
        Example(
            title="from-imports, an alias of the private module",
            before="""
                from torch._dynamo import external_utils as eu
                from torch._utils import is_compiling

                skip = is_compiling() or eu.is_compiling()
            """,
            after="""
                from torch.compiler import is_compiling
                import torch

                skip = is_compiling() or torch.compiler.is_compiling()
            """,
        ),
        Example(
            title="look-alikes: torch._dynamo.is_compiling, a helper of your own",
            before="""
                import torch
                from mylib.utils import is_compiling

                a = torch._dynamo.is_compiling()
                b = is_compiling()
            """,
        ),
    ],
)
