"""The progress bar on stderr (rich), redrawn at most ten times a second."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """A rich progress bar on stderr, redrawn at most ten times a second (no background thread)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("migrating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            auto_refresh=False,
            transient=True,
        )
        self._task = self._progress.add_task("files", total=0)
        self._last = 0.0

    @classmethod
    def maybe(cls, wanted: bool | None) -> ProgressBar | None:
        if wanted is None:
            wanted = sys.stderr.isatty()
        return cls() if wanted else None

    def start(self, total: int) -> None:
        self._progress.update(self._task, total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)
        now = time.monotonic()
        if now - self._last > 0.1:
            self._last = now
            self._progress.refresh()

    def stop(self) -> None:
        self._progress.refresh()
        self._progress.stop()
