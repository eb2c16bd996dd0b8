"""`torch.utils.cpp_extension.FileBaton` is no longer re-exported in PyTorch 2.14: import it from `torch.utils.file_baton`.

## What it does
Renames `torch.utils.cpp_extension.FileBaton` to `torch.utils.file_baton.FileBaton`, in imports and uses.

## Why
2.13's `torch/utils/cpp_extension.py:27` imported `FileBaton` from `.file_baton` (it was never in its `__all__`, but
`from torch.utils.cpp_extension import FileBaton` worked); 2.14 dropped that import, so the old spelling is an
`ImportError`. The class itself lives on in `torch/utils/file_baton.py`, unchanged.

## Fix safety
Safe: the same class; `torch.utils.file_baton` has existed since PyTorch 1.x.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged

PASS = Pass(
    id="file-baton-import",
    release="2.14",
    since="1.8",
    kind=REMOVAL,
    safety=SAFE,
    title="torch.utils.cpp_extension.FileBaton → torch.utils.file_baton.FileBaton",
    evidence=(
        "torch 2.13 torch/utils/cpp_extension.py:27 (re-export), gone in 2.14.1; torch/utils/file_baton.py in both"
        "; since 1.8: torch.utils.file_baton.FileBaton ships in every release the tool knows (torch 1.9.0 "
        "wheel, torch/utils/file_baton.py:5)"
    ),
    renames={"torch.utils.cpp_extension.FileBaton": "torch.utils.file_baton.FileBaton"},
    examples=[
        Example(
            before="""
                from torch.utils.cpp_extension import FileBaton, load

                baton = FileBaton("/tmp/lock")
            """,
            after="""
                from torch.utils.cpp_extension import load
                from torch.utils.file_baton import FileBaton

                baton = FileBaton("/tmp/lock")
            """,
        ),
        Example(
            title="module alias",
            before="""
                import torch.utils.cpp_extension as ext

                baton = ext.FileBaton(path)
            """,
            after="""
                from torch.utils.file_baton import FileBaton

                baton = FileBaton(path)
            """,
        ),
        Unchanged("from mylib import FileBaton\n\nbaton = FileBaton(path)\n", title="look-alike"),
    ],
)
