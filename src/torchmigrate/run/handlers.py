"""Which handler migrates which file: Python source, Jupyter notebook, or project file (requirements, pyproject.toml …).

:func:`migrate_file_text` is the one entry point the runner calls per file; like the engine it is a pure function of
(path, text, options).
"""

from __future__ import annotations

from pathlib import PurePath

from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult
from torchmigrate.notebook.migrate import migrate_notebook
from torchmigrate.project.context import migrate_project_text
from torchmigrate.project.pins import project_kind
from torchmigrate.python.engine import migrate_text, verify

__all__ = ["migrate_file_text"]


def migrate_file_text(path: PurePath, text: str, options: Options, shown: str) -> FileResult:
    """Migrate ``text``, the content of ``path``, with the handler its name asks for."""
    if path.suffix.lower() == ".ipynb":
        return migrate_notebook(text, options.passes(), shown, options.project_passes(), options.to)
    kind = project_kind(path)
    if kind is None:
        return migrate_text(text, options.passes(), shown, layout=options.layout)
    if kind != "setuppy":
        return migrate_project_text(text, path, options.project_passes(), options.to, shown)
    # setup.py is Python code first, and its string literals may pin torch.
    result = migrate_text(text, options.passes(), shown, layout=options.layout)
    if result.error is not None or result.new is None:
        return result
    pinned = migrate_project_text(result.new, path, options.project_passes(), options.to, shown)
    if pinned.error is not None or (pinned.new != result.new and verify(pinned.code) is not None):
        result.error = pinned.error or "project file rewrite does not parse; file left as it was"
        result.new = None
        return result
    result.new = pinned.new
    result.edits.extend(pinned.edits)
    result.findings.extend(pinned.findings)
    result.passes_applied.extend(pinned.passes_applied)
    return result
