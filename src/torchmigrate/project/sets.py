"""Requirement sets: the requirements that are installed together, and what they install into.

A requirements file, a ``pyproject.toml``, a ``setup.cfg``/``setup.py`` and a conda environment are each one set; a
Dockerfile has one set per build stage (``FROM`` … ``FROM``); a CI file one per job, and per matrix leg where the job's
torch comes from its matrix (:mod:`torchmigrate.project.ci`). A set carries its requirements (with the places their
versions are written, which may be an ``ARG``/``env`` value or a matrix entry), the PyTorch wheel indexes it installs
from, the Pythons and the base image it runs on, whether it is a lock file, and whether it tests a minimum.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from torchmigrate.project.pins import Requirement, install_commands, normalize, regions, requirements_in, toml_regions

__all__ = ["Flag", "Image", "Index", "Req", "ReqSet", "Site", "image_of", "req_of", "scan"]


@dataclass(frozen=True)
class Site:
    """Where a version is written: ``text[start:end]``. ``whole`` sites hold a specifier (``==2.7.1``, ``>=2.4,<2.8``,
    ``^2.7``); the others a bare version (``2.7.1``: an ``ARG``/``env`` value or a matrix entry) that ``template``
    (``==${V}+cpu``) turns into the specifier."""

    start: int
    end: int
    text: str
    whole: bool = True
    template: str = ""


@dataclass(frozen=True)
class Req:
    """A requirement of a set on a tracked package."""

    name: str
    spelled: str
    start: int  # where the requirement is written (messages, suppression comments)
    spec: str  # the effective specifier (variables substituted)
    site: Site | None  # where its version is written (None: unversioned)
    style: str = "pep508"  # or "poetry", "conda"
    opaque: bool = False  # its version is built from something the tool cannot read (a shell expression, a build arg)
    hashed: bool = False

    @property
    def local(self) -> str:
        """The local version label of an exact pin (``cu118`` in ``==2.7.1+cu118``), or ``""``."""
        match = re.search(r"\+([\w.]+)", self.spec)
        return match.group(1) if match else ""

    @property
    def pinned(self) -> bool:
        return bool(self.spec.strip()) or self.opaque


@dataclass(frozen=True)
class Index:
    """A PyTorch wheel index (``--index-url``/``--extra-index-url``/``-f``) the set installs from."""

    start: int
    end: int
    variant: str  # ``cu118``, ``cpu``, ``rocm6.2``, or ``""`` (a plain ``/whl/`` or ``torch_stable.html`` page)
    variant_start: int
    channel: str  # ``stable``, ``nightly``, ``test`` or ``lts``
    expression: bool = False  # the variant is an expression (``whl/${{ matrix.cuda }}``)

    @property
    def cuda(self) -> int | None:
        match = re.fullmatch(r"cu(\d{3})", self.variant)
        return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Image:
    """A container image a set runs in: a Dockerfile stage's base, or a CI job's container."""

    start: int
    name: str  # as written, ``python:3.9-slim``
    python: tuple[int, int] | None = None
    cuda: tuple[int, int] | None = None
    torch: str | None = None  # the torch a ``pytorch/pytorch`` image ships


@dataclass
class ReqSet:
    label: str  # for messages: "", "the stage FROM python:3.9", "job test", "job test (matrix torch 2.1.0)"
    reqs: list[Req] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)
    pythons: tuple[tuple[int, int], ...] = ()  # the Pythons it installs into, where the file says
    python_at: int = -1
    image: Image | None = None
    minimum: str = ""  # why it tests a minimum (left alone), or ""
    lock: str = ""  # a lock file: the command that regenerates it
    conda_channels: tuple[str, ...] = ()
    flags: list[Flag] = field(default_factory=list)
    start: int = 0  # where the set begins (messages about the set as a whole)
    ci: bool = False  # a CI job or leg


@dataclass(frozen=True)
class Flag:
    """A test flag or variable of a CI job that names the torch or CUDA version (``--torch_ver="2.6"``)."""

    what: str  # "torch" or "cuda"
    site: Site


# --- indexes ---------------------------------------------------------------------------------------------------------

_INDEX_RE = re.compile(
    r"https?://download\.pytorch\.org/whl/(?P<path>(?:(?:nightly|test|lts/[\d.]+)/)?"
    r"(?P<variant>cu\d{3}|cpu(?:[-_.]\w+)?|rocm[\d.]+|xpu|\$\{\{[^}]*\}\}|\$\{?\w+\}?)?)"
    r"(?=/?(?:$|[\s\"'\],;#)]|torch_stable\.html|torch/|torchvision/|torchaudio/))",
)


def indexes_in(text: str, lo: int = 0, hi: int | None = None) -> list[Index]:
    hi = len(text) if hi is None else hi
    found = []
    for match in _INDEX_RE.finditer(text, lo, hi):
        path = match.group("path")
        channel = "stable"
        if path.startswith("nightly/"):
            channel = "nightly"
        elif path.startswith("test/"):
            channel = "test"
        elif path.startswith("lts/"):
            channel = "lts"
        variant = match.group("variant") or ""
        found.append(
            Index(
                match.start(),
                match.end(),
                variant,
                match.start("variant") if variant else match.end(),
                channel,
                expression=variant.startswith("$"),
            )
        )
    return found


# --- images ----------------------------------------------------------------------------------------------------------

_PY_IMAGE = re.compile(r"(?:^|/)python:(?P<v>\d+\.\d+)")
_CUDA_IMAGE = re.compile(r"(?:^|/)(?:nvidia/)?cuda:(?P<v>\d+\.\d+)")
_TORCH_IMAGE = re.compile(r"(?:^|/)pytorch/pytorch:(?P<t>\d+\.\d+(?:\.\d+)?)(?:-cuda(?P<c>\d+\.\d+))?")


def image_of(start: int, name: str) -> Image:
    """What an image reference tells: ``python:3.9-slim`` (Python 3.9), ``nvidia/cuda:11.1.1-devel`` (CUDA 11.1),
    ``pytorch/pytorch:2.1.0-cuda11.8-cudnn8-runtime`` (torch 2.1.0, CUDA 11.8)."""

    def pair(text: str | None) -> tuple[int, int] | None:
        if not text:
            return None
        major, minor = text.split(".")[:2]
        return int(major), int(minor)

    py = _PY_IMAGE.search(name)
    cuda = _CUDA_IMAGE.search(name)
    torch = _TORCH_IMAGE.search(name)
    return Image(
        start,
        name,
        python=pair(py.group("v")) if py else None,
        cuda=pair(cuda.group("v")) if cuda else pair(torch.group("c")) if torch and torch.group("c") else None,
        torch=torch.group("t") if torch else None,
    )


# --- lock files ------------------------------------------------------------------------------------------------------

_PIP_COMPILE = re.compile(r"^#\s*This file is autogenerated by pip-compile", re.MULTILINE | re.IGNORECASE)
_UV_COMPILE = re.compile(r"^#\s*This file was autogenerated by uv", re.MULTILINE | re.IGNORECASE)
_HEADER_COMMAND = re.compile(r"^#\s+((?:pip-compile|uv pip compile)\b[^\n]*)", re.MULTILINE)
# The command that moves torch in each lock file: a plain `uv lock` (and poetry 2's `poetry lock`) keeps a locked
# version that still satisfies the requirements, so a lock whose requirement already admits the target would stay.
LOCK_COMMANDS = {
    "poetry.lock": "poetry update torch",
    "pdm.lock": "pdm update torch",
    "uv.lock": "uv lock --upgrade-package torch",
    "pipfile.lock": "pipenv update torch",
    "pixi.lock": "pixi update torch",
}


def lock_command(name: str, kind: str, text: str) -> str:
    """The command that regenerates ``text`` when it is a lock file (named ``name``), else ``""``."""
    lower = name.lower()
    if kind == "lock":
        if lower in LOCK_COMMANDS:
            return LOCK_COMMANDS[lower]
        return "conda-lock -f environment.yml"
    if kind != "requirements":
        return ""
    header = _HEADER_COMMAND.search(text)
    if _PIP_COMPILE.search(text) or _UV_COMPILE.search(text):
        if header:
            return header.group(1).strip()
        return "uv pip compile" if _UV_COMPILE.search(text) else "pip-compile"
    if re.search(r"--hash[=\s]", text):
        lines = [line.split("#")[0].strip() for line in text.splitlines()]
        pins = [line for line in lines if line and not line.startswith(("-", "\\"))]
        if pins and all("==" in line for line in pins):
            return "pip-compile --generate-hashes (or uv pip compile --generate-hashes)"
    return ""


_LOCKED_PACKAGE = re.compile(
    r"(?:^\[\[package\]\]\s*\nname\s*=\s*\"(?P<toml>[^\"]+)\"\s*\nversion\s*=\s*\"(?P<tv>[^\"]+)\")"
    r"|(?:^\s*-?\s*name:\s*(?P<yaml>[\w.-]+)\s*\n\s*version:\s*['\"]?(?P<yv>[\w.+]+))"
    r"|(?:\"(?P<json>[\w.-]+)\":\s*\{[^{}]*?\"version\":\s*\"==(?P<jv>[\w.+]+)\")",
    re.MULTILINE,
)


def locked_versions(text: str) -> list[tuple[str, str, int]]:
    """The (package, version, offset) pairs a lock file pins (uv/poetry/pdm TOML, conda-lock YAML, Pipfile.lock JSON)."""
    found = []
    for match in _LOCKED_PACKAGE.finditer(text):
        name = match.group("toml") or match.group("yaml") or match.group("json")
        version = match.group("tv") or match.group("yv") or match.group("jv")
        found.append((normalize(name), version, match.start()))
    return found


# --- scanning --------------------------------------------------------------------------------------------------------


def req_of(r: Requirement, hashed: bool = False) -> Req:
    """The set's view of a requirement found by :mod:`torchmigrate.project.pins`."""
    style = "poetry" if r.poetry else "conda" if r.conda else "pep508"
    site = Site(r.spec_start, r.spec_end, r.spec) if r.spec else None
    return Req(r.name, r.spelled or r.name, r.start, r.pep440, site, style, hashed=hashed)


