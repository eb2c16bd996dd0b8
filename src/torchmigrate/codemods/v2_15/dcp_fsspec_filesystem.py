"""`torch.distributed.checkpoint._fsspec_filesystem` is deprecated in PyTorch 2.15: use `fsspec_filesystem`.

## What it does
Renames `FsspecReader` and `FsspecWriter` imported from (or reached through)
`torch.distributed.checkpoint._fsspec_filesystem` to the public `torch.distributed.checkpoint.fsspec_filesystem`.
`FileSystem` from the old module gets a finding: the public module names the class `_FileSystem` (private).

## Why
2.15 made the module public: importing the old one warns "torch.distributed.checkpoint._fsspec_filesystem is
deprecated and will be removed in a future release. Please use torch.distributed.checkpoint.fsspec_filesystem
instead." (`DeprecationWarning`, 2.15.0 `torch/distributed/checkpoint/_fsspec_filesystem.py:11-16`), and re-exports
`FsspecReader`, `FsspecWriter` and `FileSystem = _FileSystem` from it.

## Fix safety
Safe: the old module only re-exports the new module's classes (2.15.0 `_fsspec_filesystem.py:3-9`), so the names
denote the same objects. The public module does not exist before 2.15.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.transform import PassTransformer

_OLD = "torch.distributed.checkpoint._fsspec_filesystem"
_NEW = "torch.distributed.checkpoint.fsspec_filesystem"

PASS = Pass(
    id="dcp-fsspec-filesystem",
    release="2.15",
    since="2.15",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.distributed.checkpoint._fsspec_filesystem.FsspecReader/Writer → fsspec_filesystem",
    evidence=(
        "torch 2.15.0 torch/distributed/checkpoint/_fsspec_filesystem.py:3-16 (DeprecationWarning, re-exports)"
        "; since 2.15: torch.distributed.checkpoint.fsspec_filesystem first ships in 2.15 (torch 2.15.0 "
        "wheel, torch/distributed/checkpoint/fsspec_filesystem.py:100,163)"
    ),
    renames={f"{_OLD}.{name}": f"{_NEW}.{name}" for name in ("FsspecReader", "FsspecWriter")},
    triggers=("_fsspec_filesystem",),
    examples=[
        Example(
            before="""
                import torch.distributed.checkpoint as dcp
                from torch.distributed.checkpoint._fsspec_filesystem import FsspecReader, FsspecWriter

                dcp.save(state, storage_writer=FsspecWriter("s3://bucket/ckpt"))
                dcp.load(state, storage_reader=FsspecReader("s3://bucket/ckpt"))
            """,
            after="""
                import torch.distributed.checkpoint as dcp
                from torch.distributed.checkpoint.fsspec_filesystem import FsspecReader, FsspecWriter

                dcp.save(state, storage_writer=FsspecWriter("s3://bucket/ckpt"))
                dcp.load(state, storage_reader=FsspecReader("s3://bucket/ckpt"))
            """,
        ),
        Example(
            title="FileSystem has no public name: finding",
            before="""
                from torch.distributed.checkpoint._fsspec_filesystem import FileSystem
            """,
            findings=1,
        ),
        Unchanged(
            "from torch.distributed.checkpoint.fsspec_filesystem import FsspecReader\n",
            title="already migrated",
        ),
    ],
)


@PASS.uses
class FsspecFileSystem(PassTransformer):
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = cst.Module(body=[]).code_for_node(node.module) if node.module is not None else ""
        if module == _OLD and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if cst.Module(body=[]).code_for_node(alias.name) == "FileSystem":
                    self.finding(alias, _MESSAGE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.qualname(node) == f"{_OLD}.FileSystem":
            self.finding(node, _MESSAGE)


_MESSAGE = (
    f"{_OLD} is deprecated from 2.15 and its FileSystem is private in {_NEW} (_FileSystem): subclass "
    "FsspecReader/FsspecWriter, or keep the import until you can drop FileSystem"
)
