"""Where the per-file work runs: in this process, in worker processes, or as Ray tasks.

Every executor runs the same pure function, :func:`migrate_batch`, on the same batches, so results are identical
whatever runs them; the runner restores path order. An executor only has ``submit(batch) -> handle``,
``result(handle) -> list[FileResult]`` and ``close()``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Protocol

from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult
from torchmigrate.python.lastfile import forget
from torchmigrate.run.files import SourceError, decode_source

if TYPE_CHECKING:  # imported when a pool starts: a cached or one-process run does not pay for them
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["Executor", "WorkItem", "default_jobs", "make_executor", "migrate_batch", "migrate_data", "tune_gc"]

WorkItem = tuple[bytes, str, Options]  # (the file's bytes, its display path, options)


class _GC:
    tuned = False


def tune_gc() -> None:
    """For the command line's own processes: collect cycles between files rather than inside them, and (see
    :class:`PoolExecutor`) move what is loaded before the workers fork out of the collector's sight.

    A run allocates millions of short-lived ast and libcst nodes with few reference cycles among them; every
    collection inside a file walks that file's live trees (at the default threshold, a collection per 700 net
    allocations; at 10,000, still a fifth of a run's CPU on torch's tree). Once a file is done and what the engine keeps
    of it is dropped (:func:`~torchmigrate.python.lastfile.forget`), the young objects are its few cycles: a
    collection there (:func:`_between_files`) is cheap, and the threshold inside a file can be high (100,000: a
    safeguard for one huge file). A library caller's collector is left alone."""
    import gc

    gc.set_threshold(100_000, 20, 100)
    _GC.tuned = True


_BETWEEN_FILES = 20_000
"""Net allocations since the last collection above which one is made after a file (the generation below the oldest,
and every tenth time all of them)."""


def _between_files() -> None:
    import gc

    forget()
    if _GC.tuned and gc.get_count()[0] > _BETWEEN_FILES:
        gc.collect(1 if gc.get_count()[2] < 10 else 2)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def migrate_data(data: bytes, shown: str, options: Options) -> FileResult:
    """Decode and migrate one file's bytes. Pure: the unit of work every executor runs."""
    from torchmigrate.run.handlers import migrate_file_text  # the engine (and libcst) load on the first file to migrate

    try:
        source = decode_source(Path(shown), data)
    except SourceError as exc:
        return FileResult(path=shown, error=str(exc))
    try:
        result = migrate_file_text(PurePath(shown), source.text, options, shown)  # Python, notebook or project file
    finally:
        _between_files()
    result.encoding = source.encoding
    if not result.changed:
        result.old = result.new = None  # nothing to diff or write: do not ship the text around
    return result


def migrate_batch(items: Sequence[WorkItem]) -> list[FileResult]:
    return [migrate_data(data, shown, options) for data, shown, options in items]


class Executor(Protocol):
    def submit(self, batch: list[WorkItem]) -> Any: ...

    def result(self, handle: Any) -> list[FileResult]: ...

    def close(self) -> None: ...


class InlineExecutor:
    """``--jobs 1``: run each batch here, when its result is asked for."""

    def submit(self, batch: list[WorkItem]) -> Any:
        return batch

    def result(self, handle: Any) -> list[FileResult]:
        return migrate_batch(handle)

    def close(self) -> None:
        pass


class PoolExecutor:
    """``--jobs N``: a process pool, started only once a second batch shows there is enough work to share."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._held: list[WorkItem] | None = None
        self._held_future: Future[list[FileResult]] | None = None

    def _start(self) -> ProcessPoolExecutor:
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            method = "fork" if sys.platform.startswith("linux") else None  # fork: workers inherit the loaded passes
            if method == "fork":
                # and the engine. Not libcst's codemod package (about 0.2 s here, before any worker starts): only a
                # worker whose file gets a new import loads it, while the others go on
                import torchmigrate.run.handlers  # noqa: F401

                if _GC.tuned:
                    import gc

                    gc.freeze()  # the modules and passes loaded so far: never collected, and shared pages stay shared
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context(method))
        return self._pool

    def submit(self, batch: list[WorkItem]) -> Any:
        if self._pool is None and self._held is None:
            self._held = batch  # the first batch waits: a tiny run never pays for starting workers
            return ("held", batch)
        pool = self._start()
        held, self._held = self._held, None
        if held is not None:
            self._held_future = pool.submit(migrate_batch, held)
        return pool.submit(migrate_batch, batch)

    def result(self, handle: Any) -> list[FileResult]:
        if isinstance(handle, tuple) and handle[0] == "held":
            batch: list[WorkItem] = handle[1]
            if self._held is batch:
                self._held = None
                return migrate_batch(batch)  # still alone: run it here
            assert self._held_future is not None
            return self._held_future.result()
        future: Future[list[FileResult]] = handle
        return future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayExecutor:
    """``--executor ray``: each batch is a Ray task (``--ray-address`` or ``RAY_ADDRESS``; a local Ray when unset)."""

    def __init__(self, address: str | None, jobs: int | None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("--executor ray needs Ray: pip install 'torchmigrate[ray]'") from exc
        self._ray = ray
        if not ray.is_initialized():
            address = address or os.environ.get("RAY_ADDRESS") or None
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
            if address is None and jobs is not None:
                kwargs["num_cpus"] = jobs
            ray.init(address=address, **kwargs)
        self._task = ray.remote(migrate_batch)

    def submit(self, batch: list[WorkItem]) -> Any:
        return self._task.remote(batch)

    def result(self, handle: Any) -> list[FileResult]:
        results: list[FileResult] = self._ray.get(handle)
        return results

    def close(self) -> None:
        pass  # leave Ray running: the caller (or the process exit) owns it


def make_executor(kind: str, jobs: int | None, ray_address: str | None = None) -> Executor:
    if kind == "ray":
        return RayExecutor(ray_address, jobs)
    if kind != "local":
        raise ValueError(f"unknown executor {kind!r} (local or ray)")
    count = default_jobs() if jobs is None else jobs
    if count <= 1:
        return InlineExecutor()
    return PoolExecutor(count)