def _hashed(text: str, offset: int) -> bool:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    while end != -1 and text[:end].rstrip("\r").endswith("\\"):
        end = text.find("\n", end + 1)
    return "--hash" in text[start : len(text) if end == -1 else end]


def scan(text: str, kind: str, name: str = "") -> list[ReqSet]:
    """The requirement sets of ``text``, a project file of ``kind`` named ``name``."""
    if kind == "ci":
        raise ValueError("CI files are read job by job: see torchmigrate.project.ci")
    if kind == "dockerfile":
        return scan_dockerfile(text)
    whole = ReqSet("")
    whole.lock = lock_command(name, kind, text)
    if kind == "lock":
        return [whole]
    whole.reqs = [req_of(r, _hashed(text, r.start)) for r in requirements_in(text, kind)]
    for lo, hi in regions(kind, text):
        whole.reqs.extend(wheel_links(text, lo, hi))
    whole.reqs.sort(key=lambda r: r.start)
    if kind == "pyproject":
        for (lo, hi), _ in _string_values(text):
            whole.indexes.extend(indexes_in(text, lo, hi))
    elif kind in ("requirements", "setupcfg"):
        for lo, hi in regions("requirements", text):
            whole.indexes.extend(indexes_in(text, lo, hi))
    elif kind == "conda":
        whole.conda_channels = tuple(_conda_channels(text))
        whole.indexes = indexes_in(text)
    return [whole]


