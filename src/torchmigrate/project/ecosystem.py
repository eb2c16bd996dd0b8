"""The versions around torch, in one place: companion packages, CUDA wheel variants and Python floors per release.

Sources (checked 2026-11; update here and nowhere else):

- torchvision ↔ torch: the compatibility table in pytorch/vision's README (torch 1.8 ↔ 0.9 … 2.13 ↔ 0.28; 2.x ↔
  0.(x+15)), and package metadata for 2.14 ↔ 0.29 (torchmigrate's catalog, "Versions of the ecosystem").
- torchaudio: its version equals torch's up to 2.11; there is no torchaudio 2.12 or later (newest 2.11.1, whose 2.11.0
  declares no torch pin) — catalog, "Versions of the ecosystem".
- CUDA wheel variants per release (stable and experimental columns) and Python floors: the "Release Compatibility
  Matrix" in pytorch/pytorch's RELEASE.md; CUDA 12.8 builds dropped in 2.12 (2.12 release notes, pytorch/pytorch#179072:
  "switch to cu130 (recommended) or cu126"); CUDA 11.8 and 12.4 removed in 2.8 (2.8 release notes, #155509 …);
  Python ≥ 3.10 from 2.9 (2.9 release notes, #162310).
- GPU architectures per CUDA build: "PyTorch CUDA Support Matrix" in the same RELEASE.md (for 2.12/2.13: cu126 covers
  Maxwell 5.0 … Hopper 9.0, cu130 covers Turing 7.5 … Blackwell). Driver floors: NVIDIA's CUDA minor version
  compatibility table (CUDA 13.x needs driver ≥ 580, 12.x ≥ 525, 11.x ≥ 450).
"""

from __future__ import annotations

from torchmigrate.core.versions import Version

__all__ = [
    "CUDA_BUILDS",
    "PYTHON_FLOOR",
    "cuda_limits",
    "cuda_replacement",
    "python_floor",
    "torchaudio_for",
    "torchvision_for",
]


def torchvision_for(torch: Version) -> Version | None:
    """The torchvision feature release built for ``torch`` (2.12 → 0.27), or ``None`` when none is known."""
    if torch.major == 1 and 8 <= torch.minor <= 13:
        return Version(0, torch.minor + 1)
    if torch.major == 2 and torch.minor <= 14:
        return Version(0, torch.minor + 15)
    return None


TORCHAUDIO_NEWEST = Version(2, 11)


def torchaudio_for(torch: Version) -> Version | None:
    """The torchaudio feature release for ``torch`` (same number for 2.0 … 2.11); ``None`` from 2.12 on: none exists."""
    if torch.major == 1 and 8 <= torch.minor <= 13:
        return Version(0, torch.minor)
    if torch.major == 2 and torch.minor <= TORCHAUDIO_NEWEST.minor:
        return torch
    return None


def _v(text: str) -> Version:
    major, minor = text.split(".")
    return Version(int(major), int(minor))


# CUDA variants with wheels on PyTorch's wheel index, per feature release (stable and experimental builds), as
# integers: 128 is CUDA 12.8 (``cu128``).
CUDA_BUILDS: dict[Version, frozenset[int]] = {
    _v(release): frozenset(builds)
    for release, builds in {
        "2.0": (117, 118),
        "2.1": (118, 121),
        "2.2": (118, 121),
        "2.3": (118, 121),
        "2.4": (118, 121, 124),
        "2.5": (118, 121, 124),
        "2.6": (118, 124, 126),
        "2.7": (118, 126, 128),
        "2.8": (126, 128, 129),
        "2.9": (126, 128, 130),
        "2.10": (126, 128, 130),
        "2.11": (126, 128, 130),
        "2.12": (126, 130, 132),
        "2.13": (126, 130, 132),
    }.items()
}


def cuda_replacement(variant: int, target: Version) -> int | None:
    """The build to use instead of ``variant`` for ``target``, or ``None`` when ``variant`` is fine or unknown.

    Only variants the target *dropped* move (older than its oldest build, or a gap such as cu128 for 2.12); a variant
    newer than every build of the target is left alone. The replacement is the nearest newer build (cu128 → cu130,
    cu118 → cu126), which asks the least of the driver.
    """
    builds = CUDA_BUILDS.get(target)
    if not builds or variant in builds or variant > max(builds):
        return None
    newer = sorted(b for b in builds if b > variant)
    return newer[0] if newer else None


def cuda_name(variant: int) -> str:
    return f"cu{variant}"


def _dotted(variant: int) -> str:
    return f"{variant // 10}.{variant % 10}"


def cuda_limits(variant: int, target: Version) -> str:
    """What a CUDA build asks of the machine: the driver floor and, where known, the GPU architectures it covers."""
    driver = {13: "580", 12: "525", 11: "450"}.get(variant // 10)
    parts = [f"CUDA {_dotted(variant)} wheels need an NVIDIA driver >= {driver}" if driver else f"CUDA {_dotted(variant)}"]
    if target >= Version(2, 12):
        if variant >= 130:
            parts.append("and a GPU of compute capability >= 7.5 (Turing or newer; Maxwell, Pascal and Volta are not built)")
        elif variant == 126:
            parts.append("and cover Maxwell (5.0) to Hopper (9.0), not Blackwell")
    others = sorted(CUDA_BUILDS.get(target, frozenset()) - {variant})
    if others:
        parts.append(f"(torch {target} also has {', '.join(cuda_name(o) for o in others)})")
    return " ".join(parts)


# The oldest Python each feature release supports, from the release it changed on.
PYTHON_FLOOR: dict[Version, tuple[int, int]] = {
    Version(1, 12): (3, 7),
    Version(2, 0): (3, 8),
    Version(2, 5): (3, 9),
    Version(2, 9): (3, 10),
}


def python_floor(target: Version) -> tuple[int, int] | None:
    """The minimum Python of torch ``target`` (2.12 → (3, 10)), or ``None`` below the releases the table covers."""
    floor = None
    for release, python in sorted(PYTHON_FLOOR.items()):
        if release <= target:
            floor = python
    return floor
