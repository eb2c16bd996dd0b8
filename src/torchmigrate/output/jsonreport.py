"""``--report FILE.json``: the machine-readable record of a (bulk) run, written as it streams.

Schema (``schema_version`` 1)::

    {
      "schema_version": 1,
      "tool": {"name": "torchmigrate", "version": "0.1.0"},
      "run": {"to": "2.12", "mode": "write" | "diff" | "check"},
      "files": [                                   # every file scanned, in output order
        {"repo": "repoA", "path": "repoA/x.py", "changed": true, "written": true,
         "passes_applied": ["export-for-training"],
         "edits": [{"line": 3, "col": 6, "pass_id": "...", "message": "...", "safety": "safe", "note": ""}],
         "findings": [{"line": 9, "col": 1, "pass_id": "...", "message": "...",
                       "fix_available": "unsafe" | null,       # a review edit held back (no --unsafe-fixes)
                       "fix": {"applicability": "unsafe", "message": "...",
                               "replacements": [{"line": 9, "end_line": 10, "old": "...", "new": "..."}]} | null}],
         "error": null}
      ],
      "repos": [                                   # one per PATH, in command-line order
        {"path": "repoA", "to": "2.12", "from": "2.7", "min_torch": "2.7", "files": 10, "changed": 2, "edits": 3,
         "findings": 1, "errors": 0, "unsafe_fixes": 0, "passes_applied": [...],
         "git": {"branch": "...", "commit": "<sha>"} | null, "error": null}
                                                   # with --commit-per-pass, "git" also has "commits": [<sha>, ...]
      ],
      "summary": {"repos": 3, "files": 30, "changed": 4, "edits": 6, "findings": 2, "errors": 0, "unsafe_fixes": 0}
    }

Positions are 1-based lines and columns in the text each pass saw (the original, unless an earlier pass of the
chain had already rewritten the file). The file is written to a temporary name beside the target
and renamed into place when the run ends, so a reader never sees half a report.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from torchmigrate.core.about import __version__
from torchmigrate.core.results import FileResult

if TYPE_CHECKING:
    from torchmigrate.run.bulk import RepoOutcome

__all__ = ["SCHEMA_VERSION", "JsonReportWriter"]

SCHEMA_VERSION = 1


class JsonReportWriter:
    """Streams per-file records into ``path``; :meth:`finish` adds the per-repository totals and renames it into place."""

    def __init__(self, path: Path, *, to: str, mode: str) -> None:
        self.path = path
        folder = path.parent if str(path.parent) else Path(".")
        fd, self._tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        self._out: IO[str] = os.fdopen(fd, "w", encoding="utf-8")
        head = {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "torchmigrate", "version": __version__},
            "run": {"to": to, "mode": mode},
        }
        self._out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "files": [')
        self._first = True

    def add(self, repo: str, result: FileResult) -> None:
        record = {"repo": repo, **result.to_dict()}
        self._out.write(("\n  " if self._first else ",\n  ") + json.dumps(record, ensure_ascii=False))
        self._first = False

    def finish(self, repos: Sequence[RepoOutcome]) -> None:
        rows = [r.to_dict() for r in repos]
        summary = {"repos": len(rows)}
        for name in ("files", "changed", "edits", "findings", "errors", "unsafe_fixes"):
            summary[name] = sum(int(row[name]) for row in rows)  # type: ignore[call-overload]
        self._out.write("\n],\n" + '"repos": ' + json.dumps(rows, ensure_ascii=False, indent=1))
        self._out.write(',\n"summary": ' + json.dumps(summary) + "\n}\n")
        self._out.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        self._out.close()
        try:
            os.unlink(self._tmp)
        except OSError:
            pass
