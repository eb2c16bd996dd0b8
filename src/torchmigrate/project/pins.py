"""Where torch is pinned: the project files torchmigrate reads, and the requirement specifiers inside them.

One scanner serves both ``--from`` detection (:func:`torchmigrate.core.versions.detect_pinned_version`) and the project
file passes (:mod:`torchmigrate.project.context`), so both agree on what counts as a pin. Pure text: nothing here runs or
imports project code (``setup.py`` is read as tokens, never executed).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

from torchmigrate.core.versions import CLAUSE_RE

__all__ = [
    "CLAUSE_RE",
    "PINNED_PACKAGES",
    "Requirement",
    "find_requirements",
    "project_kind",
    "regions",
]

PINNED_PACKAGES = ("torch", "torchvision", "torchaudio")

# A version clause: operator and version, as PEP 440 writes them (``==2.7.1+cu128``, ``>=2.4``, ``==2.7.*``).
_SPEC = r"(?:===|==|~=|>=|<=|!=|>|<)\s*[0-9][^\s,;\"'\])#\\]*"
REQUIREMENT_RE = re.compile(
    r"(?<![\w.\-/=+@])(?P<name>torchvision|torchaudio|torch)(?![\w.\-])"
    r"\s*(?P<extras>\[[^\]\n]*\])?\s*\(?\s*"
    rf"(?P<spec>{_SPEC}(?:\s*,\s*{_SPEC})*)",
    re.IGNORECASE,
)
_PIP_RE = re.compile(r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b|\buv\s+add\b")
CI_FILES = frozenset(
    {".gitlab-ci.yml", "azure-pipelines.yml", ".travis.yml", "bitbucket-pipelines.yml", "cloudbuild.yaml", "cloudbuild.yml"}
)


@dataclass(frozen=True)
class Requirement:
    """A requirement on a torch package found in a file: its name and the span of its version specifier."""

    name: str
    spec: str
    start: int  # where the name starts
    spec_start: int
    spec_end: int
    poetry: bool = False  # a Poetry constraint (``^2.7``, ``~2.7``, ``2.7.1``) rather than a PEP 440 specifier

    @property
    def pep440(self) -> str:
        """The specifier in PEP 440 terms (a Poetry constraint translated)."""
        return poetry_to_pep440(self.spec) if self.poetry else self.spec


def project_kind(path: PurePath) -> str | None:
    """Which kind of project file ``path`` is (``requirements``, ``pyproject``, ``setupcfg``, ``setuppy``,
    ``dockerfile``, ``ci``, ``shell``), or ``None`` for any other file. Shell scripts (``*.sh``) are read like
    Dockerfiles (their ``pip install`` commands) but do not set ``--from``."""
    name = path.name.lower()
    parent = path.parent.name.lower()
    if name.endswith(".txt") and (name.startswith(("requirements", "constraints")) or parent == "requirements"):
        return "requirements"
    if name in ("environment.yml", "environment.yaml"):
        return "requirements"
    if name == "pyproject.toml":
        return "pyproject"
    if name == "setup.cfg":
        return "setupcfg"
    if name == "setup.py":
        return "setuppy"
    if name in ("dockerfile", "containerfile") or name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile"
    if name.endswith(".sh"):
        return "shell"
    if name.endswith((".yml", ".yaml")):
        parts = [p.lower() for p in path.parts]
        in_workflows = len(parts) >= 3 and parts[-3] == ".github" and parts[-2] == "workflows"
        if in_workflows or name in CI_FILES or (parent == ".circleci" and name == "config.yml"):
            return "ci"
    return None


def regions(kind: str, text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` where requirements of a file of ``kind`` live.

    Requirements files, ``pyproject.toml`` and ``setup.cfg``: all of it. ``setup.py``: its string literals only.
    Dockerfiles and CI files: the ``pip install`` / ``uv add`` commands (with their ``\\`` continuation lines).
    """
    if kind in ("requirements", "pyproject", "setupcfg"):
        return [(0, len(text))]
    if kind == "setuppy":
        return list(_string_literals(text))
    return list(_pip_commands(text))


