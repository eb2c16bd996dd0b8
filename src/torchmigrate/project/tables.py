"""Regenerate the compatibility table (``data/compat.json``) from the package index: a maintainer command.

    python -m torchmigrate.project.tables            # writes src/torchmigrate/project/data/compat.json
    python -m torchmigrate.project.tables --check    # exit 1 when the committed table differs from the index

For every final release of torch from 1.9 on, and of each companion package in :data:`PACKAGES`, it asks pip itself
which versions have wheels for which Python (``pip index versions --python-version 3.X``) and reads each version's
wheel metadata — ``Requires-Python`` and ``Requires-Dist`` — with ``pip install --dry-run --no-deps --report``
and ``--use-feature=fast-deps``, which fetches only the metadata part of the wheel (HTTP range requests), never the
whole wheel. pip reads no configuration file and no local wheel source: the package index alone.

What the package index cannot say — the CUDA variants built per release, which live on PyTorch's own wheel index —
is written below with its source (:data:`CUDA_BUILDS`), and the table records both. Nothing here runs at migration
time: the passes read the committed table only (:mod:`torchmigrate.project.compat`).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

TABLE_PATH = Path(__file__).resolve().parent / "data" / "compat.json"

# Python versions probed for wheels (linux x86_64, CPython).
PYTHONS = tuple(f"3.{minor}" for minor in range(6, 16))

# The packages of the table and the oldest version read (the one built for torch 1.9, where there is one).
PACKAGES: dict[str, str] = {
    "torch": "1.9.0",
    "torchvision": "0.10.0",
    "torchaudio": "0.9.0",
    "torchtext": "0.10.0",
    "torchdata": "0.3.0",
    "xformers": "0.0.16",
    "intel-extension-for-pytorch": "1.9.0",
    "oneccl-bind-pt": "1.9.0",
    "torch-tensorrt": "1.0.0",
}

# torch's own requirements kept in the table: the companions it pins itself.
_TORCH_DEPENDENCIES = re.compile(r"^(triton|pytorch-triton[\w-]*|nvidia-[\w-]+|cuda-[\w-]+)\b", re.IGNORECASE)

# CUDA variants built per feature release (PyTorch's wheel index, not the package index), and the ROCm release
# RELEASE.md names for it. Sources: the "Release Compatibility Matrix" of pytorch/pytorch RELEASE.md (1.12-2.14: the
# Stable and Experimental CUDA columns and the Stable ROCm column), and the "Previous PyTorch Versions" page of
# pytorch/pytorch.github.io (_get_started/previous-versions.md: its wheel commands) for 1.9-1.11. A release missing
# here (2.15: no RELEASE.md row was published when the table was made, and PyTorch's wheel index was not reachable)
# is known only by the package index's default build: ``complete`` is false and no CUDA variant is moved for it.
CUDA_BUILDS: dict[str, tuple[tuple[str, ...], str | None, str]] = {
    "1.9": (("10.2", "11.1"), "4.2", "previous_versions"),
    "1.10": (("10.2", "11.1"), "4.2", "previous_versions"),
    "1.11": (("10.2", "11.3"), "4.5.2", "previous_versions"),
    "1.12": (("11.3", "11.6"), "5.0", "release_md"),
    "1.13": (("11.6", "11.7"), "5.2", "release_md"),
    "2.0": (("11.7", "11.8"), "5.4", "release_md"),
    "2.1": (("11.8", "12.1"), "5.6", "release_md"),
    "2.2": (("11.8", "12.1"), "5.7", "release_md"),
    "2.3": (("11.8", "12.1"), "6.0", "release_md"),
    "2.4": (("11.8", "12.1", "12.4"), "6.1", "release_md"),
    "2.5": (("11.8", "12.1", "12.4"), "6.2", "release_md"),
    "2.6": (("11.8", "12.4", "12.6"), "6.2.4", "release_md"),
    "2.7": (("11.8", "12.6", "12.8"), "6.3", "release_md"),
    "2.8": (("12.6", "12.8", "12.9"), "6.4", "release_md"),
    "2.9": (("12.6", "12.8", "13.0"), "6.4", "release_md"),
    "2.10": (("12.6", "12.8", "13.0"), "7.1", "release_md"),
    "2.11": (("12.6", "12.8", "13.0"), "7.2", "release_md"),
    "2.12": (("12.6", "13.0", "13.2"), "7.2", "release_md"),
    "2.13": (("12.6", "13.0", "13.2"), "7.2", "release_md"),
    "2.14": (("12.6", "13.0", "13.2"), "7.14", "release_md"),
}
SOURCES = {
    "release_md": (
        "pytorch/pytorch RELEASE.md, 'Release Compatibility Matrix': Stable CUDA, Experimental CUDA and Stable ROCm "
        "columns (rows 1.12-2.14; the 2.13 row from pytorch/pytorch#187075, the 2.14 row from #194367)"
    ),
    "previous_versions": "pytorch/pytorch.github.io _get_started/previous-versions.md, the wheel commands of 1.9.0-1.11.0",
    "package_index": (
        "the package index's default Linux wheel: its CUDA from the nvidia-*-cuXX / cuda-toolkit pins in Requires-Dist"
    ),
    "cpu": "every release has CPU wheels (previous-versions.md: a 'CPU only' command for each release)",
    "architectures": "pytorch/pytorch RELEASE.md, 'PyTorch CUDA Support Matrix' (releases 2.12, 2.13 and 2.14)",
    "drivers": "NVIDIA CUDA Compatibility guide: minimum driver for CUDA minor version compatibility (11.x, 12.x, 13.x)",
}

# The GPU architectures of each CUDA build ("PyTorch CUDA Support Matrix" in pytorch/pytorch RELEASE.md, which lists
# them for 2.12, 2.13 and 2.14, Linux x86 and Windows builds), and the driver each CUDA major version needs (NVIDIA's
# CUDA Compatibility guide, minimum driver for CUDA minor version compatibility).
_ARCHES_2_12 = {
    "12.6": "Maxwell (5.0), Pascal (6.0), Volta (7.0), Turing (7.5), Ampere (8.0, 8.6), Hopper (9.0)",
    "13.0": "Turing (7.5), Ampere (8.0, 8.6), Hopper (9.0), Blackwell (10.0, 12.0+PTX)",
    "13.2": "Turing (7.5), Ampere (8.0, 8.6), Hopper (9.0), Blackwell (10.0, 12.0+PTX)",
}
ARCHITECTURES = {"2.12": _ARCHES_2_12, "2.13": _ARCHES_2_12, "2.14": _ARCHES_2_12}
DRIVERS = {"13": "580", "12": "525", "11": "450"}

# Facts about conda: the ``pytorch`` channel stopped with 2.5 (pytorch/pytorch#138506).
CONDA = {
    "pytorch_channel_last": "2.5",
    "source": "pytorch/pytorch#138506: '2.5 will be the last release of PyTorch that will be published to the pytorch channel'",
}


_LOCAL_PIP_SETTINGS = frozenset({"PIP_CONSTRAINT", "PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "PIP_REQUIREMENT"})


def _pip(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    # The package index alone: no configuration file (constraints, find-links, extra indexes) and no local wheel
    # source from the environment; an index given as PIP_INDEX_URL (a mirror) and certificates stay.
    env = {k: v for k, v in os.environ.items() if k not in _LOCAL_PIP_SETTINGS}
    env["PIP_CONFIG_FILE"] = os.devnull
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


_FINAL = re.compile(r"^\d+(\.\d+)*(\.post\d+)?$")


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def versions(name: str, oldest: str) -> dict[str, list[str]]:
    """Each final version of ``name`` from ``oldest`` on → the Pythons that have a wheel of it."""
    found: dict[str, list[str]] = {}

    def listing(python: str) -> list[str]:
        proc = _pip(["index", "versions", name, "--python-version", python, "--only-binary=:all:", "--json"])
        return list(json.loads(proc.stdout)["versions"]) if proc.returncode == 0 else []

    with ThreadPoolExecutor(len(PYTHONS)) as pool:
        listings = list(pool.map(listing, PYTHONS))
    for python, listed in zip(PYTHONS, listings, strict=True):
        for version in listed:
            if _FINAL.match(version) and _key(version) >= _key(oldest):
                found.setdefault(version, []).append(python)
    return dict(sorted(found.items(), key=lambda item: _key(item[0])))


def metadata(name: str, version: str, pythons: Sequence[str]) -> dict[str, Any]:
    """The wheel metadata of ``name==version`` (for the newest of ``pythons`` pip can read it for): its file name,
    Requires-Python and Requires-Dist."""
    errors = []
    for python in reversed(pythons):
        try:
            return _metadata(name, version, python)
        except RuntimeError as exc:
            errors.append(str(exc))
    raise RuntimeError("; ".join(errors))


def _metadata(name: str, version: str, python: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        proc = _pip(
            [
                "install",
                "--dry-run",
                "--no-deps",
                "--ignore-installed",
                "--use-feature=fast-deps",
                "--only-binary=:all:",
                "--python-version",
                python,
                "--quiet",
                "--report",
                str(report),
                f"{name}=={version}",
            ]
        )
        if proc.returncode != 0 or not report.is_file():
            raise RuntimeError(f"pip could not read {name}=={version}: {proc.stderr.strip()[-400:]}")
        item = json.loads(report.read_text())["install"][0]
    meta = item["metadata"]
    return {
        "wheel": item["download_info"]["url"].rsplit("/", 1)[-1],
        "requires_python": meta.get("requires_python"),
        "requires_dist": meta.get("requires_dist", []),
    }


def _relevant(name: str, requires: list[str]) -> list[str]:
    if name == "torch":
        return [r for r in requires if _TORCH_DEPENDENCIES.match(r)]
    return [r for r in requires if re.match(r"^torch\b(?![-\w])", r)]


def read_index(jobs: int = 6) -> dict[str, Any]:
    """What the package index says of every package in :data:`PACKAGES`: version → Pythons with wheels,
    Requires-Python, the requirements the table keeps, and the wheel the metadata was read from."""
    packages: dict[str, Any] = {}
    for name, oldest in PACKAGES.items():
        listed = versions(name, oldest)
        with ThreadPoolExecutor(jobs) as pool:
            metas = list(pool.map(lambda item, name=name: metadata(name, item[0], item[1]), listed.items()))
        packages[name] = {
            version: {
                "pythons": pythons,
                "requires_python": meta["requires_python"],
                "requires": _relevant(name, meta["requires_dist"]),
                "wheel": meta["wheel"],
            }
            for (version, pythons), meta in zip(listed.items(), metas, strict=True)
        }
        print(f"{name}: {len(listed)} versions", file=sys.stderr)
    return packages


def build(packages: dict[str, Any], generated: str) -> dict[str, Any]:
    """The table: the index data with the facts kept by hand here, and where each comes from."""
    return {
        "generated": generated,
        "command": "python -m torchmigrate.project.tables",
        "source": (
            "the package index: pip index versions (per Python, linux x86_64 wheels) and each wheel's METADATA "
            "(Requires-Python, Requires-Dist) read with pip install --dry-run --report --use-feature=fast-deps"
        ),
        "packages": packages,
        "builds": {
            release: {"cuda": list(cuda), "rocm": rocm, "source": source} for release, (cuda, rocm, source) in CUDA_BUILDS.items()
        },
        "architectures": ARCHITECTURES,
        "drivers": DRIVERS,
        "sources": SOURCES,
        "conda": CONDA,
    }


def check_table(table: dict[str, Any]) -> list[str]:
    """What is inconsistent in ``table`` (one line each): a companion pinned to a torch the table lacks, a torch
    release without a torchvision, a default CUDA build missing from its release's builds, a Python floor below the
    wheel's ``Requires-Python``, a missing source. The generator refuses to write a table with errors, and a test
    runs this on the committed one."""
    errors: list[str] = []
    for key in ("generated", "command", "source", "packages", "builds", "architectures", "drivers", "sources", "conda"):
        if key not in table:
            errors.append(f"missing key {key!r}")
    if errors:
        return errors
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(table["generated"])):
        errors.append(f"generated is not a date: {table['generated']!r}")
    packages: dict[str, dict[str, Any]] = table["packages"]
    torch = packages.get("torch", {})
    if not torch:
        return [*errors, "no torch releases"]
    features = sorted({_key(v)[:2] for v in torch}, key=lambda f: f)
    for a, b in zip(features, features[1:], strict=False):
        if a[0] == b[0] and b[1] != a[1] + 1:
            errors.append(f"torch {a[0]}.{a[1] + 1} is missing between {a[0]}.{a[1]} and {b[0]}.{b[1]}")
    for name, rows in packages.items():
        keys = [_key(v) for v in rows]
        if keys != sorted(keys):
            errors.append(f"{name}: versions are not in ascending order")
        for version, row in rows.items():
            if not row.get("pythons"):
                errors.append(f"{name} {version}: no Python has a wheel")
            wheel = str(row.get("wheel", ""))
            if not wheel.lower().startswith(name.replace("-", "_") + "-" + version):
                errors.append(f"{name} {version}: the metadata was read from {wheel!r}")
    for version, row in torch.items():
        low = re.search(r">=\s*(\d+)\.(\d+)", row.get("requires_python") or "")
        if low and min(tuple(int(p) for p in py.split(".")) for py in row["pythons"]) < (int(low[1]), int(low[2])):
            errors.append(f"torch {version}: a wheel for a Python below its Requires-Python {row['requires_python']}")
    for name in ("torchvision", "torchaudio", "torchtext", "torchdata", "xformers", "torch-tensorrt"):
        for version, row in packages.get(name, {}).items():
            for requirement in row["requires"]:
                pinned = re.search(r"==\s*(\d+\.\d+\.\d+)", requirement)
                if pinned and pinned[1] not in torch:
                    errors.append(f"{name} {version} requires torch=={pinned[1]}, which the table lacks")
    from torchmigrate.project.ecosystem import load

    loaded = load(table)
    for version in torch:
        if not loaded.companions_of("torchvision", version):
            errors.append(f"torch {version} has no torchvision in the table")
    for release, row in table["builds"].items():
        if not any(_key(v)[:2] == _key(release) for v in torch):
            errors.append(f"builds for {release}: no such torch release in the table")
        if row.get("source") not in table["sources"]:
            errors.append(f"builds for {release}: unknown source {row.get('source')!r}")
        for cuda in row["cuda"]:
            if not re.fullmatch(r"\d+\.\d", cuda):
                errors.append(f"builds for {release}: malformed CUDA {cuda!r}")
        for version, torch_row in torch.items():
            if _key(version)[:2] != _key(release):
                continue
            default = _default_cuda(torch_row["requires"])
            if default and default not in row["cuda"]:
                errors.append(f"torch {version}'s package-index build (CUDA {default}) is not among the builds of {release}")
    for release, arches in table["architectures"].items():
        builds = table["builds"].get(release, {}).get("cuda", [])
        for cuda in arches:
            if cuda not in builds:
                errors.append(f"architectures of CUDA {cuda} for {release}, which is not one of its builds")
    return errors


def _default_cuda(requires: list[str]) -> str | None:
    for requirement in requires:
        match = re.match(r"(?:cuda-toolkit\S*|nvidia-cuda-runtime-cu\d+)\s*\(?==\s*(\d+)\.(\d+)", requirement)
        if match:
            return f"{match[1]}.{match[2]}"
    return None


def dump(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchmigrate.project.tables", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table instead of writing it")
    parser.add_argument("--output", type=Path, default=TABLE_PATH)
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument(
        "--keep-index-data",
        action="store_true",
        help="refresh only the facts kept by hand (CUDA/ROCm builds, sources), keeping the committed index data and date",
    )
    args = parser.parse_args(argv)
    if args.keep_index_data:
        committed = json.loads(args.output.read_text())
        return _write(args.output, build(committed["packages"], committed["generated"]))
    packages = read_index(args.jobs)
    if args.check:
        committed = json.loads(args.output.read_text())
        same = committed["packages"] == packages
        print("the committed table is current" if same else "the committed table differs from the package index")
        return 0 if same else 1
    return _write(args.output, build(packages, _dt.date.today().isoformat()))


def _write(path: Path, table: dict[str, Any]) -> int:
    errors = check_table(table)
    if errors:
        print("the table is inconsistent, not written:\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    path.write_text(dump(table))
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
