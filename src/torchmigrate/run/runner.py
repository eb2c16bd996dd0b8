"""Many files: read, migrate and (optionally) write each one, streaming results in a deterministic order.

The parent process reads each file once, hashes it and asks the cache; a file none of whose passes' trigger words
occurs in its raw bytes is settled here too (decoded for the usual error checks, never parsed). Only the rest goes, in
small batches, to an executor (this process, worker processes or Ray: :mod:`torchmigrate.run.executors`). Results come back
in task order whatever the scheduling; at most a bounded window of files is in flight, so memory does not grow with
the tree. With worker processes or Ray, the big files among the next tasks (``Runner.lookahead``) go first, so that
the last worker to finish is not still on one. Writing and cache updates happen here, in the parent, in that same
order.
"""

from __future__ import annotations

import heapq
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult
from torchmigrate.project.kinds import project_kind
from torchmigrate.python.triggers import bytes_trigger_regex
from torchmigrate.run.cache import CacheSet, ResultCache, options_fingerprint, project_root, result_key
from torchmigrate.run.executors import Executor, WorkItem, default_jobs, make_executor
from torchmigrate.run.files import SourceError, decode_source, display_path, encode, read_source, write_atomic
from torchmigrate.run.replay import forbid

__all__ = ["Runner", "Task", "process_file", "run_tasks", "write_result"]


@dataclass(frozen=True)
class Task:
    """One file to migrate with the options that apply to it (each repository may pin its own ``--from``).

    ``repo`` tags the PATH (repository) the file came from; ``cache_root`` is that PATH's project root.
    """

    path: Path
    options: Options
    repo: int = 0
    cache_root: Path | None = None


def process_file(path: Path, options: Options) -> FileResult:
    """Read and migrate one file (Python, notebook or project file). Pure apart from reading: nothing is written here."""
    shown = display_path(path)
    try:
        source = read_source(path)
    except SourceError as exc:
        return FileResult(path=shown, error=str(exc))
    from torchmigrate.run.handlers import migrate_file_text  # the engine (and libcst) load on the first file to migrate

    result = migrate_file_text(path, source.text, options, shown)
    result.encoding = source.encoding
    return result


def write_result(path: Path, result: FileResult) -> None:
    """Write a changed result atomically; on failure the file stays as it was and ``result.error`` says why."""
    if not result.changed or result.new is None or result.old is None:
        return
    try:  # encode inside the try: a character the file's encoding cannot hold is an error, not a crash
        write_atomic(path, encode(result.new, result.encoding), expected_old=encode(result.old, result.encoding))
    except SourceError as exc:
        result.error = str(exc)
        return
    result.written = True


def _has_coding_cookie(data: bytes) -> bool:
    head = data.split(b"\n", 2)[:2]
    return any(b"coding" in line for line in head)


@dataclass
class _Batch:
    items: list[WorkItem] = field(default_factory=list)
    handle: object = None
    submitted: bool = False
    results: list[FileResult] | None = None


@dataclass
class _Slot:
    task: Task
    result: FileResult | None = None
    batch: _Batch | None = None
    index: int = 0
    key: str | None = None
    cache: ResultCache | None = None
    options_fp: str = ""


