"""Where the radar reads a release from: a version to download, a wheel file, or an unpacked tree.

A source is only ever *read*: the wheel is opened as a zip file, the tree walked as files. Nothing is installed or
imported, so a release that does not even run on this machine (another Python, a CUDA build) can be read.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path

__all__ = ["Source", "SourceError", "download_wheel", "open_source"]

_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?([a-z]+\d*)?$")


class SourceError(RuntimeError):
    """A source that cannot be read (no such file, not a wheel, the download failed)."""


@dataclass
class Source:
    """The files of one release of a package: ``files`` maps a path inside the package's root (``torch/nn/init.py``)
    to a function that reads its text; ``metadata`` holds the wheel's ``METADATA`` headers when there are any."""

    label: str
    package: str
    files: dict[str, Path | tuple[zipfile.ZipFile, str]] = field(default_factory=dict)
    metadata: dict[str, list[str]] = field(default_factory=dict)

    def read(self, path: str) -> str:
        where = self.files[path]
        if isinstance(where, Path):
            return where.read_text(encoding="utf-8", errors="replace")
        archive, name = where
        return archive.read(name).decode("utf-8", errors="replace")

    def paths(self) -> Iterator[str]:
        yield from sorted(self.files)


def _metadata(text: str) -> dict[str, list[str]]:
    headers = HeaderParser().parsestr(text, headersonly=True)
    found: dict[str, list[str]] = {}
    for key, value in headers.items():
        found.setdefault(key, []).append(str(value).strip())
    return found


def _wheel(path: Path, package: str) -> Source:
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SourceError(f"{path}: not a readable wheel ({exc})") from None
    source = Source(label=_label_from_wheel(path.name), package=package)
    for name in archive.namelist():
        if name.startswith(package + "/") and name.endswith((".py", ".pyi")):
            source.files[name] = (archive, name)
        elif re.fullmatch(rf"{re.escape(package)}-[^/]+\.dist-info/METADATA", name):
            source.metadata = _metadata(archive.read(name).decode("utf-8", errors="replace"))
    if not source.files:
        raise SourceError(f"{path}: the wheel holds no {package}/ package")
    version = source.metadata.get("Version")
    if version:
        source.label = version[0]
    return source


def _label_from_wheel(name: str) -> str:
    parts = name.split("-")
    return parts[1] if len(parts) > 2 else name


def _tree(path: Path, package: str) -> Source:
    """A folder that holds ``package/`` (a site-packages folder, an unpacked wheel), or the package folder itself."""
    root = path / package if (path / package).is_dir() else path
    if not root.is_dir():
        raise SourceError(f"{path}: no such folder")
    base = root.parent
    source = Source(label=path.name, package=root.name)
    for file in sorted(root.rglob("*")):
        if file.suffix in (".py", ".pyi") and file.is_file():
            source.files[file.relative_to(base).as_posix()] = file
    for meta in sorted(base.glob(f"{root.name}-*.dist-info/METADATA")):
        source.metadata = _metadata(meta.read_text(encoding="utf-8", errors="replace"))
    version = source.metadata.get("Version") or _version_file(root)
    if version:
        source.label = version[0]
    if not source.files:
        raise SourceError(f"{path}: no Python files under {root}")
    return source


def _version_file(root: Path) -> list[str]:
    version = root / "version.py"
    if version.is_file():
        match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", version.read_text(encoding="utf-8"), re.MULTILINE)
        if match:
            return [match.group(1)]
    return []


def download_wheel(package: str, version: str, folder: Path) -> Path:
    """``pip download --no-deps package==version`` into ``folder`` (a wheel already there is reused).

    The environment's pip constraints file is lifted for this one command (a machine may cap the package below the
    release to be read); the wheel is only downloaded, never installed.
    """
    folder.mkdir(parents=True, exist_ok=True)
    normalized = package.replace("-", "_")
    existing = sorted(folder.glob(f"{normalized}-{version}-*.whl")) + sorted(folder.glob(f"{normalized}-{version}+*.whl"))
    if existing:
        return existing[0]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", f"{package}=={version}",
               "-d", str(folder)]
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise SourceError(f"cannot download {package}=={version}: {tail}")
    found = sorted(folder.glob(f"{normalized}-{version}*.whl"))
    if not found:
        raise SourceError(f"pip downloaded no wheel for {package}=={version} into {folder}")
    return found[0]


def open_source(spec: str, package: str = "torch", download_dir: Path | None = None) -> Source:
    """A wheel file, an unpacked tree (a folder), or a version to download (``2.14.1``)."""
    path = Path(spec)
    if path.is_file():
        return _wheel(path, package)
    if path.is_dir():
        return _tree(path, package)
    if _VERSION.match(spec):
        folder = download_dir or Path.home() / ".cache" / "torchmigrate-radar"
        return _wheel(download_wheel(package, spec, folder), package)
    raise SourceError(f"{spec}: not a wheel file, a folder or a version such as 2.14.1")
