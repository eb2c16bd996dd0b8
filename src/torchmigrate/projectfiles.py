"""Project file passes: torch pins, CUDA wheel indexes and Python floors in requirements, pyproject.toml, setup.cfg,
setup.py, Dockerfiles and CI files.

A project file pass is a :class:`~torchmigrate.passes.Pass` with ``files="project"`` and a text rewriter
``fn(text, ctx) -> text``; it is listed by ``migrate --list``, documented by ``--explain`` and selected with
``--select`` / ``--ignore`` like any other pass. Rewriters edit the text in place (the author's quoting, spacing and
style stay), record an :class:`~torchmigrate.results.Edit` per change and report what they cannot decide as a
:class:`~torchmigrate.results.Finding`. The version tables live in :mod:`torchmigrate.ecosystem`, the requirement
scanner in :mod:`torchmigrate.pins`. ``# migrate: ignore`` (or ``# migrate: ignore[pass-id]``) on a line leaves it
alone.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from torchmigrate.ecosystem import (
    TORCHAUDIO_NEWEST,
    cuda_limits,
    cuda_name,
    cuda_replacement,
    python_floor,
    torchaudio_for,
    torchvision_for,
)
from torchmigrate.passes import PROJECT, REVIEW, SAFE, Example, Pass
from torchmigrate.pins import CLAUSE_RE, find_requirements, poetry_to_pep440, project_kind, regions
from torchmigrate.results import Edit, FileResult, Finding
from torchmigrate.versions import Version

__all__ = [
    "PROJECT_PASSES",
    "ProjectContext",
    "admits",
    "migrate_project_text",
    "move_spec",
]

_IGNORE_RE = re.compile(r"#\s*migrate:\s*ignore(?:\[(?P<ids>[^\]]*)\])?")


@dataclass
class ProjectContext:
    """What a project file rewriter sees: the file's kind and name, the target release, and where to report."""

    path: PurePath
    kind: str
    target: Version
    pass_: Pass
    text: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._starts = [0]
        for line in self.text.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def allowed(self, offset: int) -> bool:
        line = bisect.bisect_right(self._starts, offset) - 1
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        match = _IGNORE_RE.search(self.text, self._starts[line], end)
        if match is None:
            return True
        ids = match.group("ids")
        return ids is not None and self.pass_.id not in {i.strip() for i in ids.split(",")}

    def edit(self, offset: int, message: str) -> None:
        line, col = self.position(offset)
        self.edits.append(Edit(line, col, self.pass_.id, message, self.pass_.safety.value))

    def finding(self, offset: int, message: str) -> None:
        if self.allowed(offset):
            line, col = self.position(offset)
            self.findings.append(Finding(line, col, self.pass_.id, message))


