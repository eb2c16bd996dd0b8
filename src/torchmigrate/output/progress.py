"""The progress bar on stderr (rich), redrawn at most ten times a second.

The bar shares the console the findings and errors go through, and is taken off the screen (``paused``) while
anything prints — findings, errors, a diff on a stdout that is the same terminal — so output always starts on a
clean line and no bar is left in the scrollback.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


class ProgressBar:
    """A rich progress bar on stderr, redrawn at most ten times a second (no background thread)."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.console = console if console is not None else Console(stderr=True)
        self._progress = Progress(
            TextColumn("migrating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=self.console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,  # stdout carries the diff or the report: never into the bar's console
        )
        self._task = self._progress.add_task("files", total=0)
        self._last = 0.0
        self._shown = False

    @classmethod
    def maybe(cls, wanted: bool | None, console: Console | None = None) -> ProgressBar | None:
        """A bar when ``wanted`` (default: when stderr is a terminal), drawn on ``console`` (the one the run's
        findings and errors use) if given."""
        if wanted is None:
            wanted = sys.stderr.isatty()
        return cls(console) if wanted else None

    def start(self, total: int) -> None:
        self._progress.update(self._task, total=total)
        self._progress.start()
        self._shown = True

    def advance(self) -> None:
        self._progress.advance(self._task)
        now = time.monotonic()
        if now - self._last > 0.1:
            self._last = now
            self._progress.refresh()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Take the bar off the screen while the body prints (on either stream), then draw it again below."""
        if not self._shown:
            yield
            return
        self._progress.stop()  # transient: the bar's line is erased, the cursor back at its start
        sys.stderr.flush()
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            self._progress.start()

    def stop(self) -> None:
        if self._shown:
            self._progress.refresh()
            self._progress.stop()
            self._shown = False
