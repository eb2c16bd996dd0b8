"""Moves CUDA wheel variants that the target release no longer builds to the nearest newer one.

## What it does
`--extra-index-url https://download.pytorch.org/whl/cu128` → `.../whl/cu130` for `--to 2.12` (2.12 dropped
CUDA 12.8 builds); `torch==2.7.1+cu118` → `+cu126` for `--to 2.8` and later (2.8 dropped CUDA 11.8). A variant
newer than every build of the target, nightly and test indexes, and `cpu`/ROCm indexes are left alone.

## Why
pip finds no wheel of the new torch on an index the release was not built for, or silently falls back to
another index. The 2.12 release notes: "Users explicitly pinning the cu128 index URL will need to switch to
cu130 (recommended) or cu126".

## Fix safety
Review: the edit's note names the driver floor and the GPU architectures of the new build.

## Where
`requirements*.txt` and `constraints*.txt` (and `requirements/*.txt`, `environment.yml`), `pyproject.toml`,
`setup.cfg`, string literals in `setup.py` (read as tokens, never run), `pip install` / `uv add` commands in
Dockerfiles and CI files (`.github/workflows/*.yml`, `.gitlab-ci.yml`, …). Project file passes compare the file's own
pins with `--to`, so `--from` does not gate them; `# migrate: ignore` on a line leaves it alone.
"""

from __future__ import annotations

import re

from torchmigrate.core.passes import PROJECT, REVIEW, Example, Pass
from torchmigrate.project.context import ProjectContext, apply_changes
from torchmigrate.project.ecosystem import cuda_limits, cuda_name, cuda_replacement
from torchmigrate.project.pins import find_requirements

_INDEX_URL_RE = re.compile(r"https?://download\.pytorch\.org/whl/(?P<cu>cu(?P<num>\d{3}))(?=/?(?:$|[\s\"'\],;#)]))")



_LOCAL_CUDA_RE = re.compile(r"\+cu(?P<num>\d{3})\b")



def rewrite_cuda_wheels(text: str, ctx: ProjectContext) -> str:
    changes: list[tuple[int, int, str]] = []

    def move(start: int, end: int, variant: int, what: str) -> None:
        new = cuda_replacement(variant, ctx.target)
        if new is None or not ctx.allowed(start):
            return
        changes.append((start, end, cuda_name(new)))
        ctx.edit(
            start,
            f"{what}: torch {ctx.target} has no {cuda_name(variant)} wheels → {cuda_name(new)}. "
            f"Review: {cuda_limits(new, ctx.target)}",
        )

    for match in _INDEX_URL_RE.finditer(text):
        move(match.start("cu"), match.end("cu"), int(match.group("num")), "PyTorch wheel index")
    for req in find_requirements(text, ctx.kind):
        for local in _LOCAL_CUDA_RE.finditer(text, req.spec_start, req.spec_end):
            move(local.start() + 1, local.end(), int(local.group("num")), f"{req.name} local version")
    return apply_changes(text, changes)



PASS = Pass(
    id="cuda-wheels",
    release="2.1",
    safety=REVIEW,
    files=PROJECT,
    title="PyTorch wheel index URLs and +cuXYZ versions without a build for the target → the nearest newer CUDA build",
    evidence=(
        "PyTorch 2.12 release notes (cu128 builds dropped, pytorch/pytorch#179072); 2.8 release notes (cu118/cu124 "
        "removed, #155509); pytorch/pytorch RELEASE.md compatibility matrix"
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