def _replace(text: str, changes: Sequence[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(changes, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# --- version specifiers -----------------------------------------------------------------------------------------

_VERSION_RE = re.compile(r"(?P<release>\d+(?:\.\d+)*)(?P<wild>\.\*)?(?P<rest>.*)")


def _release(version: str) -> tuple[tuple[int, ...], bool]:
    match = _VERSION_RE.match(version)
    if not match:
        return (), False
    return tuple(int(p) for p in match.group("release").split(".")), bool(match.group("wild"))


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (pa > pb) - (pa < pb)


def _satisfies(candidate: tuple[int, ...], op: str, version: str) -> bool:
    release, wild = _release(version)
    if not release:
        return True
    if op in ("==", "===", "!="):
        same = candidate[: len(release)] == release if wild else _cmp(candidate, release) == 0
        return same if op != "!=" else not same
    order = _cmp(candidate, release)
    if op == ">=":
        return order >= 0
    if op == ">":
        return order > 0
    if op == "<=":
        return order <= 0
    if op == "<":
        return order < 0
    if op == "~=":
        return order >= 0 and candidate[: max(len(release) - 1, 1)] == release[: max(len(release) - 1, 1)]
    return True


def admits(spec: str, release: Version) -> bool:
    """Whether a specifier such as ``>=2.4,<2.8`` admits some patch of the feature ``release``."""
    clauses = CLAUSE_RE.findall(spec)
    patches = {p for _, v in clauses for p in _release(v)[0][2:3]} | set(range(0, 12))
    for patch in sorted(patches):
        candidate = (release.major, release.minor, patch)
        if all(_satisfies(candidate, op, v) for op, v in clauses):
            return True
    return False


def _numbers(parts: Sequence[int], width: int) -> str:
    return ".".join(str(p) for p in (list(parts) + [0] * width)[: max(width, 2)])


def move_spec(spec: str, release: Version) -> str | None:
    """``spec`` rewritten in its own style so that it admits ``release``; ``None`` when it already does, when its
    lower bound lies above ``release`` (never downgrade), or when it cannot be moved.

    ``==2.7.1`` → ``==2.12.0``; ``==2.7.*`` → ``==2.12.*``; ``~=2.7.0`` → ``~=2.12.0``; ``>=2.4,<2.8`` →
    ``>=2.4,<2.13``; ``<=2.7.1`` → ``<=2.12.0``; a local version (``+cu128``) is kept.
    """
    if admits(spec, release):
        return None
    target = (release.major, release.minor)
    low = _lowest(spec)
    if low is not None and low > release:
        return None  # the project requires something newer than the target: never lower it
    changes: list[tuple[int, int, str]] = []
    for match in CLAUSE_RE.finditer(spec):
        op, version = match.group(1), match.group(2)
        parsed = _VERSION_RE.match(version)
        if parsed is None:
            return None
        numbers, wild = _release(version)
        width = len(numbers)
        local = parsed.group("rest") if parsed.group("rest").startswith("+") else ""
        new: str | None = None
        if op in ("==", "===") and numbers[:2] != target:
            new = _numbers(target, width) + (".*" if wild else "") + local
        elif op == "~=" and numbers[:2] != target and not _satisfies(target + (0,), "~=", version):
            new = _numbers(target, width)
        elif op == "<" and _cmp(numbers, target) <= 0:
            new = _numbers((release.major, release.minor + 1), width)
        elif op == "<=" and _cmp(numbers, target) < 0:
            new = _numbers(target, width)
        if new is not None and new != version:
            changes.append((match.start(2), match.end(2), new))
    moved = _replace(spec, changes)
    return moved if changes and admits(moved, release) else None


# --- torch-pin ----------------------------------------------------------------------------------------------------


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
        moved = _move_poetry(req.spec, wanted) if req.poetry else move_spec(req.spec, wanted)
        shown = f"{req.name} = {req.spec!r}" if req.poetry else f"{req.name}{req.spec}"
        if moved is not None:
            changes.append((req.spec_start, req.spec_end, moved))
            new = f"{req.name} = {moved!r}" if req.poetry else f"{req.name}{moved}"
            ctx.edit(req.start, f"{shown} excludes {req.name} {wanted} (torch {ctx.target}): → {new}")
            if "--hash" in _logical_line(text, req.start):
                ctx.finding(req.start, f"{req.name} moved to {moved}: its --hash values are for the old release; regenerate them")
            continue
        low = _lowest(req.pep440)
        if low is not None and low < wanted and not admits(req.pep440, wanted):
            ctx.finding(req.start, f"{shown} excludes {req.name} {wanted} (torch {ctx.target}) and cannot be moved automatically")
    for wheel in _WHEEL_RE.finditer(text):
        name = wheel.group("name").lower()
        wanted = _companion_release(name, ctx.target)
        numbers = _release(wheel.group("version"))[0]
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
    return _replace(text, changes)


# A wheel file in a URL or path: ``…/torch-2.7.1%2Bcu128-cp311-cp311-linux_x86_64.whl``.
_WHEEL_RE = re.compile(
    r"(?<![\w.-])(?P<name>torchvision|torchaudio|torch)-(?P<version>\d+\.\d+(?:\.\d+)?)(?:(?:%2B|\+)[\w.]+)?-cp\d+[^\s\"']*\.whl",
    re.IGNORECASE,
)


def _logical_line(text: str, offset: int) -> str:
    """The line around ``offset`` with the lines a trailing backslash continues it onto."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    while end != -1 and text[:end].rstrip("\r").endswith("\\"):
        end = text.find("\n", end + 1)
    return text[start : len(text) if end == -1 else end]


_POETRY_SINGLE = re.compile(r"(?P<op>\^|~(?!=)|)(?P<version>\d+(?:\.\d+)*)(?P<wild>\.\*)?")


def _move_poetry(spec: str, release: Version) -> str | None:
    """Like :func:`move_spec` for a Poetry constraint: ``2.7.1`` → ``2.12.0``, ``~2.7`` → ``~2.12``, ``^0.22`` → ``^0.27``."""
    pep440 = poetry_to_pep440(spec)
    low = _lowest(pep440)
    if admits(pep440, release) or (low is not None and low > release):
        return None
    single = _POETRY_SINGLE.fullmatch(spec.strip())
    if single is not None:
        width = len(single.group("version").split("."))
        moved = single.group("op") + _numbers((release.major, release.minor), width) + (single.group("wild") or "")
        moved = spec.replace(spec.strip(), moved)
    else:
        moved = move_spec(spec, release) or spec
    return moved if moved != spec and admits(poetry_to_pep440(moved), release) else None


def _lowest(spec: str) -> Version | None:
    lows = []
    for op, version in CLAUSE_RE.findall(spec):
        numbers, _ = _release(version)
        if op in ("==", "===", "~=", ">=", ">") and len(numbers) >= 2:
            lows.append(Version(numbers[0], numbers[1]))
    return max(lows) if lows else None


# --- cuda-wheels --------------------------------------------------------------------------------------------------

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
    return _replace(text, changes)


# --- python-floor -------------------------------------------------------------------------------------------------

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


def _python_lowest(spec: str) -> tuple[int, ...] | None:
    lows = []
    for op, version in CLAUSE_RE.findall(spec):
        numbers, _ = _release(version)
        if op in ("==", "===", "~=", ">=", ">") and numbers:
            lows.append(numbers[:2])
    return max(lows) if lows else None


def report_python_floor(text: str, ctx: ProjectContext) -> str:
    floor = python_floor(ctx.target)
    if floor is None:
        return text
    need = f"torch {ctx.target} needs Python >= {floor[0]}.{floor[1]}"
    pattern = _PY_SPEC_RES.get(ctx.kind)
    if pattern is not None:
        for match in pattern.finditer(text):
            spec = match.group("spec").strip()
            low = _python_lowest(spec)
            if low is not None and _cmp(low, floor) < 0:
                ctx.finding(
                    match.start("spec"),
                    f"the Python floor {spec!r} admits Python {'.'.join(map(str, low))}, but {need}: "
                    f"raise it to '>={floor[0]}.{floor[1]}'",
                )
    if ctx.kind == "pyproject":  # Poetry: python = "^3.8"
        for match in _POETRY_PYTHON_RE.finditer(text):
            spec = match.group("spec").strip()
            low = _python_lowest(poetry_to_pep440(spec))
            if low is not None and _cmp(low, floor) < 0:
                ctx.finding(
                    match.start("spec"),
                    f"the Python constraint {spec!r} admits Python {'.'.join(map(str, low))}, but {need}: "
                    f"raise it to '>={floor[0]}.{floor[1]}'",
                )
    if ctx.kind == "dockerfile":
        for match in _DOCKER_PYTHON_RE.finditer(text):
            if _cmp(_release(match.group("version"))[0], floor) < 0:
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
                {m.group("version") for m in _CI_ITEM_RE.finditer(value) if _cmp(_release(m.group("version"))[0], floor) < 0}
            )
            if old:
                ctx.finding(start, f"the CI tests Python {', '.join(old)}, but {need}")
    return text


_SHARED_DOC = """
## Where
`requirements*.txt` and `constraints*.txt` (and `requirements/*.txt`, `environment.yml`), `pyproject.toml`,
`setup.cfg`, string literals in `setup.py` (read as tokens, never run), `pip install` / `uv add` commands in
Dockerfiles and CI files (`.github/workflows/*.yml`, `.gitlab-ci.yml`, …). Project file passes compare the file's own
pins with `--to`, so `--from` does not gate them; `# migrate: ignore` on a line leaves it alone.
"""

TORCH_PIN_PASS = Pass(
    id="torch-pin",
    release="1.9",
    safety=SAFE,
    files=PROJECT,
    title="torch / torchvision / torchaudio requirements that exclude the target → its release, in the same style",
    evidence="torchvision ↔ torch table in pytorch/vision's README; torchaudio releases (none after 2.11)",
    triggers=("torch",),
    project_rewrite=rewrite_torch_pins,
    doc=(
        "Moves torch requirements that exclude the target release to it, keeping the author's style.\n\n"
        "## What it does\n"
        "`torch==2.7.1` → `torch==2.12.0`; `torch>=2.4,<2.8` → `torch>=2.4,<2.13`; `torch~=2.7.0` → `torch~=2.12.0`;\n"
        "`torch==2.7.*` → `torch==2.12.*`; a local version (`+cu128`) is kept (see `cuda-wheels`). torchvision and\n"
        "torchaudio requirements move to the release built for the target (torch 2.x ↔ torchvision 0.(x+15), so 2.12 ↔\n"
        "0.27). A requirement whose lower bound is above the target is never lowered. Poetry constraints\n"
        '(`torch = "~2.7"` → `"~2.12"`) move the same way. Reported, not edited: `--hash` values of a moved pin (they\n'
        "must be regenerated) and direct wheel links (`torch @ …/torch-2.7.1-cp311-….whl`).\n\n"
        "## Why\n"
        "Migrated code needs the release it was migrated to; a pin that excludes it would install the old torch.\n"
        "There is no torchaudio release for torch 2.12 or later (the newest is 2.11): a torchaudio requirement is\n"
        "reported, not guessed.\n\n"
        "## Fix safety\n"
        "Safe: only the version numbers of requirements that exclude the target change, to the target's releases.\n"
        "Regenerate lock files afterwards.\n" + _SHARED_DOC.rstrip()
    ),
    examples=[
        Example(path="requirements.txt", to="2.12", before="torch==2.7.1\nnumpy>=1.26\n", after="torch==2.12.0\nnumpy>=1.26\n"),
        Example(
            path="pyproject.toml",
            to="2.12",
            before='[project]\ndependencies = ["torch>=2.4,<2.8", "torchvision==0.22.1"]\n',
            after='[project]\ndependencies = ["torch>=2.4,<2.13", "torchvision==0.27.0"]\n',
        ),
        Example(
            path="setup.cfg",
            to="2.12",
            before="[options]\ninstall_requires =\n    torch~=2.7.0\n",
            after="[options]\ninstall_requires =\n    torch~=2.12.0\n",
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            before='FROM python:3.11-slim\nRUN pip install "torch==2.7.1" torchvision==0.22.1\n',
            after='FROM python:3.11-slim\nRUN pip install "torch==2.12.0" torchvision==0.27.0\n',
        ),
        Example(
            path="requirements.txt", to="2.12", title="already admits the target", before="torch>=2.4\ntorch-tensorrt==2.7.0\n"
        ),
        Example(path="requirements.txt", to="2.12", title="torchaudio has no 2.12", before="torchaudio==2.7.1\n", findings=1),
    ],
)

CUDA_WHEELS_PASS = Pass(
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
    doc=(
        "Moves CUDA wheel variants that the target release no longer builds to the nearest newer one.\n\n"
        "## What it does\n"
        "`--extra-index-url https://download.pytorch.org/whl/cu128` → `.../whl/cu130` for `--to 2.12` (2.12 dropped\n"
        "CUDA 12.8 builds); `torch==2.7.1+cu118` → `+cu126` for `--to 2.8` and later (2.8 dropped CUDA 11.8). A variant\n"
        "newer than every build of the target, nightly and test indexes, and `cpu`/ROCm indexes are left alone.\n\n"
        "## Why\n"
        "pip finds no wheel of the new torch on an index the release was not built for, or silently falls back to\n"
        'another index. The 2.12 release notes: "Users explicitly pinning the cu128 index URL will need to switch to\n'
        'cu130 (recommended) or cu126".\n\n'
        "## Fix safety\n"
        "Review: the edit's note names the driver floor and the GPU architectures of the new build.\n" + _SHARED_DOC.rstrip()
    ),
    examples=[
        Example(
            path="requirements.txt",
            to="2.12",
            before="--extra-index-url https://download.pytorch.org/whl/cu128\ntorch==2.12.0\n",
            after="--extra-index-url https://download.pytorch.org/whl/cu130\ntorch==2.12.0\n",
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
            before="--index-url https://download.pytorch.org/whl/cu126\n",
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            title="nightly index",
            before="RUN pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu128\n",
        ),
    ],
)

PYTHON_FLOOR_PASS = Pass(
    id="python-floor",
    release="1.12",
    safety=SAFE,
    files=PROJECT,
    title="Python floors below the target's minimum (requires-python, python_requires, python images, CI matrices) → finding",
    evidence="RELEASE.md compatibility matrix; PyTorch 2.9 release notes (Python >= 3.10, pytorch/pytorch#162310)",
    triggers=("python",),
    project_rewrite=report_python_floor,
    doc=(
        "Reports a Python floor below the minimum of the target release.\n\n"
        "## What it does\n"
        "A finding for `requires-python` (pyproject.toml), `python_requires` (setup.cfg, setup.py), `FROM python:3.X`\n"
        "images and CI `python-version` entries that admit a Python the target does not support (torch 2.9 and later\n"
        "need Python >= 3.10; 2.5-2.8 need 3.9; 2.0-2.4 need 3.8).\n\n"
        "## Why\n"
        "pip would resolve an old torch (or none) on those Pythons; the project's metadata promises what the new\n"
        "torch cannot keep.\n\n"
        "## Fix safety\n"
        "No edit: raising a floor drops users and may be a release decision, so it is reported.\n" + _SHARED_DOC.rstrip()
    ),
    examples=[
        Example(path="pyproject.toml", to="2.12", before='[project]\nrequires-python = ">=3.8"\n', findings=1),
        Example(path="setup.py", to="2.12", before='setup(name="app", python_requires=">=3.9")\n', findings=1),
        Example(path=".github/workflows/test.yml", to="2.12", before='        python-version: ["3.9", "3.12"]\n', findings=1),
        Example(
            path="pyproject.toml", to="2.12", title="floor already high enough", before='[project]\nrequires-python = ">=3.10"\n'
        ),
    ],
)

PROJECT_PASSES: tuple[Pass, ...] = (TORCH_PIN_PASS, CUDA_WHEELS_PASS, PYTHON_FLOOR_PASS)


def migrate_project_text(text: str, path: PurePath, passes: Sequence[Pass], to: Version, shown: str | None = None) -> FileResult:
    """Run the project file ``passes`` over ``text``, the content of project file ``path``. Never raises for a bad file."""
    result = FileResult(path=shown if shown is not None else path.as_posix(), old=text, new=text)
    kind = project_kind(path)
    if kind is None:
        return result
    code = text
    for pass_ in passes:
        if pass_.project_rewrite is None or not any(t in code for t in pass_.triggers):
            continue
        ctx = ProjectContext(path, kind, to, pass_, code)
        try:
            new_code = pass_.project_rewrite(code, ctx)
        except Exception as exc:  # a bug in one pass must not lose the file or stop the run
            result.new = None
            result.error = f"pass {pass_.id} failed: {type(exc).__name__}: {exc}"
            return result
        result.findings.extend(ctx.findings)
        if new_code != code:
            result.edits.extend(ctx.edits)
            result.passes_applied.append(pass_.id)
            code = new_code
    result.new = code
    return result
