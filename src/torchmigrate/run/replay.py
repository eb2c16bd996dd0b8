"""Replaying an unchanged read-only run: ``migrate --diff`` / ``--check`` run again as it was, over the same files.

A run that writes nothing (``--diff`` or ``--check``, its output on stdout and stderr only, neither a terminal) is
recorded in the cache folder of its first PATH's project (``.torchmigrate_cache/runs/``): what it printed, its exit
code, and what it depended on —

- the command: its arguments, the working folder, the environment, the Python running it and the tool's stamp
  (:func:`~torchmigrate.core.stamp.tool_stamp`: each of its source files' size and modification time);
- each file it opened for reading, by its bytes' SHA-256;
- each folder it listed: the names of its entries and the size and modification time of each file among them (what
  the project readers' kept readings rest on: :func:`~torchmigrate.run.plan.project_signature`);
- each folder above a file or folder it used, up to the filesystem root: the names of its entries (the run looks
  there for ``.git``, ``pyproject.toml`` and the like).

The same command then prints the recorded output and exits with the recorded code once every one of these holds,
before it imports the command line (typer), the cache database or the passes: a re-run of CI over an unchanged tree
costs the Python start, a walk of ``stat`` calls and a hash of the files read. Any difference, or a record that
cannot be read, is a miss and the run goes on as usual (its per-file cache still answers for the unchanged files).

Never wrong: what the run read is compared by content, not by time; a run is not recorded when a file in a folder it
listed was modified within two seconds of its start (a change in the same tick of a coarse clock would not show,
as git treats a "racy" file), when it started a subprocess, wrote a file outside the cache, or ended in an error.
``--no-cache`` neither reads nor writes a record, nor does any run while ``TORCHMIGRATE_NO_REPLAY`` is set. Standard
library only: this module loads before anything else.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import stat
import sys
import time

from torchmigrate.core.stamp import tool_stamp

TYPE_CHECKING = False  # not typing's: this module loads first, and typing with its imports is a third of a replay
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO

__all__ = ["Recorder", "allow", "replay", "run_key"]

CACHE_DIR = ".torchmigrate_cache"  # torchmigrate.run.cache.CACHE_DIR (not imported: it loads sqlite3)
RUNS = "runs"
_FORMAT = 1
_RACY_NS = 2_000_000_000
_IGNORED_ENV = frozenset({"_", "OLDPWD", "SHLVL"})
"""Variables a shell changes between two identical commands, which no part of a run reads."""
_SUBPROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.startfile"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def run_key(argv: Sequence[str], cwd: str, env: dict[str, str]) -> str:
    """What identifies a command: the tool (its stamp), the Python running it, the arguments, the working folder and
    the environment."""
    digest = hashlib.sha256()
    parts = (
        str(_FORMAT),
        tool_stamp(),
        sys.executable,
        sys.version,
        repr(sys.flags),
        cwd,
        "\0".join(argv),
        "\0".join(f"{k}={v}" for k, v in sorted(env.items()) if k not in _IGNORED_ENV),
    )
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\n")
    return digest.hexdigest()


def _streams_ok() -> bool:
    """Neither stdout nor stderr is a terminal: what a run prints there (colours, a progress bar, a pager) depends on
    the terminal, not on the command."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "buffer", None) is None:
            return False
        try:
            if stream.isatty():
                return False
        except (OSError, ValueError):
            return False
    return True


NO_REPLAY = "TORCHMIGRATE_NO_REPLAY"
"""Set (to anything but an empty string) in the environment, runs are neither replayed nor recorded: every run is made,
its files still served by the per-file cache."""


def _possible(argv: Sequence[str]) -> bool:
    return "--no-cache" not in argv and not os.environ.get(NO_REPLAY) and _streams_ok()


