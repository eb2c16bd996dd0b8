"""The versions around torch, read from one committed table: ``data/compat.json``.

The table is generated from the package index by a maintainer command, ``python -m torchmigrate.project.tables``
(see :mod:`torchmigrate.project.tables`), and records its date and sources. It holds, for every final release of
torch from 1.9 on: the Pythons it has wheels for, its ``Requires-Python`` and the companions it pins itself (triton,
``nvidia-*``, ``cuda-*``); for every release of each companion package (torchvision, torchaudio, torchtext,
torchdata, xformers, intel-extension-for-pytorch, oneccl-bind-pt, torch-tensorrt): the torch its wheel requires
(``Requires-Dist``) and the wheel's tags; and, kept by hand with their sources, the CUDA and ROCm builds of each
feature release (pytorch/pytorch RELEASE.md) and the end of the conda ``pytorch`` channel. The project file passes
read version facts from here and nowhere else.

Which companion release goes with which torch (:func:`compatible`): the wheel's ``Requires-Dist`` must admit that
torch, and a wheel whose compiled code is tied to one torch — one tagged for a CPython ABI (``cp312-cp312``,
``cp39-abi3``) — runs only with the feature release it was built for: the one its requirement names as its lower
bound (``torch==2.7.1``, ``torch>=2.3.0``), or, where its metadata names none, the one its own version number names
(torchaudio 2.11.0, intel-extension-for-pytorch 2.8.0 follow torch's numbers). Wheels tagged ``py3-none-<platform>``
(torchvision 0.29.2, torchaudio 2.11.1, xformers 0.0.35) are built on the LibTorch stable ABI (torchvision ships
``_C_stable.so``; pytorch/audio#4142, #4212) and run with every torch they admit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from torchmigrate.core.versions import Version

__all__ = [
    "COMPANIONS",
    "Release",
    "compatible",
    "companion_for",
    "cuda_builds",
    "cuda_limits",
    "cuda_name",
    "cuda_replacement",
    "normalize",
    "python_floor",
    "table",
    "torch_release",
    "torch_releases",
    "torchaudio_for",
    "torchvision_for",
]

TABLE = Path(__file__).resolve().parent / "data" / "compat.json"

# Packages whose version numbers follow torch's (``2.11.0`` is built for torch 2.11) where their metadata pins none.
_NUMBERED_LIKE_TORCH = frozenset({"torchaudio", "intel-extension-for-pytorch", "oneccl-bind-pt"})


@lru_cache(maxsize=4096)
def normalize(name: str) -> str:
    """A package name as the package index compares names (PEP 503): ``oneccl_bind_pt`` → ``oneccl-bind-pt``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@lru_cache(maxsize=8192)
