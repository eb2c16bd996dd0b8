"""Where a project pins torch: the default ``--from`` of a run, read from its requirements files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from torchmigrate.core.paths import project_root
from torchmigrate.core.versions import Version, lowest_admitted
from torchmigrate.project.kinds import CI_GLOBS
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
    pins = [low for _, spec in pin_files(start) if (low := lowest_admitted(spec)) is not None]
    return min(pins) if pins else None


def detect_support_floor(
    start: Path, to: Version, moved: bool = True, migrate: Callable[[Path, str], str] | None = None
) -> tuple[Version, str] | None:
    """The support floor the project around ``start`` sets: the oldest release its torch requirements admit *after*
    the migration to ``to`` (``moved``: the ``torch-pin`` pass runs and moves a requirement that excludes ``to``), with
    the file and requirement that set it (``"requirements.txt: torch>=2.6"``); ``None`` when no requirement has a
    lower bound. ``torch==2.7.1`` → 2.12 for ``to`` 2.12 (the pin moves); ``torch>=2.0`` → 2.0 (it admits 2.12 and
    stays). A requirement with only upper bounds says nothing about the oldest supported release.

    ``migrate``: the run's own rewrite of a project file (its text → the text the run leaves): the requirements are
    then read from what the run really writes — a pin the run leaves alone (a review-level move held back, a CUDA
    build the target does not have) keeps its floor.
    """
    found: list[tuple[Version, str]] = []
    pins = pin_files(start)
    # the requirements a file holds after the run, in order, for the files the run rewrites: only those with a
    # requirement the move would change (no pass loads for the others)
    written: dict[Path, Iterator[str]] = {}
    if moved and migrate is not None:
        for path in dict.fromkeys(path for path, spec in pins if move_spec(spec, to) is not None):
            kind = project_kind(path)
            written[path] = iter(torch_specs(migrate(path, _read(path)), kind) if kind is not None else [])
    for path, spec in pins:
        if path in written:
            after = next(written[path], spec)
        else:
            after = (move_spec(spec, to) or spec) if moved else spec
        low = lowest_admitted(after)
        if low is not None:
            found.append((low, f"{_shown(path)}: torch{after}"))
    return min(found, key=lambda item: item[0]) if found else None




def ci_tested_floor(start: Path) -> tuple[Version, str] | None:
    """The oldest torch release the project's CI installs (``pip install torch==1.8.1`` in a job, or the lowest
    entry of a torch matrix), with the file that shows it: a project that declares no torch requirement still
    supports what its CI tests. ``None`` when no CI file installs a versioned torch."""
    root = project_root(start)
    found: list[tuple[Version, str]] = []
    for pattern in CI_GLOBS:
        for path in sorted(root.glob(pattern)):
            if not path.is_file():
                continue
            from torchmigrate.project.ci import scan_ci  # the CI reader (and pyyaml): loaded only when a CI file exists

            try:
                sets = scan_ci(_read(path))
            except Exception:  # a CI file the reader cannot take says nothing about the floor
                continue
            for rs in sets:
                for req in rs.reqs:
                    if req.name == "torch" and not req.opaque:
                        low = lowest_admitted(req.spec)
                        if low is not None:
                            found.append((low, f"{_shown(path)}: the CI installs torch{req.spec}"))
    return min(found, key=lambda item: item[0]) if found else None


def pin_files(start: Path) -> list[tuple[Path, str]]:
    """Each torch requirement (a file, its specifier in PEP 440 terms) of the first folder, from ``start`` up to the
    first holding a ``.git`` or a ``pyproject.toml``, whose project files pin torch."""
    folder = start if start.is_dir() else start.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        specs: list[tuple[Path, str]] = []
        for path in _listdir(candidate):
            kind = project_kind(path)
            if kind in PIN_FILE_KINDS and path.is_file():
                specs.extend((path, spec) for spec in torch_specs(_read(path), kind))
        if any(lowest_admitted(spec) is not None for _, spec in specs):
            return specs
        if (candidate / ".git").exists() or (candidate / "pyproject.toml").is_file():
            break
    return []


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when below it, else as it is."""
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


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