def _string_values(text: str) -> list[tuple[tuple[int, int], str]]:
    """Every string value of a TOML file outside comments (index URLs live in ``[[tool.uv.index]]`` and the like)."""
    spans = []
    for match in re.finditer(r"^[^#\n]*?=[ \t]*(?P<q>[\"'])(?P<v>[^\"'\n]*)(?P=q)", text, re.MULTILINE):
        spans.append(((match.start("v"), match.end("v")), "string"))
    spans.extend(toml_regions(text))
    return spans


def _conda_channels(text: str) -> list[str]:
    found = []
    inside = False
    for line in text.splitlines():
        body = line.split("#")[0]
        if not body.strip():
            continue
        if not body[:1].isspace() and not body.lstrip().startswith("-"):
            inside = body.strip().startswith("channels:")
            continue
        if inside and body.strip().startswith("-"):
            found.append(body.strip()[1:].strip())
    return found


# --- Dockerfiles -----------------------------------------------------------------------------------------------------

_FROM = re.compile(r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*(?P<image>\S+)", re.IGNORECASE | re.MULTILINE)
_ARG = re.compile(
    r"^[ \t]*(?:ARG|ENV)[ \t]+(?P<name>[A-Za-z_]\w*)(?:[ \t]*=[ \t]*|[ \t]+)(?P<q>[\"']?)(?P<value>[^\s\"']*)(?P=q)",
    re.IGNORECASE | re.MULTILINE,
)
_VAR = re.compile(r"\$\{(?P<a>[A-Za-z_]\w*)\}|\$(?P<b>[A-Za-z_]\w*)")


def scan_dockerfile(text: str) -> list[ReqSet]:
    """One set per build stage: its base image, its ``pip``/``conda`` installs, ``PIP_*INDEX_URL`` variables."""
    values: dict[str, Site] = {}
    for match in _ARG.finditer(text):
        if match.group("value"):
            values.setdefault(match.group("name"), Site(match.start("value"), match.end("value"), match.group("value"), False))
    starts = [m.start() for m in _FROM.finditer(text)]
    bounds = list(zip(starts, [*starts[1:], len(text)], strict=True)) if starts else [(0, len(text))]
    if starts and starts[0] > 0 and install_commands(text[: starts[0]]):
        bounds.insert(0, (0, starts[0]))  # commands before the first FROM (or shell lines of a notebook)
    sets: list[ReqSet] = []
    for lo, hi in bounds:
        stage = ReqSet("", start=lo)
        head = _FROM.match(text, lo)
        if head is not None and head.start() < hi:
            image = resolve(head.group("image"), values)
            if image is not None:
                stage.image = image_of(head.start("image"), image)
                stage.label = f"the stage FROM {head.group('image')}"
                if stage.image.python:
                    stage.pythons = (stage.image.python,)
                    stage.python_at = head.start("image")
        stage.reqs = reqs_in_commands(text, lo, hi, values)
        stage.indexes = [i for i in indexes_in(text, lo, hi)]
        if stage.reqs or stage.indexes or stage.image is not None:
            sets.append(stage)
    return sets


def resolve(value: str, values: dict[str, Site]) -> str | None:
    """``value`` with its ``$VAR`` / ``${VAR}`` references replaced by the variables' values, or ``None`` when one is
    unknown (or uses a shell operator such as ``${A:+…}``)."""
    if re.search(r"\$\{\w*[:#%/]", value):
        return None
    unknown = False

    def sub(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group("a") or match.group("b")
        if name not in values:
            unknown = True
            return ""
        return values[name].text

    out = _VAR.sub(sub, value)
    return None if unknown else out


# A wheel of a torch-family package named by URL or path: ``…/torch_xla-1.12-cp37-cp37m-linux_x86_64.whl``.
_WHEEL = re.compile(
    r"(?<![\w.-])(?P<name>torch_xla|torch_tensorrt|torchvision|torchaudio|torchtext|torch)-(?P<version>\d+\.\d+(?:\.\d+)?)"
    r"(?:(?:%2B|\+)[\w.]+)?-(?:cp|py)\d+[^\s\"']*\.whl",
    re.IGNORECASE,
)


def wheel_links(text: str, lo: int, hi: int) -> list[Req]:
    """Direct wheel links of torch-family packages: requirements the tool cannot move (their file names name the
    version), kept as opaque requirements so that the set they belong to does not move without them."""
    found = []
    for match in _WHEEL.finditer(text, lo, hi):
        name = normalize(match.group("name"))
        found.append(
            Req(name, match.group(0).split("-")[0], match.start(), f"=={match.group('version')}", None, "wheel", opaque=True)
        )
    return found


def reqs_in_commands(text: str, lo: int, hi: int, values: dict[str, Site]) -> list[Req]:
    """The requirements of the install commands in ``text[lo:hi]``; a version given as one variable (``torch==$V``,
    ``torch==${V}+cpu``) is read from (and moved at) that variable's value."""
    found: list[Req] = []
    for start, end, _ in install_commands(text[lo:hi]):
        chunk_lo, chunk_hi = lo + start, lo + end
        piece = text[chunk_lo:chunk_hi]
        for r in requirements_in(piece, "dockerfile"):
            shifted = replace(r, start=r.start + chunk_lo, spec_start=r.spec_start + chunk_lo, spec_end=r.spec_end + chunk_lo)
            found.append(with_variables(shifted, values, _hashed(text, shifted.start)))
        found.extend(wheel_links(text, chunk_lo, chunk_hi))
    return found


def with_variables(r: Requirement, values: dict[str, Site], hashed: bool = False) -> Req:
    """A requirement whose specifier may name variables: each is substituted; a specifier that is one operator and
    one variable's version (``==$V``, ``==${V}+cpu``) is moved at the variable; any other unknown part is opaque."""
    base = req_of(r, hashed)
    if "$" not in r.spec:
        return base
    refs = list(_VAR.finditer(r.spec))
    spec = resolve(r.spec, values)
    if spec is None:
        return replace(base, spec=r.spec, site=None, opaque=True)
    single = re.fullmatch(r"(?P<op>===|==|~=|>=|<=|>|<)\s*(?P<ref>\$\{\w+\}|\$\w+)(?P<rest>(?:\+[\w.]*)?)", r.spec)
    if single is not None and len(refs) == 1:
        name = refs[0].group("a") or refs[0].group("b")
        site = values[name]
        template = single.group("op") + "{}" + single.group("rest")
        return replace(base, spec=spec, site=Site(site.start, site.end, site.text, False, template))
    return replace(base, spec=spec, site=None, opaque=True)