def release_tuple(version: str) -> tuple[int, ...]:
    """The release numbers of a version: ``2.12.0`` → (2, 12, 0); ``0.0.33.post2`` → (0, 0, 33); a local part and
    pre/post/dev parts are left out."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    return tuple(int(p) for p in match.group(1).split(".")) if match else ()


def feature(version: str) -> Version | None:
    numbers = release_tuple(version)
    return Version(numbers[0], numbers[1]) if len(numbers) >= 2 else None


@dataclass(frozen=True)
class Release:
    """One release of a package in the table: its version and what its wheel's metadata says."""

    name: str
    version: str
    pythons: tuple[tuple[int, int], ...]  # CPython versions with a Linux x86_64 wheel
    requires_python: str | None
    requires: tuple[str, ...]  # the requirements the table keeps (torch's own companions; a companion's torch)
    wheel: str

    @property
    def numbers(self) -> tuple[int, ...]:
        return release_tuple(self.version)

    @property
    def feature(self) -> Version:
        numbers = self.numbers
        return Version(numbers[0], numbers[1] if len(numbers) > 1 else 0)

    @property
    def torch_spec(self) -> str | None:
        """The specifier this companion's wheel puts on torch (``==2.7.1``, ``>=2.14.0``), or ``None``."""
        for requirement in self.requires:
            parsed = split_requirement(requirement)
            if parsed is not None and parsed[0] == "torch":
                return parsed[1]
        return None

    @property
    def abi_bound(self) -> bool:
        """Whether the wheel's compiled code is tied to one CPython ABI, and so to the torch it was built with."""
        tags = self.wheel[: -len(".whl")].split("-")
        return len(tags) >= 3 and tags[-2].startswith("cp")

    @property
    def built_for(self) -> Version | None:
        """The torch feature release an ABI-bound wheel was built for (see the module docstring), else ``None``."""
        if self.name == "torch" or not self.abi_bound:
            return None
        spec = self.torch_spec
        if spec:
            lows = [
                numbers
                for op, version in _clauses(spec)
                if op in ("==", "===", ">=", "~=") and len(numbers := release_tuple(version)) >= 2
            ]
            return Version(*max(lows)[:2]) if lows else None
        if self.name in _NUMBERED_LIKE_TORCH and self.numbers[:1] != (0,):
            return self.feature
        return None

    def requirement(self, name: str) -> str | None:
        """The specifier this (torch) release puts on ``name`` (``triton`` → ``==3.7.0``), or ``None``."""
        wanted = normalize(name)
        for requirement in self.requires:
            parsed = split_requirement(requirement)
            if parsed is not None and parsed[0] == wanted:
                return parsed[1]
        return None

    @property
    def default_cuda(self) -> int | None:
        """The CUDA of this torch release's default wheel on the package index (128 for CUDA 12.8), from the
        ``cuda-toolkit`` / ``nvidia-cuda-runtime-cuXX`` pin; ``None`` when it pins neither."""
        for requirement in self.requires:
            parsed = split_requirement(requirement)
            if parsed is None:
                continue
            name, spec = parsed
            if name == "cuda-toolkit" or name.startswith("nvidia-cuda-runtime-cu"):
                numbers = [release_tuple(v) for op, v in _clauses(spec) if op in ("==", ">=")]
                if numbers and len(numbers[0]) >= 2:
                    return numbers[0][0] * 10 + numbers[0][1]
        return None


_CLAUSE = re.compile(r"(===|==|~=|>=|<=|!=|>|<)\s*([0-9][\w.*+!-]*)")


def _clauses(spec: str) -> list[tuple[str, str]]:
    return _CLAUSE.findall(spec)


def split_requirement(requirement: str) -> tuple[str, str] | None:
    """``"torch (==1.9.0)"`` → ("torch", "==1.9.0"); ``"cuda-toolkit[cudart]==13.0.2; platform_system == 'Linux'"`` →
    ("cuda-toolkit", "==13.0.2"). Markers are dropped."""
    match = re.match(r"\s*([A-Za-z0-9][\w.-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;()]*)", requirement)
    if match is None:
        return None
    return normalize(match.group(1)), match.group(2).strip()


def version_admitted(spec: str | None, version: str) -> bool:
    """Whether the PEP 440 specifier ``spec`` admits the final release ``version`` (``None`` or empty admits all)."""
    if not spec:
        return True
    candidate = release_tuple(version)
    for op, raw in _clauses(spec):
        wild = raw.endswith(".*")
        wanted = release_tuple(raw)
        if not wanted:
            continue
        if op in ("==", "===", "!="):
            same = candidate[: len(wanted)] == wanted if wild else _cmp(candidate, wanted) == 0
            if same != (op != "!="):
                return False
            continue
        order = _cmp(candidate, wanted)
        ok = {
            ">=": order >= 0,
            ">": order > 0,
            "<=": order <= 0,
            "<": order < 0,
            "~=": order >= 0 and candidate[: max(len(wanted) - 1, 1)] == wanted[: max(len(wanted) - 1, 1)],
        }[op]
        if not ok:
            return False
    return True


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (pa > pb) - (pa < pb)


@dataclass(frozen=True)
class Table:
    generated: str
    source: str
    packages: dict[str, tuple[Release, ...]]
    builds: dict[Version, dict[str, Any]]
    sources: dict[str, str]
    conda_channel_last: Version
    architectures: dict[Version, dict[str, str]]
    drivers: dict[int, str]

    def releases(self, name: str) -> tuple[Release, ...]:
        return self.packages.get(normalize(name), ())

    def companions_of(self, name: str, torch_version: str) -> list[Release]:
        """The releases of companion ``name`` that go with torch ``torch_version``, oldest first."""
        return sorted((r for r in self.releases(name) if compatible(r, torch_version)), key=lambda r: r.numbers)


