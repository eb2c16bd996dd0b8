"""Moves the CUDA build a requirement set installs when the target has no wheels for it — only together with torch.

## What it does
`--extra-index-url https://download.pytorch.org/whl/cu128` → `.../whl/cu130` for `--to 2.12` (2.12 dropped
CUDA 12.8 builds); `torch==2.7.1+cu118` → `+cu126` from 2.8 (2.8 dropped CUDA 11.8) — where the set's torch moves
to (or already admits) the target: an index URL or `+cuXYZ` version moves only together with a torch install that
has that build, so a CI job or stage that keeps an old torch keeps its index. The new build is the nearest newer one
the target has. Nightly, test and LTS indexes, `cpu` indexes, and variants newer than every build of the target are
left alone; ROCm indexes and releases whose CUDA builds the table does not fully know (2.15) are reported.

## Why
pip finds no wheel of the new torch on an index the release was not built for, or silently falls back to
another index. The 2.12 release notes: "Users explicitly pinning the cu128 index URL will need to switch to
cu130 (recommended) or cu126".

## Fix safety
Review: the edit's note names the driver floor and the GPU architectures of the new build.

## Where
The same files and commands as `torch-pin`: requirements files, `pyproject.toml` (`[[tool.uv.index]]` and the
like), `setup.cfg`, `setup.py` strings, conda environments, and install commands in Dockerfiles, CI files and
notebooks. `# migrate: ignore` on a line leaves it alone.
"""

from __future__ import annotations

from torchmigrate.core.passes import PROJECT, REVIEW, Example, Pass
from torchmigrate.project.context import ProjectContext


def rewrite_cuda_wheels(text: str, ctx: ProjectContext) -> str:
    return ctx.apply(ctx.pass_.id)


PASS = Pass(
    id="cuda-wheels",
    release="2.1",
    safety=REVIEW,
    files=PROJECT,
    title="PyTorch wheel index URLs and +cuXYZ versions without a build for the target → the nearest newer CUDA build",
    evidence=(
        "PyTorch 2.12 release notes (cu128 builds dropped, pytorch/pytorch#179072); 2.8 release notes (cu118/cu124 "
        "removed, #155509); pytorch/pytorch RELEASE.md compatibility matrix (in the compatibility table)"
    ),
    triggers=("cu1",),
    project_rewrite=rewrite_cuda_wheels,
    review_note=(
        "A newer CUDA build asks more of the machine: CUDA 13.0 wheels need an NVIDIA driver >= 580 and, for torch 2.12,\n"
        "a GPU of compute capability >= 7.5 (Turing or newer). On older drivers or GPUs choose cu126 instead."
    ),
    examples=[
        Example(
            path="requirements.txt",
            to="2.12",
            before="""
                --extra-index-url https://download.pytorch.org/whl/cu128
                torch==2.12.0
            """,
            after="""
                --extra-index-url https://download.pytorch.org/whl/cu130
                torch==2.12.0
            """,
        ),
        Example(
            path=".github/workflows/ci.yml",
            to="2.12",
            before="      - run: pip install torch==2.12.0+cu118 --index-url https://download.pytorch.org/whl/cu118\n",
            after="      - run: pip install torch==2.12.0+cu126 --index-url https://download.pytorch.org/whl/cu126\n",
        ),
        Example(
            path="requirements.txt",
            to="2.12",
            title="cu126 is still built",
            before="""
                --index-url https://download.pytorch.org/whl/cu126
                torch
            """,
        ),
        Example(
            path="requirements.txt",
            to="2.12",
            title="no torch install: the index is not ours to move",
            before="""
                --extra-index-url https://download.pytorch.org/whl/cu118
                numpy
            """,
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            title="nightly index",
            before="""
                RUN pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu128
            """,
        ),
    ],
)