def _project_root(path: str) -> str:
    """:func:`torchmigrate.core.paths.project_root` on strings (pathlib is not loaded yet)."""
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    candidates = [folder]
    while True:
        parent = os.path.dirname(candidates[-1])
        if parent == candidates[-1]:
            break
        candidates.append(parent)
    for candidate in candidates:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "pyproject.toml")):
            return candidate
    return folder


def _record_path(root: str, key: str) -> str:
    return os.path.join(root, CACHE_DIR, RUNS, key)


def _worker_mark(root: str, key: str) -> str:
    return os.path.join(root, CACHE_DIR, RUNS, f"{key}.worker-read")


# --- replaying --------------------------------------------------------------------------------------------------------


def replay(argv: Sequence[str], out: BinaryIO | None = None, err: BinaryIO | None = None) -> int | None:
    """Print the recorded output of the command ``argv`` and give its exit code, when it was recorded and everything
    it depended on is as it was; else ``None`` (run it)."""
    if not _possible(argv):
        return None
    cwd = os.getcwd()
    key = run_key(argv, cwd, dict(os.environ))
    record = None
    seen: set[str] = set()
    for token in argv:
        if token.startswith("-") or not os.path.exists(token):
            continue
        root = _project_root(token)
        if root in seen:
            continue
        seen.add(root)
        record = _load(_record_path(root, key), key)
        if record is not None:
            break
    if record is None or not _holds(record):
        return None
    streams = {1: out or sys.stdout.buffer, 2: err or sys.stderr.buffer}
    for fd, chunk in record["chunks"]:
        streams[fd].write(chunk)
        streams[fd].flush()
    code = record["code"]
    return code if isinstance(code, int) else None