def _string_literals(text: str) -> Iterator[tuple[int, int]]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                (row0, col0), (row1, col1) = tok.start, tok.end
                yield starts[row0 - 1] + col0, starts[row1 - 1] + col1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return


def _pip_commands(text: str) -> Iterator[tuple[int, int]]:
    offset = 0
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        start = offset
        group = lines[i]
        offset += len(lines[i])
        while group.rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
            i += 1
            group += lines[i]
            offset += len(lines[i])
        i += 1
        if _PIP_RE.search(group):
            yield start, offset


def find_requirements(text: str, kind: str, names: tuple[str, ...] = PINNED_PACKAGES) -> list[Requirement]:
    """Every versioned requirement on one of ``names`` in ``text`` (a project file of ``kind``), in text order.

    In ``pyproject.toml`` this includes Poetry's ``torch = "^2.7"`` / ``torch = { version = "2.7.1", … }`` entries.
    """
    found: list[Requirement] = []
    for lo, hi in regions(kind, text):
        for match in REQUIREMENT_RE.finditer(text, lo, hi):
            name = match.group("name").lower()
            if name in names:
                found.append(Requirement(name, match.group("spec"), match.start(), match.start("spec"), match.end("spec")))
    if kind == "pyproject":
        for match in POETRY_RE.finditer(text):
            name = match.group("name").lower()
            if name in names and match.group("spec").strip() != "*":
                spec_start, spec_end = match.span("spec")
                found.append(Requirement(name, match.group("spec"), match.start("name"), spec_start, spec_end, poetry=True))
        found.sort(key=lambda r: r.start)
    return found


# Poetry: ``torch = "^2.7"`` or ``torch = { version = "~2.7.0", source = "pytorch" }`` (one line).
POETRY_RE = re.compile(
    r"^[ \t]*(?P<q>[\"']?)(?P<name>torchvision|torchaudio|torch)(?P=q)[ \t]*=[ \t]*"
    r"(?:\{[^}\n]*?\bversion[ \t]*=[ \t]*)?[\"'](?P<spec>[^\"'\n]+)[\"']",
    re.MULTILINE | re.IGNORECASE,
)
_POETRY_CLAUSE = re.compile(r"(?P<op>\^|~(?!=)|)(?P<version>\d+(?:\.\d+)*(?:\.\*)?)$")


def poetry_to_pep440(spec: str) -> str:
    """A Poetry constraint in PEP 440 terms: ``^2.7`` → ``>=2.7,<3``, ``~2.7`` → ``>=2.7,<2.8``, ``2.7.1`` → ``==2.7.1``.

    Comma- or space-separated clauses are ANDed; PEP 440 clauses pass through.
    """
    out = []
    for clause in re.split(r"[\s,]+", spec.strip()):
        match = _POETRY_CLAUSE.match(clause)
        if not match:
            out.append(clause)
            continue
        version, op = match.group("version"), match.group("op")
        numbers = [int(p) for p in version.rstrip(".*").split(".")]
        if op == "":
            out.append(f"=={version}")
        elif op == "^":
            first = next((i for i, n in enumerate(numbers) if n), len(numbers) - 1)
            upper = numbers[:first] + [numbers[first] + 1]
            out.append(f">={version},<{'.'.join(map(str, upper))}")
        else:
            upper = numbers[:1] + [numbers[1] + 1] if len(numbers) > 1 else [numbers[0] + 1]
            out.append(f">={version},<{'.'.join(map(str, upper))}")
    return ",".join(c for c in out if c)


def torch_specs(text: str, kind: str) -> list[str]:
    """The version specifiers (in PEP 440 terms) that ``text`` (a project file of ``kind``) puts on ``torch``."""
    return [r.pep440 for r in find_requirements(text, kind, ("torch",))]