class Runner:
    """Runs tasks with ``jobs`` workers (``None``: one per CPU; 1: in this process) and an optional result cache."""

    def __init__(
        self,
        *,
        jobs: int | None = 1,
        cache: bool = False,
        executor: str = "local",
        ray_address: str | None = None,
        batch_size: int | None = None,
        caches: CacheSet | None = None,
    ) -> None:
        """``caches``: the result caches to use when ``cache`` is true (default: new ones)."""
        self.jobs = default_jobs() if jobs is None else max(1, jobs)
        self.executor_kind = executor
        self._executor: Executor | None = None
        self._ray_address = ray_address
        self.caches = (caches or CacheSet()) if cache else None
        inline = executor == "local" and self.jobs == 1
        self.batch_size = batch_size or (1 if inline else 32 if executor == "ray" else 8)
        self.window = max(256, self.jobs * self.batch_size * 4)
        # Big files first: tasks are looked at this far ahead of the one being prepared, and a file of at least
        # ``big_file`` bytes among them is sent off at once, alone in its batch, so that a worker is not still on it
        # when every other file is done. Results still come out in task order; one process does not reorder.
        self.lookahead = 0 if inline else 4096
        # The look-ahead window grows by at most this many tasks per task handed on, so that the first files reach
        # the workers while the rest of the tree is still being listed (listing a tree takes a tenth of a second).
        self.lookahead_step = 32
        self.big_file = 64 * 1024
        self.early_limit = 4 * self.jobs  # big files sent ahead of their turn at a time
        self._passes: dict[Options, list[Pass]] = {}
        self._fingerprints: dict[Options, str] = {}
        self._roots: dict[Path, Path] = {}
        self.engine_files = 0  # files handed to the engine (not settled by cache or trigger prefilter)

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = make_executor(self.executor_kind, self.jobs, self._ray_address)
        return self._executor

    def _selected(self, options: Options) -> list[Pass]:
        # Selecting passes imports them all (and libcst): a run that the cache settles never gets here.
        found = self._passes.get(options)
        if found is None:
            found = self._passes[options] = options.passes()
        return found

    def _fingerprint(self, options: Options) -> str:
        found = self._fingerprints.get(options)
        if found is None:
            found = self._fingerprints[options] = options_fingerprint(options)
        return found

    def _cache_for(self, task: Task) -> ResultCache | None:
        if self.caches is None:
            return None
        root = task.cache_root
        if root is None:
            parent = task.path.parent
            root = self._roots.get(parent)
            if root is None:
                root = self._roots[parent] = project_root(parent)
        return self.caches.for_root(root)

    def _prepare(self, task: Task) -> tuple[_Slot, WorkItem | None]:
        absolute = os.path.abspath(task.path)
        shown = display_path(task.path, absolute)  # the absolute path serves the cache row too
        slot = _Slot(task)
        try:
            data = task.path.read_bytes()
        except OSError as exc:
            slot.result = FileResult(path=shown, error=f"cannot read: {exc.strerror or exc}")
            forbid()  # what the run prints depends on more than the files' bytes: it is never replayed
            return slot, None
        cache = self._cache_for(task)
        if cache is not None:
            options_fp = self._fingerprint(task.options)
            slot.cache, slot.options_fp = cache, options_fp
            slot.key = result_key(data, options_fp, cache.tool_fingerprint())
            slot.result = cache.get(task.path, options_fp, slot.key, shown, data, absolute)
            if slot.result is not None:
                slot.cache = None  # nothing new to store
                return slot, None
        passes = self._selected(task.options)
        plain_python = task.path.suffix.lower() != ".ipynb" and project_kind(task.path) is None
        if plain_python and (not passes or (not _has_coding_cookie(data) and not bytes_trigger_regex(passes).search(data))):
            # No trigger word in the raw bytes: nothing to parse. Decoding still reports unreadable files.
            try:
                source = decode_source(task.path, data)
                slot.result = FileResult(path=shown, encoding=source.encoding)
            except SourceError as exc:
                slot.result = FileResult(path=shown, error=str(exc))
            return slot, None
        self.engine_files += 1
        return slot, (data, shown, task.options)

    def _finish(self, slot: _Slot, write: bool) -> FileResult:
        if slot.result is None:
            batch = slot.batch
            assert batch is not None
            if not batch.submitted:
                self._submit(batch)
            if batch.results is None:
                batch.results = self.executor.result(batch.handle)
            slot.result = batch.results[slot.index]
        result = slot.result
        if slot.cache is not None and slot.key is not None:
            slot.cache.put(slot.task.path, slot.options_fp, slot.key, result)
        if write:
            write_result(slot.task.path, result)
        return result

    def _submit(self, batch: _Batch) -> None:
        batch.handle = self.executor.submit(batch.items)
        batch.submitted = True

    def _ahead(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, _Slot | None]]:
        """``tasks`` in order, each with its slot if it was prepared and sent early: among the next ``lookahead``
        tasks, the biggest files (``big_file`` bytes or more) go first, at most ``early_limit`` of them sent ahead
        of their turn at a time, so that their results held back for the path order stay few. The window fills
        ``lookahead_step`` tasks per task handed on, so work starts before the listing ends."""
        if self.lookahead <= 0:
            for task in tasks:
                yield task, None
            return
        window: deque[tuple[int, Task]] = deque()
        big: list[tuple[int, int, Task]] = []  # a heap: (-size, number, task) of big files not yet sent
        early: dict[int, _Slot] = {}
        source = enumerate(tasks)
        exhausted = False
        while True:
            budget = self.lookahead_step
            while not exhausted and len(window) <= self.lookahead and (budget > 0 or not window):
                budget -= 1
                entry = next(source, None)
                if entry is None:
                    exhausted = True
                    break
                window.append(entry)
                number, task = entry
                try:
                    size = task.path.stat().st_size
                except OSError:
                    size = 0  # reported when it is read, in its turn
                if size >= self.big_file:
                    heapq.heappush(big, (-size, number, task))
            while big and len(early) < self.early_limit:
                _, number, task = heapq.heappop(big)
                slot, item = self._prepare(task)
                if item is not None:
                    slot.batch = _Batch([item])
                    self._submit(slot.batch)
                early[number] = slot
            if not window:
                return
            number, task = window.popleft()
            if number in early:
                yield task, early.pop(number)
                continue
            big = [entry for entry in big if entry[1] != number]  # its turn came first: prepared in order
            heapq.heapify(big)
            yield task, None

    def run(self, tasks: Iterable[Task], *, write: bool) -> Iterator[FileResult]:
        """Migrate every task, yielding results in task order; writes changed files when ``write`` is true."""
        pending: deque[_Slot] = deque()
        batch = _Batch()
        for task, prepared in self._ahead(tasks):
            if prepared is not None:
                pending.append(prepared)
                while len(pending) > self.window:
                    yield self._finish(pending.popleft(), write)
                continue
            slot, item = self._prepare(task)
            if item is not None:
                if batch.submitted:  # sent early, half full, for a result the window needed: items go to a new one
                    batch = _Batch()
                slot.batch, slot.index = batch, len(batch.items)
                batch.items.append(item)
                if len(batch.items) >= self.batch_size:
                    self._submit(batch)
                    batch = _Batch()
            pending.append(slot)
            while len(pending) > self.window:
                yield self._finish(pending.popleft(), write)
        if batch.items and not batch.submitted:
            self._submit(batch)
        while pending:
            yield self._finish(pending.popleft(), write)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        if self.caches is not None:
            self.caches.close()


def run_tasks(
    tasks: Iterable[Task],
    *,
    write: bool,
    jobs: int | None = 1,
    cache: bool = False,
    executor: str = "local",
    ray_address: str | None = None,
    caches: CacheSet | None = None,
) -> Iterator[FileResult]:
    """Migrate every task in order, writing changed files when ``write`` is true (see :class:`Runner`)."""
    runner = Runner(jobs=jobs, cache=cache, executor=executor, ray_address=ray_address, caches=caches)
    try:
        yield from runner.run(tasks, write=write)
    finally:
        runner.close()
