"""Replaying an unchanged read-only run: ``migrate --diff`` / ``--check`` run again as it was, over the same files.

A run that writes nothing (``--diff`` or ``--check``, its output on stdout and stderr only, neither a terminal) is
recorded in the cache folder of its first PATH's project (``.torchmigrate_cache/runs/``): what it printed, its exit
code, and what it depended on —

- the command: its arguments, the working folder, the environment, the sizes of the terminals around it, the Python
  running it and the tool's stamp (:func:`~torchmigrate.core.stamp.tool_stamp`: each of its source files' size and
  modification time), and the size and modification time of every other module it loaded (another release of
  pathspec, which decides what a walk sees, is another command);
- each file it opened for reading, by its bytes' SHA-256;
- each folder it listed: its entries' names, the size and modification time of each file and where each symbolic
  link points (what the project readers' kept readings rest on: :func:`~torchmigrate.run.plan.project_signature`);
- each folder it may have looked into without listing it — the folders the walk skipped (a virtual environment's
  ``pyvenv.cfg``, a stub package's ``torch/__init__.pyi``) and each folder above what it used, up to the filesystem
  root (``.git``, ``pyproject.toml``): what a lookup of each of its entries finds (a file, a folder, nothing).

The same command then prints the recorded output and exits with the recorded code once every one of these holds,
before it imports the command line (typer), the cache database or the passes: a re-run of CI over an unchanged tree
costs the Python start, a walk of ``stat`` calls and a hash of the files read. Any difference, or a record that
cannot be read, is a miss and the run goes on as usual (its per-file cache still answers for the unchanged files).

Never wrong: what the run read is compared by content, not by time. A run is not recorded when a file it read or
listed changed while it ran (its status-change time, which no tool sets back, is after the start) or was modified
within two seconds before (a change in the same tick of a coarse clock would not show, as git treats a "racy" file),
when it read a pipe or a device (``--config /dev/stdin``), started a subprocess, wrote a file outside the cache or
failed to write its output (a reader that went away), or when its output depends on more than what it read (a file
it could not read, a repository's git state, an error of the command line: :func:`forbid`). A file the tool cannot
parse or decode is an error of its bytes, and replayed as such. ``--no-cache`` neither reads nor writes a record, nor
does any run while ``TORCHMIGRATE_NO_REPLAY`` is set. Standard library only: this module loads before anything else.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import stat
import sys
import time

from torchmigrate.core.paths import CACHE_DIR
from torchmigrate.core.paths import project_root_of as _project_root
from torchmigrate.core.stamp import PACKAGE, tool_stamp

TYPE_CHECKING = False  # not typing's: this module loads first, and typing with its imports is a third of a replay
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO

__all__ = ["Recorder", "allow", "forbid", "replay", "run_key"]

RUNS = "runs"
_FORMAT = 2
_RACY_NS = 2_000_000_000
_CLOCK_SLACK_NS = 20_000_000
"""How far behind the clock the kernel's status-change times may lag (they come from a coarse clock that ticks every
few milliseconds): a change this close before the start may have happened after it."""
_IGNORED_ENV = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
"""Variables a shell changes between two identical commands, which no part of a run reads (the working folder is
in the key itself)."""
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
        repr(sys.warnoptions),
        repr([_terminal_size(fd) for fd in (0, 1, 2)]),  # a console library sizes its tables from any of them
        cwd,
        "\0".join(argv),
        "\0".join(f"{k}={v}" for k, v in sorted(env.items()) if k not in _IGNORED_ENV),
    )
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\n")
    return digest.hexdigest()


def _terminal_size(fd: int) -> tuple[int, int] | None:
    try:
        size = os.get_terminal_size(fd)
    except (OSError, ValueError):
        return None
    return (size.columns, size.lines)


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
    try:
        for fd, chunk in record["chunks"]:
            streams[fd].write(chunk)
            streams[fd].flush()
    except BrokenPipeError:
        # the reader went away (`| head`): as the command line does, stop quietly with exit code 1 (and let nothing
        # more reach the closed pipe when Python flushes its streams at exit)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
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
    chunks, code = record.get("chunks"), record.get("code")
    if not isinstance(chunks, list) or not isinstance(code, int) or not all(
        isinstance(c, tuple) and len(c) == 2 and c[0] in (1, 2) and isinstance(c[1], bytes) for c in chunks
    ):
        return None
    return record


def _holds(record: dict[str, Any]) -> bool:
    try:
        for path, size, mtime in record["modules"]:
            if _stamp_of(path) != (size, mtime):
                return False
        for folder, listing in record["folders"]:
            found = _listing(folder)
            if found is None or found[0] != listing:
                return False
        for folder, kinds in record["peeked"]:
            if _kinds(folder) != kinds:
                return False
        for path, size, digest in record["files"]:
            if size == -1:
                if os.path.lexists(path):
                    return False
            elif _digest(path, size) != digest:
                return False
    except (TypeError, ValueError, KeyError):
        return False
    return True


def _outputs() -> frozenset[tuple[int, int]]:
    """The files stdout and stderr write to, by device and inode: a run's own output file in the project (``migrate
    --diff . > changes.diff``) is not one of its inputs."""
    found = set()
    for fd in (1, 2):
        try:
            status = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode):
            found.add((status.st_dev, status.st_ino))
    return frozenset(found)


def _listing(folder: str) -> tuple[tuple[tuple[str, int, int, str], ...], int] | None:
    """A folder's entries, sorted — each file's name, size and modification time, each folder's name (size ``-1``),
    and for a symbolic link where it points — with the newest status-change time among them; ``None`` when it cannot
    be listed. The cache folder is left out."""
    entries = []
    newest = 0
    try:
        with os.scandir(folder) as found:
            for entry in found:
                if entry.name == CACHE_DIR:
                    continue
                try:
                    link = _link(entry.path) if entry.is_symlink() else ""
                    if entry.is_dir(follow_symlinks=False):
                        entries.append((entry.name, -1, 0, link))
                        continue
                    status = entry.stat()
                except OSError:
                    entries.append((entry.name, -2, 0, ""))
                    continue
                if (status.st_dev, status.st_ino) in _OUTPUTS:
                    continue  # what this process prints into
                entries.append((entry.name, status.st_size, status.st_mtime_ns, link))
                newest = max(newest, status.st_ctime_ns)
    except OSError:
        return None
    entries.sort()
    return tuple(entries), newest


_OUTPUTS = _outputs()


def _kinds(folder: str) -> tuple[tuple[str, str, str], ...] | None:
    """What a lookup of each entry of a folder finds (``f`` a file, ``d`` a folder, ``o`` something else, ``x``
    nothing: a link to nowhere), with where a symbolic link points, sorted; the cache folder left out; ``None`` when
    the folder cannot be listed. What the run learns from a folder it never lists: whether ``.git``,
    ``pyproject.toml``, ``pyvenv.cfg`` or ``torch/__init__.pyi`` is there."""
    kinds = []
    try:
        with os.scandir(folder) as found:
            for entry in found:
                if entry.name == CACHE_DIR:
                    continue
                link = _link(entry.path) if entry.is_symlink() else ""
                try:
                    mode = os.stat(entry.path).st_mode
                    kind = "f" if stat.S_ISREG(mode) else "d" if stat.S_ISDIR(mode) else "o"
                except OSError:
                    kind = "x"
                kinds.append((entry.name, kind, link))
    except OSError:
        return None
    kinds.sort()
    return tuple(kinds)


def _link(path: str) -> str:
    """Where a symbolic link points, and where the chain of links it starts ends (a later link of the chain may
    change)."""
    try:
        return f"{os.readlink(path)}|{os.path.realpath(path)}"
    except OSError:
        return "?"


def _below(folder: str, roots: Sequence[str]) -> bool:
    return any(folder == root or folder.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _stamp_of(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns)


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
    root_change = 0  # the root folder's status-change time once its cache folder is there


def allow(paths: Sequence[str | os.PathLike[str]]) -> None:
    """The command line's run over ``paths`` writes nothing and prints only to stdout and stderr: it may be recorded,
    in the cache of the first one's project."""
    if paths and Recorder._active is not None:  # only a run that is watched (not with the replay off) may be
        root = _project_root(os.fspath(paths[0]))
        from pathlib import Path

        from torchmigrate.run.cache import make_cache_folder

        try:  # the cache folder (which the run makes anyway) is made now: the run's changes to its project's folder
            make_cache_folder(Path(root, CACHE_DIR))  # after this are not the cache's
            os.makedirs(os.path.join(root, CACHE_DIR, RUNS), exist_ok=True)
            _Allowed.root_change = os.stat(root).st_ctime_ns
        except OSError:
            return
        _Allowed.root = root
        _Allowed.paths = tuple(os.path.abspath(p) for p in paths)


