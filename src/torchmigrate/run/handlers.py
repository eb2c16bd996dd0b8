"""Which handler migrates which file: Python source, Jupyter notebook, or project file (requirements, pyproject.toml …).

:func:`migrate_file_text` is the one entry point the runner calls per file; like the engine it is a pure function of
(path, text, options).
"""

from __future__ import annotations

from pathlib import PurePath

from torchmigrate.core.passes import PYTHON
from torchmigrate.core.registry import Options, all_passes, select_passes
from torchmigrate.core.results import FileResult
from torchmigrate.notebook.migrate import migrate_notebook
from torchmigrate.project.context import migrate_project_text
from torchmigrate.project.pins import project_kind
from torchmigrate.python.engine import migrate_text, verify

__all__ = ["migrate_file_text"]


def migrate_file_text(
    path: PurePath, text: str, options: Options, shown: str, only: frozenset[str] | None = None
) -> FileResult:
    """Migrate ``text``, the content of ``path``, with the handler its name asks for.

    ``only``: run just these of the run's passes (the others are skipped, but the run's options still decide what the
    project file passes may do): :mod:`torchmigrate.run.perpass` replays a migration one pass at a time with it."""
    gate = options.gate()
    code_passes, project_passes = options.passes(), options.project_passes()
    if only is not None:
        code_passes = [p for p in code_passes if p.id in only]
        project_passes = [p for p in project_passes if p.id in only]
    if path.suffix.lower() == ".ipynb":
        return migrate_notebook(text, code_passes, shown, project_passes, options.to, gate)
    kind = project_kind(path)
    if kind is None:
        return migrate_text(text, code_passes, shown, gate=gate, layout=options.layout)
    # The Python passes of the run, and those a run without --select/--ignore would apply: a torch cap may be lifted
    # only when the behaviour changes it stops below are migrated (or reported) by the run.
    selected = frozenset(p.id for p in options.passes())
    defaults = frozenset(p.id for p in select_passes(to=options.to, from_=options.from_))
    python_passes = selected | frozenset(p.id for p in all_passes() if p.files == PYTHON and p.id not in defaults)
    if kind != "setuppy":
        return migrate_project_text(
            text,
            path,
            project_passes,
            options.to,
            shown,
            python_passes=python_passes,
            floor=options.project_floor,
            gate=gate,
        )
    # setup.py is Python code first, and its string literals may pin torch.
    result = migrate_text(text, code_passes, shown, gate=gate, layout=options.layout)
    if result.error is not None or result.new is None:
        return result
    pinned = migrate_project_text(
        result.new,
        path,
        project_passes,
        options.to,
        shown,
        python_passes=python_passes,
        floor=options.project_floor,
        gate=gate,
    )
    if pinned.error is not None or (pinned.new != result.new and verify(pinned.code) is not None):
        result.error = pinned.error or "project file rewrite does not parse; file left as it was"
        result.new = None
        return result
    result.new = pinned.new
    result.edits.extend(pinned.edits)
    result.findings.extend(pinned.findings)
    result.passes_applied.extend(pinned.passes_applied)
    return result