def _load(path: str, key: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            record = marshal.load(handle)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(record, dict) or record.get("format") != _FORMAT or record.get("key") != key:
        return None
    return record


def _holds(record: dict[str, Any]) -> bool:
    try:
        for folder, listing in record["folders"]:
            if _listing(folder) != listing:
                return False
        for folder, names in record["above"]:
            if _names(folder) != names:
                return False
        for path, size, digest in record["files"]:
            if _digest(path, size) != digest:
                return False
    except (TypeError, ValueError):
        return False
    return True


def _listing(folder: str) -> tuple[tuple[str, int, int], ...] | None:
    """A folder's entries, sorted: each file's name, size and modification time, each folder's name (size ``-1``);
    ``None`` when it cannot be listed. The cache folder is left out."""
    entries = []
    try:
        with os.scandir(folder) as found:
            for entry in found:
                if entry.name == CACHE_DIR:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        entries.append((entry.name, -1, 0))
                        continue
                    status = entry.stat()
                except OSError:
                    entries.append((entry.name, -2, 0))
                    continue
                entries.append((entry.name, status.st_size, status.st_mtime_ns))
    except OSError:
        return None
    entries.sort()
    return tuple(entries)


def _names(folder: str) -> tuple[str, ...] | None:
    """The names of a folder's entries, sorted (the cache folder left out); ``None`` when it cannot be listed."""
    try:
        return tuple(sorted(name for name in os.listdir(folder) if name != CACHE_DIR))
    except OSError:
        return None


def _digest(path: str, size: int | None = None) -> str | None:
    """The SHA-256 of a file's bytes (``None``: unreadable, or not ``size`` bytes long)."""
    try:
        if size is not None and os.stat(path).st_size != size:
            return None
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


# --- recording --------------------------------------------------------------------------------------------------------


class _Allowed:
    """Set by the command line when the run it is about to make may be recorded (:func:`allow`)."""

    root: str | None = None
    paths: tuple[str, ...] = ()


def allow(paths: Sequence[str | os.PathLike[str]]) -> None:
    """The command line's run over ``paths`` writes nothing and prints only to stdout and stderr: it may be recorded,
    in the cache of the first one's project."""
    if paths:
        _Allowed.root = _project_root(os.fspath(paths[0]))
        _Allowed.paths = tuple(os.path.abspath(p) for p in paths)


class _Tee(io.RawIOBase):
    """A binary stream that writes through to ``target`` and keeps each chunk (with ``fd``, 1 or 2) in ``chunks``."""

    def __init__(self, target: BinaryIO, fd: int, chunks: list[tuple[int, bytes]]) -> None:
        super().__init__()
        self._target, self._fd, self._chunks = target, fd, chunks

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self._target.write(chunk)
        self._chunks.append((self._fd, chunk))
        return len(chunk)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._target.fileno()


class Recorder:
    """Watches one run of the command line (its files, folders, subprocesses and output) and stores it for
    :func:`replay` once it ends as it may."""

    _active: Recorder | None = None
    _hooked = False

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.cwd = os.getcwd()
        self.key = run_key(self.argv, self.cwd, dict(os.environ))
        self.start_ns = time.time_ns()
        self.opened: set[str] = set()
        self.listed: set[str] = set()
        self.tainted = False
        self.flagged = False  # (in a worker process) the mark of a worker's read is made
        self.chunks: list[tuple[int, bytes]] = []
        self._saved: tuple[Any, Any] | None = None
        self._pid = os.getpid()
        self._skip = _tool_places()

    @classmethod
    def start(cls, argv: Sequence[str]) -> Recorder | None:
        """Start watching this process's run of ``argv``, or ``None`` when it could never be replayed."""
        if not _possible(argv):
            return None
        recorder = cls(argv)
        _Allowed.root, _Allowed.paths = None, ()
        if not cls._hooked:
            sys.addaudithook(_audit)  # audit hooks stay for the process: this one watches only while a run is
            cls._hooked = True
        cls._active = recorder
        recorder._saved = (sys.stdout, sys.stderr)
        sys.stdout = recorder._tee(sys.stdout, 1)
        sys.stderr = recorder._tee(sys.stderr, 2)
        return recorder

    def _tee(self, stream: Any, fd: int) -> io.TextIOWrapper:
        stream.flush()
        return io.TextIOWrapper(
            io.BufferedWriter(_Tee(stream.buffer, fd, self.chunks)),
            encoding=stream.encoding,
            errors=stream.errors,
            line_buffering=stream.line_buffering,
            write_through=True,
        )

    def stop(self, code: object) -> None:
        """The run ended with exit code ``code``: restore the streams and store the record when the run may be
        replayed."""
        Recorder._active = None
        if self._saved is None:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                self.tainted = True
        sys.stdout, sys.stderr = self._saved
        self._saved = None
        root, paths = _Allowed.root, _Allowed.paths
        _Allowed.root, _Allowed.paths = None, ()
        if root is None or self.tainted or code not in (0, 1, None) or os.getpid() != self._pid:
            return
        mark = _worker_mark(root, self.key)
        if os.path.exists(mark):
            try:
                os.unlink(mark)
            except OSError:
                pass
            return  # a worker process opened a file of the user's: what it read is not known here
        if any((p + os.sep).startswith(self._skip) for p in paths):
            return  # a PATH among the tool's or Python's own files, whose reads are not watched
        try:
            record = self._record(0 if code is None else int(code))
            if record is not None:
                _store(_record_path(root, self.key), record)
        except (OSError, ValueError):
            pass  # a record that cannot be made or written: the next run is not replayed, nothing else

    def _record(self, code: int) -> dict[str, Any] | None:
        above: set[str] = set()  # the folders above what the run used: a lookup there (.git, pyproject.toml) is
        for path in (*self.listed, *self.opened, self.cwd):  # a test of an entry's existence
            folder = os.path.dirname(path)
            while folder not in above:
                above.add(folder)
                parent = os.path.dirname(folder)
                if parent == folder:
                    break
                folder = parent
        newest_allowed = self.start_ns - _RACY_NS
        listings = []
        for folder in sorted(self.listed):
            listing = _listing(folder)
            if listing is None:
                continue  # gone or unreadable now: its absence is what its parent's record shows
            if any(m > newest_allowed for _, _, m in listing):
                return None  # a file changed a moment before the run (or during it): the same tick could hide a change
            listings.append((folder, listing))
        names = [(folder, _names(folder)) for folder in sorted(above - self.listed)]
        files = []
        for path in sorted(self.opened):
            try:
                status = os.stat(path)
            except OSError:
                continue
            if not stat.S_ISREG(status.st_mode):
                continue
            if status.st_mtime_ns > newest_allowed:
                return None
            digest = _digest(path)
            if digest is None:
                return None
            files.append((path, status.st_size, digest))
        return {
            "format": _FORMAT,
            "key": self.key,
            "folders": listings,
            "above": names,
            "files": files,
            "chunks": self.chunks,
            "code": code,
        }

    def saw(self, event: str, args: tuple[Any, ...]) -> None:
        """An audit event of the run."""
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return  # an open file descriptor: the file was opened, and seen, before
            where = self._place(path)
            if where is None:
                return
            writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
            if writes:
                if CACHE_DIR not in where.split(os.sep):
                    self.tainted = True  # the run wrote a file of the user's: never replayed
                return
            self.opened.add(where)
        elif event in ("os.scandir", "os.listdir"):
            where = self._place(args[0] if args else None)
            if where is not None:
                self.listed.add(where)
        elif event in _SUBPROCESS_EVENTS:
            self.tainted = True

    def worker_saw(self, event: str, args: tuple[Any, ...]) -> None:
        """An audit event in a worker process (forked from the run's): the workers migrate the bytes the run's
        process read and open nothing of the user's; one that does leaves a mark that keeps the run from being
        recorded."""
        if event == "open" and isinstance(args[0], int):
            return
        if self._place(args[0] if args else None) is None or _Allowed.root is None:
            return
        self.flagged = True  # first: the mark's own open comes back here
        mark = _worker_mark(_Allowed.root, self.key)
        try:
            os.makedirs(os.path.dirname(mark), exist_ok=True)
            os.close(os.open(mark, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            pass

    def _place(self, path: Any) -> str | None:
        """``path`` as an absolute path, or ``None`` for one of the tool's own places (its package, Python's
        installation, the device files) or the cache."""
        if path is None:
            path = "."
        try:
            text = os.fsdecode(path)
        except (TypeError, ValueError):
            self.tainted = True
            return None
        absolute = os.path.abspath(os.path.join(self.cwd, text))
        if absolute.startswith(self._skip) or CACHE_DIR in absolute.split(os.sep):
            return None
        return absolute


def _tool_places() -> tuple[str, ...]:
    """Where the tool and Python keep what they load: not the run's input."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    places = {package, sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__)}
    places.update(e for e in sys.path if os.path.basename(e) in ("site-packages", "dist-packages"))
    places.update([os.path.realpath(p) for p in places])
    return tuple(sorted(p.rstrip(os.sep) + os.sep for p in places if p)) + ("/dev/", "/proc/", "/sys/")


def _audit(event: str, args: tuple[Any, ...]) -> None:
    recorder = Recorder._active
    if recorder is None:
        return
    if os.getpid() == recorder._pid:
        recorder.saw(event, args)
    elif event in ("open", "os.scandir", "os.listdir") and not recorder.flagged:
        recorder.worker_saw(event, args)


def _store(path: str, record: dict[str, Any]) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        marshal.dump(record, handle)
    os.replace(temporary, path)


def run_recorded(argv: Sequence[str], run: Callable[[], None]) -> None:
    """``run()`` (the command line), replayed when it can be and recorded when it may be."""
    code = replay(argv)
    if code is not None:
        raise SystemExit(code)
    recorder = Recorder.start(argv)
    if recorder is None:
        run()
        return
    try:
        run()
    except SystemExit as exit_:
        recorder.stop(exit_.code)
        raise
    except BaseException:
        recorder.tainted = True
        recorder.stop(None)
        raise
    recorder.stop(0)