def forbid() -> None:
    """What the run prints now depends on more than its inputs (a file it could not read, a repository's git state, a
    failure of the command line itself): it is not recorded."""
    _Allowed.root, _Allowed.paths = None, ()


class _Tee(io.RawIOBase):
    """A binary stream that writes through to ``target`` and keeps each chunk (with ``fd``, 1 or 2) in its recorder's
    ``chunks``; a write that fails (a reader that went away) keeps the run from being recorded, whatever the command
    line makes of the error."""

    def __init__(self, target: BinaryIO, fd: int, recorder: Recorder) -> None:
        super().__init__()
        self._target, self._fd, self._recorder = target, fd, recorder

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        try:
            self._target.write(chunk)
        except BaseException:
            self._recorder.tainted = True
            raise
        self._recorder.chunks.append((self._fd, chunk))
        return len(chunk)

    def flush(self) -> None:
        try:
            self._target.flush()
        except BaseException:
            self._recorder.tainted = True
            raise

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
        self.opened: dict[str, bool] = {}  # each file the run opened (or tried to): whether it was there then
        self.listed: set[str] = set()
        self.tainted = False
        self.flagged = False  # (in a worker process) the mark of a worker's read is made
        self.root: str | None = None  # the project whose cache keeps the record, and its folder's status-change time
        self.root_change = 0  # once the cache folder was made in it
        self.paths: tuple[str, ...] = ()  # the run's PATHs
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
            io.BufferedWriter(_Tee(stream.buffer, fd, self)),
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
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()  # what the run printed reached the streams whole, or the run is not recorded
            except (OSError, ValueError):
                self.tainted = True
        root, paths, self.root_change = _Allowed.root, _Allowed.paths, _Allowed.root_change
        _Allowed.root, _Allowed.paths = None, ()
        self.root, self.paths = root, paths
        if root is None or self.tainted or code not in (0, 1, 2, None) or os.getpid() != self._pid:
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
        """The record of the run, or ``None`` when something it depended on changed a moment before it or while it
        ran (checked on each status-change time, which no tool can set back) or is gone."""
        newest_allowed = self.start_ns - _RACY_NS
        listings = []
        peeked: set[str] = set()  # folders the run may have looked into without listing them
        for folder in sorted(self.listed):
            found = _listing(folder)
            if found is None:
                continue  # gone or unreadable now: its absence is what its parent's record shows
            entries, newest_change = found
            if newest_change >= self.start_ns - _CLOCK_SLACK_NS or any(m > newest_allowed for _, _, m, _ in entries):
                return None  # a file changed while the run ran, or a moment before: the same tick could hide it
            if not self._still(folder):
                return None  # an entry was added, removed or renamed while the run ran
            listings.append((folder, entries))
            if _below(folder, self.paths):  # a folder the walk skipped (a virtual environment, an ignored or hidden
                # one) was looked into (`pyvenv.cfg`, `torch/__init__.pyi`)
                for name, size, _, link in entries:
                    path = os.path.join(folder, name)
                    if (size == -1 and not link) or (link and os.path.isdir(path)):  # a folder, or a link to one
                        peeked.add(path)
        for path in (*self.listed, *self.opened, self.cwd):  # and the folders above what the run used (`.git`,
            folder = os.path.dirname(path)  # `pyproject.toml`, `setup.cfg`, each lookup a test of an entry)
            while folder not in peeked:
                peeked.add(folder)
                parent = os.path.dirname(folder)
                if parent == folder:
                    break
                folder = parent
        kinds = [(folder, _kinds(folder)) for folder in sorted(peeked - self.listed)]
        files: list[tuple[str, int, str | None]] = []
        for path, existed in sorted(self.opened.items()):
            try:
                status = os.stat(path)
            except OSError:
                if existed or not self._still(os.path.dirname(path)):
                    return None  # read, and gone now; or its folder changed while the run ran
                files.append((path, -1, None))  # looked for and not there (`<unknown>`, an optional file): not there
                continue
            if not existed:
                return None  # made while the run ran
            if not stat.S_ISREG(status.st_mode):
                return None  # a pipe or a device: what was read is not there to compare
            if status.st_mtime_ns > newest_allowed or status.st_ctime_ns >= self.start_ns - _CLOCK_SLACK_NS:
                return None
            digest = _digest(path)
            if digest is None:
                return None
            files.append((path, status.st_size, digest))
        return {
            "format": _FORMAT,
            "key": self.key,
            "modules": _loaded_modules(),
            "folders": listings,
            "peeked": kinds,
            "files": files,
            "chunks": self.chunks,
            "code": code,
        }

    def _still(self, folder: str) -> bool:
        """No entry of ``folder`` was added, removed or renamed since the run started (the project's own folder: since
        :func:`allow` made the cache folder in it)."""
        try:
            changed = os.stat(folder).st_ctime_ns
        except OSError:
            return True  # not there: its parent's record says so
        if folder == self.root:
            return changed == self.root_change
        return changed < self.start_ns - _CLOCK_SLACK_NS

    def saw(self, event: str, args: tuple[Any, ...]) -> None:
        """An audit event of the run."""
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return  # an open file descriptor: the file was opened, and seen, before
            where = self._place(path, opened=True)
            if where is None:
                return
            writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
            if writes:
                if CACHE_DIR not in where.split(os.sep):
                    self.tainted = True  # the run wrote a file of the user's: never replayed
                return
            if where not in self.opened:
                self.opened[where] = os.path.exists(where)
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
        if self._place(args[0] if args else None, opened=event == "open") is None or _Allowed.root is None:
            return
        self.flagged = True  # first: the mark's own open comes back here
        mark = _worker_mark(_Allowed.root, self.key)
        try:
            os.makedirs(os.path.dirname(mark), exist_ok=True)
            os.close(os.open(mark, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            pass

    def _place(self, path: Any, opened: bool = False) -> str | None:
        """``path`` as an absolute path; ``None`` for the cache, ``os.devnull``, and the modules Python loads from the
        tool's and Python's own places (their stamps are in the record); any other device or process file read
        keeps the run from being recorded."""
        if path is None:
            path = "."
        try:
            text = os.fsdecode(path)
        except (TypeError, ValueError):
            self.tainted = True
            return None
        absolute = os.path.abspath(os.path.join(self.cwd, text))
        if CACHE_DIR in absolute.split(os.sep) or absolute == os.devnull:
            return None
        if absolute.startswith(_SPECIAL):
            self.tainted = True  # stdin as /dev/stdin, a /proc file: nothing to compare the next time
            return None
        if absolute.startswith(self._skip) and (not opened or absolute.endswith(_MODULE_SUFFIXES)):
            return None
        return absolute


_SPECIAL = ("/dev/", "/proc/", "/sys/")
_MODULE_SUFFIXES = (".py", ".pyc", ".pyi", ".so", ".pyd", ".pth")


def _tool_places() -> tuple[str, ...]:
    """Where the tool and Python keep what they load: their modules are not the run's input."""
    places = {PACKAGE, sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__)}
    places.update(e for e in sys.path if os.path.basename(e) in ("site-packages", "dist-packages"))
    places.update([os.path.realpath(p) for p in places])
    return tuple(sorted(p.rstrip(os.sep) + os.sep for p in places if p))


def _loaded_modules() -> list[tuple[str, int, int]]:
    """The size and modification time of each module file loaded here but the tool's own (its stamp covers them):
    what Python checks before it reuses their bytecode, so that another release of a dependency (pathspec decides
    which files a run sees) is another run."""
    package = PACKAGE + os.sep
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and not os.path.realpath(path).startswith(package):
            found.add(path)
    stamps = []
    for path in sorted(found):
        stamp = _stamp_of(path)
        if stamp is not None:
            stamps.append((path, *stamp))
    return stamps


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
