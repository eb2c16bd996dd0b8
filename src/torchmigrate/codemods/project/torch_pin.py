"""Moves torch requirements that exclude the target release to it, keeping the author's style.

## What it does
`torch==2.7.1` → `torch==2.12.0`; `torch>=2.4,<2.8` → `torch>=2.4,<2.13`; `torch~=2.7.0` → `torch~=2.12.0`;
`torch==2.7.*` → `torch==2.12.*`; a local version (`+cu128`) is kept (see `cuda-wheels`). torchvision and
torchaudio requirements move to the release built for the target (torch 2.x ↔ torchvision 0.(x+15), so 2.12 ↔
0.27). A requirement whose lower bound is above the target is never lowered. Poetry constraints
(`torch = "~2.7"` → `"~2.12"`) move the same way. Reported, not edited: `--hash` values of a moved pin (they
must be regenerated) and direct wheel links (`torch @ …/torch-2.7.1-cp311-….whl`).

## Why
Migrated code needs the release it was migrated to; a pin that excludes it would install the old torch.
There is no torchaudio release for torch 2.12 or later (the newest is 2.11): a torchaudio requirement is
reported, not guessed.

## Fix safety
Safe: only the version numbers of requirements that exclude the target change, to the target's releases.
Regenerate lock files afterwards.

## Where
`requirements*.txt` and `constraints*.txt` (and `requirements/*.txt`, `environment.yml`), `pyproject.toml`,
`setup.cfg`, string literals in `setup.py` (read as tokens, never run), `pip install` / `uv add` commands in
Dockerfiles and CI files (`.github/workflows/*.yml`, `.gitlab-ci.yml`, …). Project file passes compare the file's own
pins with `--to`, so `--from` does not gate them; `# migrate: ignore` on a line leaves it alone.
"""

from __future__ import annotations

import re

from torchmigrate.core.passes import PROJECT, SAFE, Example, Pass
from torchmigrate.core.versions import Version
from torchmigrate.project.context import ProjectContext, apply_changes, logical_line
from torchmigrate.project.ecosystem import TORCHAUDIO_NEWEST, torchaudio_for, torchvision_for
from torchmigrate.project.pins import find_requirements, regions
from torchmigrate.project.specs import admits, lowest_release, move_poetry, move_spec, release_parts


def _companion_release(name: str, target: Version) -> Version | None:
    if name == "torch":
        return target
    if name == "torchvision":
        return torchvision_for(target)
    return torchaudio_for(target)



_TORCHAUDIO_RE = re.compile(r"(?<![\w.\-/=+@])torchaudio(?![\w.\-])", re.IGNORECASE)



def rewrite_torch_pins(text: str, ctx: ProjectContext) -> str:
    changes: list[tuple[int, int, str]] = []
    for req in find_requirements(text, ctx.kind):
        if not ctx.allowed(req.start):
            continue
        wanted = _companion_release(req.name, ctx.target)
        if wanted is None:
            continue  # torchaudio past its last release: reported below
        moved = move_poetry(req.spec, wanted) if req.poetry else move_spec(req.spec, wanted)
        shown = f"{req.name} = {req.spec!r}" if req.poetry else f"{req.name}{req.spec}"
        if moved is not None:
            changes.append((req.spec_start, req.spec_end, moved))
            new = f"{req.name} = {moved!r}" if req.poetry else f"{req.name}{moved}"
            ctx.edit(req.start, f"{shown} excludes {req.name} {wanted} (torch {ctx.target}): → {new}")
            if "--hash" in logical_line(text, req.start):
                ctx.finding(req.start, f"{req.name} moved to {moved}: its --hash values are for the old release; regenerate them")
            continue
        low = lowest_release(req.pep440)
        if low is not None and low < wanted and not admits(req.pep440, wanted):
            ctx.finding(req.start, f"{shown} excludes {req.name} {wanted} (torch {ctx.target}) and cannot be moved automatically")
    for wheel in _WHEEL_RE.finditer(text):
        name = wheel.group("name").lower()
        wanted = _companion_release(name, ctx.target)
        numbers = release_parts(wheel.group("version"))[0]
        if wanted is not None and numbers[:2] != (wanted.major, wanted.minor) and ctx.allowed(wheel.start()):
            ctx.finding(
                wheel.start("name"),
                f"a direct wheel link pins {name} {wheel.group('version')}: replace it with a requirement on "
                f"{name} {wanted}" + ("" if name == "torch" else f" (built for torch {ctx.target})"),
            )
    if torchaudio_for(ctx.target) is None:
        for lo, hi in regions(ctx.kind, text):
            for match in _TORCHAUDIO_RE.finditer(text, lo, hi):
                ctx.finding(
                    match.start(),
                    f"there is no torchaudio release for torch {ctx.target} (the newest, {TORCHAUDIO_NEWEST}.x, was built for "
                    f"torch {TORCHAUDIO_NEWEST}): torchaudio cannot follow the torch pin; test torchaudio {TORCHAUDIO_NEWEST} "
                    f"with torch {ctx.target} or drop the dependency",
                )
    return apply_changes(text, changes)



# A wheel file in a URL or path: ``…/torch-2.7.1%2Bcu128-cp311-cp311-linux_x86_64.whl``.
_WHEEL_RE = re.compile(
    r"(?<![\w.-])(?P<name>torchvision|torchaudio|torch)-(?P<version>\d+\.\d+(?:\.\d+)?)(?:(?:%2B|\+)[\w.]+)?-cp\d+[^\s\"']*\.whl",
    re.IGNORECASE,
)



PASS = Pass(
    id="torch-pin",
    release="1.9",
    safety=SAFE,
    files=PROJECT,
    title="torch / torchvision / torchaudio requirements that exclude the target → its release, in the same style",
    evidence="torchvision ↔ torch table in pytorch/vision's README; torchaudio releases (none after 2.11)",
    triggers=("torch",),
    project_rewrite=rewrite_torch_pins,
    examples=[
        Example(path="requirements.txt", to="2.12", before="""
            torch==2.7.1
            numpy>=1.26
        """, after="""
            torch==2.12.0
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
                dependencies = ["torch>=2.4,<2.13", "torchvision==0.27.0"]
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
            before="""
                FROM python:3.11-slim
                RUN pip install "torch==2.7.1" torchvision==0.22.1
            """,
            after="""
                FROM python:3.11-slim
                RUN pip install "torch==2.12.0" torchvision==0.27.0
            """,
        ),
        Example(
            path="requirements.txt", to="2.12", title="already admits the target", before="""
                torch>=2.4
                torch-tensorrt==2.7.0
            """
        ),
        Example(path="requirements.txt", to="2.12", title="torchaudio has no 2.12", before="""
            torchaudio==2.7.1
        """, findings=1),
    ],
)
