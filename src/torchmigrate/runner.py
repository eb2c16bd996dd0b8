"""Many files: read, migrate and (optionally) write each one, streaming results in a deterministic order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from torchmigrate.engine import Options
from torchmigrate.files import SourceError, display_path, encode, read_source, write_atomic
from torchmigrate.handlers import migrate_file_text
from torchmigrate.results import FileResult

__all__ = ["Task", "process_file", "run_tasks", "write_result"]


@dataclass(frozen=True)
class Task:
    """One file to migrate with the options that apply to it (each repository may pin its own ``--from``)."""

    path: Path
    options: Options


def process_file(path: Path, options: Options) -> FileResult:
    """Read and migrate one file (Python, notebook or project file). Pure apart from reading: nothing is written here."""
    shown = display_path(path)
    try:
        source = read_source(path)
    except SourceError as exc:
        return FileResult(path=shown, error=str(exc))
    result = migrate_file_text(path, source.text, options, shown)
    result.encoding = source.encoding
    return result


def write_result(path: Path, result: FileResult) -> None:
    """Write a changed result atomically; on failure the file stays as it was and ``result.error`` says why."""
    if not result.changed or result.new is None or result.old is None:
        return
    try:
        write_atomic(path, encode(result.new, result.encoding), expected_old=encode(result.old, result.encoding))
    except SourceError as exc:
        result.error = str(exc)
        return
    result.written = True


def run_tasks(tasks: Iterable[Task], *, write: bool) -> Iterator[FileResult]:
    """Migrate every task in order, writing changed files when ``write`` is true."""
    for task in tasks:
        result = process_file(task.path, task.options)
        if write:
            write_result(task.path, result)
        yield result
