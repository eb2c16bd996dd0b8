"""Moves each requirement set that excludes the target to it as a whole: torch and every companion pinned with it.

## What it does
A requirement set — a requirements file, a `pyproject.toml`, a `setup.cfg`/`setup.py`, a conda environment, a
Dockerfile stage, a CI job or matrix leg — moves to the newest patch of the target that all of it can follow: torch
(`torch==2.7.1` → `torch==2.12.1`, `torch>=2.4,<2.8` → `<2.13`, `torch~=2.7.0` → `~=2.12.0`, Poetry's `"~2.7"` →
`"~2.12"`), each pinned companion to its release for that torch (torchvision `0.22.1` → `0.27.1`, torchaudio
`2.7.1` → `2.11.1`, xformers, torch-tensorrt, torchdata), torch's own pins (`triton==3.3.0` → `3.7.1`), CI test
flags that name the torch version (`--torch_ver="2.6"`), and — with `cuda-wheels` — the CUDA build. If anything in
the set cannot follow (torchtext has no release after torch 2.3, intel-extension-for-pytorch none after 2.8, the base
image's Python is too old, the wheel index has no build), nothing in it changes and one finding names what blocks it
and the newest release the set can move to. A requirement whose lower bound is above the target is never lowered.

Never edited, reported instead: lock files (pip-compile / `uv pip compile` output, `==` pins with `--hash`,
`poetry.lock`, `pdm.lock`, `uv.lock`, conda lock files: regenerate them after moving the sources, with the command
the finding names); CI legs that test a minimum (the lowest entry of a matrix, a job or variable named
min/minimum/oldest/lowest, a pin equal to the project's declared floor); conda packages (the `pytorch` channel ends
with 2.5); `pytorch/pytorch` base images; versions built from shell expressions; nightly and test builds; direct
wheel links; a cap (`torch<2.6`) below behaviour changes whose passes are not part of the run.

## Why
A pin edit is right only if the whole set still installs: torch 2.12 next to an untouched `torchaudio==2.10.0`
(which requires `torch==2.10.0`) does not resolve, and a CI job that tests the project's minimum torch must keep
testing it.

## Fix safety
Safe: only version numbers change, to releases the compatibility table (read from each wheel's metadata on the
package index) shows install together.

## Where
Dependency declarations only: requirements files, PEP 621 / Poetry / PDM / uv dependency tables, `setup.cfg`
`install_requires`/`extras_require`, `setup.py` strings (outside `dependency_links`; read as tokens, never run),
conda environments, and `pip`/`uv`/`conda` install commands in Dockerfiles, CI files and notebooks — never other
TOML tables, comments, or unpinned requirements. `# migrate: ignore` on a line keeps its whole set as it is.
"""

from __future__ import annotations

from torchmigrate.core.passes import PROJECT, SAFE, Example, Pass
from torchmigrate.project.context import ProjectContext


def rewrite_torch_pins(text: str, ctx: ProjectContext) -> str:
    return ctx.apply(ctx.pass_.id)


PASS = Pass(
    id="torch-pin",
    release="1.9",
    safety=SAFE,
    files=PROJECT,
    title="requirement sets that exclude the target → its release, torch and companions together, or a finding",
    evidence=(
        "the compatibility table torchmigrate/project/data/compat.json: each wheel's Requires-Dist on the package index "
        "(python -m torchmigrate.project.tables); pytorch/pytorch#138506 (conda channel); pytorch/audio#4212 "
        "(torchaudio 2.11 supports torch>=2.11)"
    ),
    triggers=("torch", "xformers", "triton", "tensorrt", "extension", "oneccl", "nvidia-"),
    project_rewrite=rewrite_torch_pins,
    examples=[
        Example(path="requirements.txt", to="2.12", before="""
            torch==2.7.1
            numpy>=1.26
        """, after="""
            torch==2.12.1
            numpy>=1.26
        """),
        Example(
            path="pyproject.toml",
            to="2.12",
            before="""
                [project]
                dependencies = ["torch>=2.4,<2.8", "torchvision==0.22.1"]
            """,
            after="""
                [project]
                dependencies = ["torch>=2.4,<2.13", "torchvision==0.27.1"]
            """,
        ),
        Example(
            path="setup.cfg",
            to="2.12",
            before="""
                [options]
                install_requires =
                    torch~=2.7.0
            """,
            after="""
                [options]
                install_requires =
                    torch~=2.12.0
            """,
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            title="the whole set moves: torchaudio 2.11.1 requires torch>=2.11",
            before="""
                FROM python:3.11-slim
                RUN pip install "torch==2.7.1" torchvision==0.22.1 torchaudio==2.7.1
            """,
            after="""
                FROM python:3.11-slim
                RUN pip install "torch==2.12.1" torchvision==0.27.1 torchaudio==2.11.1
            """,
        ),
        Example(
            path="requirements.txt",
            to="2.12",
            title="a companion with no release for the target blocks the set",
            before="""
                torch==2.3.1
                torchtext==0.18.0
            """,
            findings=1,
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            title="the base image's Python cannot run the target",
            before="""
                FROM python:3.9-slim
                RUN pip install torch==2.7.1
            """,
            findings=1,
        ),
        Example(
            path="requirements.txt",
            to="2.12",
            title="a lock file is reported, never edited",
            before="""
                # This file is autogenerated by pip-compile with Python 3.11
                # by the following command:
                #
                #    pip-compile requirements.in
                #
                torch==2.7.1
                    # via -r requirements.in
            """,
            findings=1,
        ),
        Example(
            path="pyproject.toml", to="2.12", title="only dependency tables are read", before="""
                [tool.isort]
                known_third_party = ["torch==1.8"]
            """
        ),
        Example(
            path="requirements.txt", to="2.12", title="already admits the target", before="""
                torch>=2.4
                # torch==1.13.1
                torch-tensorrt>=2.4
            """
        ),
    ],
)
