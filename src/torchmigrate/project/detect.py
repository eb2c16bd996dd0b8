"""Where a project pins torch: the default ``--from`` of a run, read from its requirements files."""

from __future__ import annotations

from pathlib import Path

from torchmigrate.core.versions import Version, lowest_admitted
from torchmigrate.project.pins import project_kind, torch_specs
from torchmigrate.project.specs import move_spec

# Project files whose torch pins set the default ``--from`` (CI files are not among them: a CI matrix may test releases
# the code does not target).
PIN_FILE_KINDS = frozenset({"requirements", "conda", "pyproject", "setupcfg", "setuppy", "dockerfile"})
# Project files that declare the package's own requirements (its support range), for :func:`declared_floor`.
DECLARING_KINDS = frozenset({"pyproject", "setupcfg", "setuppy"})



def pins_in(text: str, kind: str) -> list[Version]:
    """The oldest release each torch requirement in ``text`` (a project file of ``kind``) admits."""
    found = []
    for spec in torch_specs(text, kind):
        low = lowest_admitted(spec)
        if low is not None:
            found.append(low)
    return found



def detect_pinned_version(start: Path) -> Version | None:
    """The torch release pinned by the project around ``start``, or ``None``.

    Looks in the project files that :mod:`torchmigrate.project.pins` reads (``requirements*.txt``, ``constraints*.txt``,
    ``pyproject.toml``, ``setup.cfg``, ``setup.py``, Dockerfiles) in ``start`` (or its folder, for a file) and its
    parents up to the first folder that holds a ``.git`` or a ``pyproject.toml``. When several files pin torch, the
    oldest pin wins: code must keep working on every release the project admits.
    """
    folder = start if start.is_dir() else start.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        pins: list[Version] = []
        for path in _listdir(candidate):
            kind = project_kind(path)
            if kind in PIN_FILE_KINDS and path.is_file():
                pins.extend(pins_in(_read(path), kind))
        pyproject = candidate / "pyproject.toml"
        if pins:
            return min(pins)
        if (candidate / ".git").exists() or pyproject.is_file():
            break
    return None



def _listdir(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []



def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def declared_floor(start: Path, target: Version) -> Version | None:
    """The oldest torch release the project's declared requirements admit once moved to ``target``, or ``None``.

    Reads the torch requirements of ``pyproject.toml``, ``setup.cfg`` and ``setup.py`` (the package's own support
    range) in the folders :func:`detect_pinned_version` searches, moves each as the torch-pin pass would
    (:func:`~torchmigrate.project.specs.move_spec`) and takes the oldest release the result admits: ``torch>=2.0.0``
    stays, so the floor is 2.0; ``torch==2.7.1`` moves to the target, so the floor is the target.
    """
    folder = start if start.is_dir() else start.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        lows: list[Version] = []
        for path in _listdir(candidate):
            kind = project_kind(path)
            if kind in DECLARING_KINDS and path.is_file():
                for spec in torch_specs(_read(path), kind):
                    low = lowest_admitted(move_spec(spec, target) or spec)
                    if low is not None:
                        lows.append(low)
        if lows:
            return min(lows)
        if (candidate / ".git").exists() or (candidate / "pyproject.toml").is_file():
            break
    return None
