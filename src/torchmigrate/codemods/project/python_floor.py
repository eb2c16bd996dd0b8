"""Reports a Python floor below the minimum of the oldest torch the project supports after the migration.

## What it does
A finding for `requires-python` (pyproject.toml), `python_requires` (setup.cfg, setup.py), `FROM python:3.X`
images and CI `python-version` entries that admit a Python the project's torch cannot run on (torch 2.9 and later
need Python >= 3.10; 2.5-2.8 need 3.9; 2.0-2.4 need 3.8). The torch that decides is the oldest one the project's
declared requirements (pyproject.toml, setup.cfg, setup.py) admit after the migration — the target when the pin
moves to it, `1.8` for a project that keeps `torch>=1.8` — since pip picks an older torch on an older Python.

## Why
pip would resolve an old torch (or none) on those Pythons; the project's metadata promises what the new
torch cannot keep.

## Fix safety
No edit: raising a floor drops users and may be a release decision, so it is reported.

## Where
`requirements*.txt` and `constraints*.txt` (and `requirements/*.txt`, `environment.yml`), `pyproject.toml`,
`setup.cfg`, string literals in `setup.py` (read as tokens, never run), `pip install` / `uv add` commands in
Dockerfiles and CI files (`.github/workflows/*.yml`, `.gitlab-ci.yml`, …). Project file passes compare the file's own
pins with `--to`, so `--from` does not gate them; `# migrate: ignore` on a line leaves it alone.
"""

from __future__ import annotations

import re

from torchmigrate.core.passes import PROJECT, SAFE, Example, Pass
from torchmigrate.project.context import ProjectContext
from torchmigrate.project.ecosystem import python_floor
from torchmigrate.project.pins import poetry_to_pep440
from torchmigrate.project.specs import compare, python_lowest, release_parts

_PY_SPEC_RES = {
    "pyproject": re.compile(r"^\s*requires-python\s*=\s*[\"'](?P<spec>[^\"'\n]*)[\"']", re.MULTILINE),
    "setupcfg": re.compile(r"^\s*python_requires\s*=\s*(?P<spec>[^\n#;]*)", re.MULTILINE),
    "setuppy": re.compile(r"\bpython_requires\s*=\s*[\"'](?P<spec>[^\"'\n]*)[\"']"),
}



_DOCKER_PYTHON_RE = re.compile(
    r"^\s*FROM\s+(?:--\S+\s+)*(?:[\w.\-]+/)*python:(?P<version>\d+\.\d+)", re.MULTILINE | re.IGNORECASE
)



_CI_PYTHON_RE = re.compile(r"^(?P<indent>\s*)(?:-\s*)?python[-_]version\s*:(?P<value>[^\n]*)", re.MULTILINE)



_POETRY_PYTHON_RE = re.compile(r"^[ \t]*python[ \t]*=[ \t]*[\"'](?P<spec>[^\"'\n]*)[\"']", re.MULTILINE)



_CI_ITEM_RE = re.compile(r"[\"']?(?P<version>3\.\d+)\b")



def report_python_floor(text: str, ctx: ProjectContext) -> str:
    # The oldest torch the project still supports after the migration decides: a project whose declared requirements
    # keep torch>=1.8 may keep Python 3.8 (pip picks an older torch there); one that moves to the target may not.
    oldest = ctx.floor if ctx.floor is not None and ctx.floor < ctx.target else ctx.target
    floor = python_floor(oldest)
    if floor is None:
        return text
    need = f"torch {oldest} needs Python >= {floor[0]}.{floor[1]}"
    if oldest != ctx.target:
        need = f"torch {oldest} (the oldest release the project's requirements admit after the migration) " + need[len(f"torch {oldest} "):]
    pattern = _PY_SPEC_RES.get(ctx.kind)
    if pattern is not None:
        for match in pattern.finditer(text):
            spec = match.group("spec").strip()
            low = python_lowest(spec)
            if low is not None and compare(low, floor) < 0:
                ctx.finding(
                    match.start("spec"),
                    f"the Python floor {spec!r} admits Python {'.'.join(map(str, low))}, but {need}: "
                    f"raise it to '>={floor[0]}.{floor[1]}'",
                )
    if ctx.kind == "pyproject":  # Poetry: python = "^3.8"
        for match in _POETRY_PYTHON_RE.finditer(text):
            spec = match.group("spec").strip()
            low = python_lowest(poetry_to_pep440(spec))
            if low is not None and compare(low, floor) < 0:
                ctx.finding(
                    match.start("spec"),
                    f"the Python constraint {spec!r} admits Python {'.'.join(map(str, low))}, but {need}: "
                    f"raise it to '>={floor[0]}.{floor[1]}'",
                )
    if ctx.kind == "dockerfile":
        for match in _DOCKER_PYTHON_RE.finditer(text):
            if compare(release_parts(match.group("version"))[0], floor) < 0:
                ctx.finding(match.start("version"), f"the image runs Python {match.group('version')}, but {need}")
    if ctx.kind == "ci":
        for match in _CI_PYTHON_RE.finditer(text):
            value = match.group("value")
            start = match.start("value")
            if not value.strip():  # a block list on the following, more indented "- 3.x" lines
                rest = text[match.end() :]
                block = re.match(rf"(?:\n{match.group('indent')}\s+-[^\n]*)+", rest)
                value = block.group(0) if block else ""
                start = match.end()
            old = sorted(
                {m.group("version") for m in _CI_ITEM_RE.finditer(value) if compare(release_parts(m.group("version"))[0], floor) < 0}
            )
            if old:
                ctx.finding(start, f"the CI tests Python {', '.join(old)}, but {need}")
    return text



PASS = Pass(
    id="python-floor",
    release="1.12",
    safety=SAFE,
    files=PROJECT,
    title="Python floors below the target's minimum (requires-python, python_requires, python images, CI matrices) → finding",
    evidence="RELEASE.md compatibility matrix; PyTorch 2.9 release notes (Python >= 3.10, pytorch/pytorch#162310)",
    triggers=("python",),
    project_rewrite=report_python_floor,
    examples=[
        Example(path="pyproject.toml", to="2.12", before="""
            [project]
            requires-python = ">=3.8"
        """, findings=1),
        Example(path="setup.py", to="2.12", before="""
            setup(name="app", python_requires=">=3.9")
        """, findings=1),
        Example(path=".github/workflows/test.yml", to="2.12", before='        python-version: ["3.9", "3.12"]\n', findings=1),
        Example(
            path="pyproject.toml", to="2.12", title="floor already high enough", before="""
                [project]
                requires-python = ">=3.10"
            """
        ),
    ],
)