def _python(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


@cache
def table() -> Table:
    """The committed table (read once)."""
    return load(json.loads(TABLE.read_text(encoding="utf-8")))


def load(data: dict[str, Any]) -> Table:
    """A table from its JSON form (see :mod:`torchmigrate.project.tables`)."""
    packages = {
        normalize(name): tuple(
            Release(
                normalize(name),
                version,
                tuple(_python(p) for p in row["pythons"]),
                row["requires_python"],
                tuple(row["requires"]),
                row["wheel"],
            )
            for version, row in rows.items()
        )
        for name, rows in data["packages"].items()
    }
    builds = {}
    for release, row in data["builds"].items():
        major, minor = release.split(".")
        builds[Version(int(major), int(minor))] = row
    last = data["conda"]["pytorch_channel_last"].split(".")
    architectures = {}
    for release, arches in data.get("architectures", {}).items():
        major, minor = release.split(".")
        architectures[Version(int(major), int(minor))] = dict(arches)
    return Table(
        data["generated"],
        data["source"],
        packages,
        builds,
        data["sources"],
        Version(int(last[0]), int(last[1])),
        architectures,
        {int(k): v for k, v in data.get("drivers", {}).items()},
    )


COMPANIONS: frozenset[str] = frozenset(
    {
        "torchvision",
        "torchaudio",
        "torchtext",
        "torchdata",
        "xformers",
        "intel-extension-for-pytorch",
        "oneccl-bind-pt",
        "torch-tensorrt",
    }
)


def torch_releases(target: Version) -> list[Release]:
    """The torch releases of feature release ``target`` in the table, oldest patch first."""
    return [r for r in table().releases("torch") if r.feature == target]


def torch_release(version: str) -> Release | None:
    wanted = release_tuple(version)
    for candidate in table().releases("torch"):
        if _cmp(candidate.numbers, wanted) == 0:
            return candidate
    return None


def compatible(companion: Release, torch_version: str) -> bool:
    """Whether ``companion`` (a torchvision, torchaudio … release) goes with torch ``torch_version``."""
    if not version_admitted(companion.torch_spec, torch_version):
        return False
    built_for = companion.built_for
    return built_for is None or feature(torch_version) == built_for


def companion_for(name: str, torch_version: str, current: str | None = None) -> Release | None:
    """The release of companion ``name`` to use with torch ``torch_version``, or ``None`` when none goes with it.

    Of the releases that go with it, the one that moves least: the oldest feature release (``0.27``, ``2.11``) not
    older than ``current`` (the version the project names now), at its newest patch; without ``current``, or when
    every compatible release is older than it, the newest.
    """
    found = table().companions_of(name, torch_version)
    if not found:
        return None
    if current is not None:
        floor = release_tuple(current)[:2]
        later = [r for r in found if r.numbers[:2] >= floor]
        if later:
            first = later[0].numbers[:2]
            return [r for r in later if r.numbers[:2] == first][-1]
    return found[-1]


def newest(name: str) -> Release | None:
    found = table().releases(name)
    return max(found, key=lambda r: r.numbers) if found else None


# --- Python ---------------------------------------------------------------------------------------------------------


def python_floor(target: Version) -> tuple[int, int] | None:
    """The oldest Python torch ``target`` has wheels for (its newest patch; 2.12 → (3, 10)), or ``None`` when the
    table has no such release."""
    releases = torch_releases(target)
    return min(releases[-1].pythons) if releases and releases[-1].pythons else None


def pythons(target: Version) -> frozenset[tuple[int, int]]:
    """The Pythons with wheels of torch ``target``'s newest patch."""
    releases = torch_releases(target)
    return frozenset(releases[-1].pythons) if releases else frozenset()


def _python_floors() -> dict[Version, tuple[int, int]]:
    floors: dict[Version, tuple[int, int]] = {}
    previous = None
    for release in table().releases("torch"):
        floor = python_floor(release.feature)
        if floor is not None and floor != previous and release.feature not in floors:
            floors[release.feature] = floor
            previous = floor
    return floors


# --- CUDA -------------------------------------------------------------------------------------------------------------


def _variant(text: str) -> int:
    major, minor = text.split(".")
    return int(major) * 10 + int(minor)


def cuda_builds(target: Version) -> frozenset[int]:
    """The CUDA variants torch ``target`` is built for, as integers (126 is CUDA 12.6, ``cu126``): the table's
    RELEASE.md columns and the package index's default build."""
    row = table().builds.get(target)
    found = {_variant(v) for v in row["cuda"]} if row else set()
    found |= {r.default_cuda for r in torch_releases(target) if r.default_cuda is not None}
    return frozenset(found)


def builds_complete(target: Version) -> bool:
    """Whether the table knows every CUDA build of ``target`` (not only the package index's default)."""
    return target in table().builds


def rocm(target: Version) -> str | None:
    """The ROCm release RELEASE.md names for ``target`` (``7.2``), or ``None``."""
    row = table().builds.get(target)
    return row.get("rocm") if row else None


def cuda_replacement(variant: int, target: Version) -> int | None:
    """The build to use instead of ``variant`` for ``target``, or ``None`` when ``variant`` is fine or unknown.

    Only variants the target *dropped* move (older than its oldest build, or a gap such as cu128 for 2.12), and only
    when the table knows all of the target's builds; a variant newer than every build of the target is left alone.
    The replacement is the nearest newer build (cu128 → cu130, cu118 → cu126), which asks the least of the driver.
    """
    builds = cuda_builds(target)
    if not builds or not builds_complete(target) or variant in builds or variant > max(builds):
        return None
    newer = sorted(b for b in builds if b > variant)
    return newer[0] if newer else None


def cuda_name(variant: int) -> str:
    return f"cu{variant}"


def dotted(variant: int) -> str:
    return f"{variant // 10}.{variant % 10}"


def cuda_limits(variant: int, target: Version) -> str:
    """What a CUDA build asks of the machine: the driver floor and, where the table knows them, the GPU architectures
    it covers."""
    driver = table().drivers.get(variant // 10)
    parts = [f"CUDA {dotted(variant)} wheels need an NVIDIA driver >= {driver}" if driver else f"CUDA {dotted(variant)}"]
    arches = table().architectures.get(target, {}).get(dotted(variant))
    oldest = re.match(r"\s*[A-Za-z]+\s*\((\d+\.\d+)", arches or "")
    if arches and oldest:
        parts.append(f"and a GPU of compute capability >= {oldest.group(1)} (they cover {arches})")
    others = sorted(cuda_builds(target) - {variant})
    if others:
        parts.append(f"(torch {target} also has {', '.join(cuda_name(o) for o in others)})")
    return " ".join(parts)


def cuda_names(variants: Iterable[int]) -> str:
    return "/".join(cuda_name(v) for v in sorted(variants))


def __getattr__(name: str) -> Any:
    """Derived views kept for callers of the former hand-written tables (computed from the table when first asked)."""
    if name == "CUDA_BUILDS":
        return {v: cuda_builds(v) for v in sorted({r.feature for r in table().releases("torch")})}
    if name == "PYTHON_FLOOR":
        return _python_floors()
    raise AttributeError(name)


def torchvision_for(torch: Version) -> Version | None:
    """The torchvision feature release for the newest patch of torch ``torch`` (2.12 → 0.27), or ``None``."""
    releases = torch_releases(torch)
    found = companion_for("torchvision", releases[-1].version) if releases else None
    return found.feature if found else None


def torchaudio_for(torch: Version) -> Version | None:
    """The torchaudio feature release for the newest patch of torch ``torch`` (2.7 → 2.7, 2.12 → 2.11), or ``None``."""
    releases = torch_releases(torch)
    found = companion_for("torchaudio", releases[-1].version) if releases else None
    return found.feature if found else None
