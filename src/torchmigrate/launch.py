"""The ``migrate`` command's entry point: replay an unchanged read-only run, else start the command line.

Only the standard library and :mod:`torchmigrate.run.replay` load before the replay is tried; the command line (typer,
the cache, the passes) loads when the run has to be made (:func:`torchmigrate.cli.main`).
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    from torchmigrate.run.replay import run_recorded

    def run() -> None:
        from torchmigrate.cli import main as command_line

        command_line()

    run_recorded(sys.argv[1:], run)
