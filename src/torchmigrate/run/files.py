"""Files on disk: discovery (git-ignore aware), decoding that round-trips exactly, and atomic writes."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import tempfile
import threading
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from torchmigrate.project.kinds import project_kind

if TYPE_CHECKING:  # pathspec loads when a .gitignore or an exclude pattern is there to match
    from pathspec import GitIgnoreSpec

__all__ = ["SourceFile", "SourceError", "discover", "display_path", "read_source", "write_atomic", "encode"]

SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env", "_build", "htmlcov"})
SOURCE_SUFFIXES = (".py", ".ipynb")
TMP_SUFFIX = ".torchmigrate.tmp"
# Hidden folders that hold CI files (only those files are taken from them: see ``pins.project_kind``).
CI_DIRS = frozenset({".github", ".circleci"})


class SourceError(Exception):
    """A file that cannot be read, decoded or written safely. The message says why."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    data: bytes
    text: str
    encoding: str


def read_source(path: Path) -> SourceFile:
    """Read and decode ``path`` (PEP 263 cookie, UTF-8 BOM); refuse anything that would not round-trip byte-for-byte."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from exc
    return decode_source(path, data)


def decode_source(path: Path, data: bytes) -> SourceFile:
    if b"\x00" in data:
        raise SourceError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot decode: {exc}") from exc
    if encode(text, encoding) != data:
        raise SourceError(f"text does not round-trip through {encoding}")
    return SourceFile(path, data, text, encoding)


def encode(text: str, encoding: str) -> bytes:
    """``text`` in the file's own encoding; ``SourceError`` when a character has no byte form there."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise SourceError(f"new text cannot be encoded in the file's encoding ({exc.encoding}): {exc.reason}") from exc


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT back while the block runs, then deliver it: a write is never abandoned half-way.

    Only the main thread can install signal handlers; elsewhere the block just runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: object) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
        if received:
            if callable(previous):
                previous(signal.SIGINT, None)
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt


def write_atomic(path: Path, data: bytes, expected_old: bytes | None = None) -> None:
    """Replace ``path``'s content with ``data`` via a temporary file in the same folder and ``os.replace``.

    Keeps the file mode (and owner where allowed); a symlink stays a symlink (its target is written). A read-only file
    is refused, and so is a file whose bytes changed since they were read (``expected_old``).
    """
    real = Path(os.path.realpath(path))
    try:
        st = real.stat()
    except OSError as exc:
        raise SourceError(f"cannot stat: {exc.strerror or exc}") from exc
    if not st.st_mode & stat.S_IWUSR:
        raise SourceError("file is read-only; left as it was")
    try:
        folder_mode = real.parent.stat().st_mode
    except OSError as exc:
        raise SourceError(f"cannot stat its folder: {exc.strerror or exc}") from exc
    if not folder_mode & stat.S_IWUSR:
        raise SourceError("folder is read-only; file left as it was")
    if expected_old is not None:
        try:
            current = real.read_bytes()
        except OSError as exc:
            raise SourceError(f"cannot re-read before writing: {exc.strerror or exc}") from exc
        if current != expected_old:
            raise SourceError("file changed on disk during the run; left as it is")
    with interrupts_deferred():  # Ctrl-C waits until the file is replaced or the temporary file is gone
        tmp_name: str | None = None
        try:
            fd, tmp_name = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=TMP_SUFFIX)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp_name, stat.S_IMODE(st.st_mode))
            with contextlib.suppress(OSError):
                os.chown(tmp_name, st.st_uid, st.st_gid)
            os.replace(tmp_name, real)
            tmp_name = None
        except OSError as exc:
            raise SourceError(f"cannot write: {exc.strerror or exc}") from exc
        finally:
            if tmp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name)


def display_path(path: Path, absolute: str | None = None) -> str:
    """``path`` relative to the working directory when it lies below it (as ``git apply`` wants), else absolute.
    ``absolute``: ``path`` made absolute, when the caller has it already."""
    return relative_posix(absolute or os.path.abspath(path), os.getcwd())


def relative_posix(absolute: str, base: str) -> str:
    """``absolute`` relative to ``base`` in ``/`` form when it lies below it (lexically, like ``Path.relative_to``),
    else ``absolute`` in ``/`` form. Plain string work: it runs for every file of every run."""
    if absolute == base:
        return "."
    prefix = base if base.endswith(os.sep) else base + os.sep
    if absolute.startswith(prefix):
        absolute = absolute[len(prefix) :]
    return absolute.replace(os.sep, "/") if os.sep != "/" else absolute


# --- discovery ------------------------------------------------------------------------------------------------


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


def _git_top(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def gitignore_spec(lines: Sequence[str]) -> GitIgnoreSpec:
    """``lines`` (gitignore syntax) as a pathspec matcher; pathspec loads on the first call."""
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(list(lines))


def _load_ignore(folder: Path) -> GitIgnoreSpec | None:
    ignore = folder / ".gitignore"
    if not ignore.is_file():
        return None
    try:
        return gitignore_spec(ignore.read_text(encoding="utf-8", errors="replace").splitlines())
    except (OSError, ValueError):
        return None


def _ignored(path: Path, is_dir: bool, specs: Sequence[tuple[Path, GitIgnoreSpec]]) -> bool:
    for base, spec in specs:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            continue
        if spec.match_file(rel + "/" if is_dir else rel):
            return True
    return False


def discover(
    paths: Sequence[Path], suffixes: Sequence[str] = SOURCE_SUFFIXES, exclude: Sequence[str] = (), project_files: bool = True
) -> Iterator[Path]:
    """Every source file under ``paths``, each once, in sorted order per root.

    Source files are those ending in ``suffixes`` (Python files and notebooks) and, with ``project_files``, the files
    that may pin torch (``requirements*.txt``, ``pyproject.toml``, Dockerfiles, CI files:
    :func:`torchmigrate.project.pins.project_kind`).
    Files named directly are always taken. Folders are walked skipping hidden folders, virtual environments,
    ``__pycache__``, build output, ``.gitignore`` matches and ``exclude`` patterns (gitignore syntax). Symlinked folders
    are not followed, and a symlinked file is taken only when its target lies inside one of the roots.
    """
    roots = [os.path.realpath(p) for p in paths]
    excluded = gitignore_spec(exclude) if exclude else None
    seen: set[str] = set()

    def inside_roots(real: str) -> bool:
        return any(real == r or real.startswith(r if r.endswith(os.sep) else r + os.sep) for r in roots)

    def take(path: Path, real: str | None = None) -> bool:
        """``real``: the caller knows the real path (a plain file in a folder whose path is real), no lookup needed."""
        if real is None:
            real = os.path.realpath(path)
        if real in seen or not inside_roots(real):
            return False
        seen.add(real)
        return True

    for given in paths:
        if given.is_file() or (given.is_symlink() and not given.is_dir()):
            if take(given):
                yield given
            continue
        if not given.is_dir():
            continue
        here = Path(os.path.abspath(given))
        top = _git_top(here)
        specs: list[tuple[Path, GitIgnoreSpec]] = []
        ancestors: list[Path] = []
        folder = here
        while top is not None and folder != top:
            folder = folder.parent
            ancestors.append(folder)
        for folder in reversed(ancestors):
            spec = _load_ignore(folder)
            if spec is not None:
                specs.append((folder, spec))
        yield from _walk(here, given, specs, suffixes, excluded, take, hidden=False, project_files=project_files)


def _walk(
    folder: Path,
    shown: Path,
    specs: list[tuple[Path, GitIgnoreSpec]],
    suffixes: Sequence[str],
    excluded: GitIgnoreSpec | None,
    take: Callable[[Path, str | None], bool],
    hidden: bool,
    project_files: bool,
) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    own = _load_ignore(folder)
    if own is not None and not any(base == folder for base, _ in specs):
        specs = [*specs, (folder, own)]
    is_real = os.path.realpath(folder) == str(folder)  # then so is the path of each plain file in it
    for entry in entries:
        shown_path = shown / entry.name
        if entry.is_dir(follow_symlinks=False):
            path = folder / entry.name
            ci = project_files and entry.name in CI_DIRS
            if (entry.name.startswith(".") and not ci) or entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                continue
            if _is_venv(path) or _ignored(path, True, specs):
                continue
            if excluded is not None and excluded.match_file(shown_path.as_posix() + "/"):
                continue
            yield from _walk(path, shown_path, specs, suffixes, excluded, take, hidden or ci, project_files)
        elif _wanted(shown_path, suffixes, hidden, project_files):
            if entry.is_symlink() and entry.is_dir():
                continue
            path = folder / entry.name
            if specs and _ignored(path, False, specs):
                continue
            if excluded is not None and excluded.match_file(shown_path.as_posix()):
                continue
            if take(path, entry.path if is_real and not entry.is_symlink() else None):
                yield shown_path


def _wanted(path: Path, suffixes: Sequence[str], hidden: bool, project_files: bool) -> bool:
    kind = project_kind(path) if project_files else None
    if hidden:  # inside .github / .circleci: CI files only
        return kind == "ci"
    return kind is not None or path.name.endswith(tuple(suffixes))


