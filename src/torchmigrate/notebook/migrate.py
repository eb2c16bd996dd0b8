"""Jupyter notebooks: migrate the code cells in notebook order and leave every other byte of the file alone.

How:

1. The raw JSON is walked once to find each cell's ``source`` value (its span in the text, and each line's span).
2. IPython syntax is masked line by line — line magics (``%matplotlib inline``), shell escapes (``!pip install …``,
   ``x = !ls``), help (``obj?``, ``??obj``) and the first line of a Python cell magic (``%%time``) become placeholder
   statements (``import __nbmagic_N__``); a cell under any other cell magic (``%%bash``, ``%%writefile``) is not Python
   and is skipped. A cell that still does not parse is left as it is and reported as a finding naming its cell.
3. The masked cells are joined into one module, separated by ``import __nbcell_N__`` lines, and migrated by the
   engine in one go, so an ``import torch as th`` in one cell resolves in the later ones. Separators are import
   statements on purpose: libcst adds new imports after the module's leading import block, which then ends in the cell
   that has the imports; an addition that lands at the very start of the next cell is moved back to the end of the
   cell before it.
4. The module is split back at the separators, placeholders are restored, and only the ``source`` of changed cells is
   rewritten in the raw text — unchanged lines keep their exact JSON text, new lines are encoded in the file's own
   style (indentation and separators copied from the cell, ``\\uXXXX`` escapes only if the file uses them). Outputs,
   metadata, ids, execution counts, key order and the final newline are untouched, so ``git diff`` shows only the
   changed source lines.

Edits and findings point at the notebook file's line of the cell's source and name the cell (1-based, counting every
cell). ``--diff`` prints a unified diff of the ``.ipynb`` file (``git apply`` accepts it) whose hunk headers name the
cell they change.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import json
import json.decoder
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

import libcst as cst

from torchmigrate.core.fixes import SAFE_ONLY, Gate
from torchmigrate.core.passes import Pass
from torchmigrate.core.results import Edit, FileResult, Finding, Fix
from torchmigrate.core.text import split_lines
from torchmigrate.core.versions import Version
from torchmigrate.notebook.cells import CellSource, ensure_ascii, line_starts, locate_sources, render_source
from torchmigrate.notebook.magics import _PLACEHOLDER, Masked, mask_cell, unmask
from torchmigrate.project.context import migrate_project_text
from torchmigrate.python.engine import migrate_text, trigger_regex

__all__ = ["mask_cell", "migrate_notebook"]

NOTEBOOK_PASS_ID = "notebook"
# Shell commands in cells are read like a Dockerfile's: requirements only inside ``pip install`` / ``uv add`` commands.
SHELL_FILE = PurePath("Dockerfile")
# (``python``: ``!python -m torch.distributed.launch …`` lines)
_SHELL_HINT = re.compile(r"[!%]\s*(?:pip3?|uv|python3?)\b|download\.pytorch\.org")

_SEPARATOR = re.compile(r"^import __nbcell_(?P<n>\d+)__$", re.MULTILINE)


@dataclass
class _Cell:
    source: CellSource
    number: int  # 1-based, counting every cell
    text: str
    lines: list[str]
    masked: Masked


def _python_notebook(data: Any) -> bool:
    metadata = data.get("metadata") if isinstance(data, dict) else None
    if not isinstance(metadata, dict):
        return True
    for key, sub in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(sub), str):
            return bool(section[sub].lower() == "python")
    return True


def _parse_problem(code: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(code)
    except (SyntaxError, ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        return f"{getattr(exc, 'msg', None) or exc}{where}"
    return None


def _cst_problem(code: str) -> str | None:
    try:
        cst.parse_module(code)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        text = str(exc).strip().splitlines()
        return text[0] if text else type(exc).__name__
    return None


def migrate_notebook(
    raw: str,
    passes: Sequence[Pass],
    path: str = "<notebook>",
    project_passes: Sequence[Pass] = (),
    to: Version | None = None,
    gate: Gate = SAFE_ONLY,
) -> FileResult:
    """Migrate the code cells of notebook ``raw`` (the ``.ipynb`` text). Never raises for a bad notebook.

    ``project_passes`` (for target ``to``) rewrite the cells' shell commands (``!pip install torch==2.7.1``,
    ``%pip install …``) as they would a Dockerfile's ``pip install`` lines. ``gate`` decides which edits are made, as
    for a Python file: a held-back review edit is a finding whose suggested change holds the cell's code (its lines
    are the notebook file's lines, its text is the code, not the JSON that stores it).
    """
    result = FileResult(path=path, old=raw, new=raw)
    shell: list[Pass] = []
    if to is not None and _SHELL_HINT.search(raw):
        shell = [p for p in project_passes if any(t in raw for t in p.triggers)]
    if not shell and (not passes or not trigger_regex(passes).search(raw)):
        return result
    try:
        data = json.loads(raw)
        sources = locate_sources(raw)
    except (ValueError, IndexError, RecursionError) as exc:
        result.new = None
        result.error = f"not a notebook: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        return result
    cells_data = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells_data, list) or len(cells_data) != len(sources) or not _python_notebook(data):
        return result
    json_lines = line_starts(raw)

    def json_line(offset: int) -> int:
        return bisect.bisect_right(json_lines, offset) - 1 + 1

    cells: list[_Cell] = []
    counter = 0
    for number, (cell_data, source) in enumerate(zip(cells_data, sources, strict=True), start=1):
        if source is None or not isinstance(cell_data, dict) or cell_data.get("cell_type") != "code":
            continue
        value = cell_data.get("source")
        lines = list(value) if isinstance(value, list) else [value] if isinstance(value, str) else []
        text = "".join(lines)
        masked = mask_cell(text, counter)
        if masked is None or not masked.code.strip():
            continue
        counter += len(masked.originals) + 1
        problem = _parse_problem(masked.code)
        if problem is not None:
            result.findings.append(
                Finding(json_line(source.start), 1, NOTEBOOK_PASS_ID, f"cell {number} does not parse ({problem}); left as it is")
            )
            continue
        cells.append(_Cell(source, number, text, lines, masked))
    if not cells:
        return result
    if shell and to is not None:
        _migrate_shell_lines(cells, shell, to, result, json_line, gate)

    joined, owners = _join(cells)
    migrated = migrate_text(joined, passes, path, gate=gate)
    if migrated.error is not None and migrated.error.startswith("cannot parse"):
        # libcst refused something ``ast`` accepted: find the cells it refuses, report them, migrate the rest.
        refused = [cell for cell in cells if _cst_problem(cell.masked.code) is not None]
        for cell in refused:
            message = f"cell {cell.number} does not parse ({_cst_problem(cell.masked.code)}); left as it is"
            result.findings.append(Finding(json_line(cell.source.start), 1, NOTEBOOK_PASS_ID, message))
        cells = [cell for cell in cells if cell not in refused]
        if not cells or not refused:
            result.new, result.error = (raw, None) if cells == [] else (None, migrated.error)
            return result
        joined, owners = _join(cells)
        migrated = migrate_text(joined, passes, path, gate=gate)
    if migrated.error is not None:
        result.new, result.error = None, migrated.error
        return result
    new_texts = _split(cells, joined, migrated.code)
    if new_texts is None:
        result.new = None
        result.error = "the migrated cells could not be mapped back to the notebook; file left as it was"
        return result

    def locate(line: int) -> tuple[_Cell, int]:
        index = max(0, min(line - 1, len(owners) - 1))
        cell_no, cell_line = owners[index]
        return cells[cell_no], cell_line

    def where(cell: _Cell, cell_line: int) -> int:
        if cell.source.elements:
            element = cell.source.elements[min(cell_line - 1, len(cell.source.elements) - 1)]
            return json_line(element[0])
        return json_line(cell.source.start)

    def placed(fix: Fix | None) -> Fix | None:
        """``fix`` (in the joined cells' lines) in the notebook file's lines, the cells' IPython lines restored."""
        if fix is None:
            return None
        moved = []
        for rep in fix.replacements:
            cell, cell_line = locate(rep.line)
            first = where(cell, cell_line)
            originals = cell.masked.originals
            old, new = _restore(rep.old, originals), _restore(rep.new, originals)
            last = cell_line + rep.end_line - rep.line - 1
            if not cell.masked.code.endswith("\n") and last >= len(split_lines(cell.masked.code)):
                old, new = old.removesuffix("\n"), new.removesuffix("\n")  # the cell's last line has no line break
            moved.append(replace(rep, line=first, end_line=first + rep.end_line - rep.line, old=old, new=new))
        return replace(fix, replacements=tuple(moved))

    for finding in migrated.findings:
        cell, cell_line = locate(finding.line)
        result.findings.append(
            replace(
                finding,
                line=where(cell, cell_line),
                message=f"cell {cell.number}, line {cell_line}: {finding.message}",
                fix=placed(finding.fix),
            )
        )
    for edit in migrated.edits:
        cell, cell_line = locate(edit.line)
        result.edits.append(
            Edit(
                where(cell, cell_line),
                edit.col,
                edit.pass_id,
                f"cell {cell.number}, line {cell_line}: {edit.message}",
                edit.safety,
                edit.note,
            )
        )
    result.passes_applied.extend(p for p in migrated.passes_applied if p not in result.passes_applied)

    ascii_only = ensure_ascii(raw)
    changes = []
    for cell, new_text in zip(cells, new_texts, strict=True):
        if new_text != cell.text:
            rendered = render_source(raw, cell.source, cell.lines, new_text, ascii_only)
            changes.append((cell.source.start, cell.source.end, rendered))
    new_raw = raw
    for start, end, text in sorted(changes, reverse=True):
        new_raw = new_raw[:start] + text + new_raw[end:]
    if new_raw != raw:
        try:
            json.loads(new_raw)
        except ValueError as exc:  # pragma: no cover - a bug in rendering; never write a broken notebook
            result.new, result.error = None, f"rewritten notebook is not valid JSON ({exc}); file left as it was"
            return result
    result.new = new_raw
    return result


def _restore(code: str, originals: dict[int, str]) -> str:
    """``code`` with each IPython placeholder line it holds put back (a fragment of a cell: no check for missing ones)."""
    out = []
    for line in split_lines(code):
        match = _PLACEHOLDER.match(line.rstrip("\r\n"))
        if match is not None and int(match.group("n")) in originals:
            line = originals[int(match.group("n"))] + ("\n" if line.endswith("\n") else "")
        out.append(line)
    return "".join(out)


def _join(cells: Sequence[_Cell]) -> tuple[str, list[tuple[int, int]]]:
    """One module of all cells, and for each of its lines the (cell position, 1-based line in the cell) it came from."""
    parts: list[str] = []
    owners: list[tuple[int, int]] = []
    for position, cell in enumerate(cells):
        if position:
            parts.append(f"import __nbcell_{position}__\n")
            owners.append((position, 1))
        code = cell.masked.code if cell.masked.code.endswith("\n") else cell.masked.code + "\n"
        parts.append(code)
        owners.extend((position, n) for n in range(1, len(split_lines(code)) + 1))
    return "".join(parts), owners


def _is_import_or_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("import ", "from "))


def _split(cells: Sequence[_Cell], old_joined: str, new_joined: str) -> list[str] | None:
    """The new text of each cell, IPython lines restored; ``None`` when the separators did not survive intact."""
    marks = list(_SEPARATOR.finditer(new_joined))
    if [int(m.group("n")) for m in marks] != list(range(1, len(cells))):
        return None
    bounds = [0, *(m.start() for m in marks), len(new_joined)]
    segments: list[list[str]] = []
    for k in range(len(cells)):
        start = bounds[k] if k == 0 else marks[k - 1].end() + 1
        segments.append(split_lines(new_joined[start : bounds[k + 1]]))
    for k in range(1, len(cells)):  # imports libcst added right after a separator belong to the cell before it
        old = split_lines(cells[k].masked.code)
        opcodes = difflib.SequenceMatcher(None, old, segments[k], autojunk=False).get_opcodes()
        if opcodes and opcodes[0][0] == "insert" and opcodes[0][1] == 0:
            moved = segments[k][: opcodes[0][4]]
            if all(_is_import_or_blank(line) for line in moved):
                segments[k - 1].extend(moved)
                del segments[k][: len(moved)]
    texts: list[str] = []
    for cell, lines in zip(cells, segments, strict=True):
        old_code = cell.masked.code if cell.masked.code.endswith("\n") else cell.masked.code + "\n"
        old_blank = len(old_code) - len(old_code.rstrip("\n"))
        new = "".join(lines)
        trimmed = new.rstrip("\n") + "\n" * max(1, min(old_blank, len(new) - len(new.rstrip("\n"))))
        new = trimmed if new.strip() else new
        if not cell.masked.code.endswith("\n") and new.endswith("\n"):
            new = new[:-1]
        restored = unmask(new, cell.masked.originals)
        if restored is None:
            return None
        texts.append(restored)
    return texts


def _shell_position(cell: _Cell, cell_line: int, message: str, json_line: Callable[[int], int]) -> tuple[int, str]:
    elements = cell.source.elements
    offset = elements[min(cell_line, len(elements)) - 1][0] if elements else cell.source.start
    return json_line(offset), f"cell {cell.number}, line {cell_line}: {message}"


def _migrate_shell_lines(
    cells: Sequence[_Cell],
    passes: Sequence[Pass],
    to: Version,
    result: FileResult,
    json_line: Callable[[int], int],
    gate: Gate = SAFE_ONLY,
) -> None:
    """Run the project file passes over each cell's IPython lines, which are shell commands such as ``!pip install``.

    A command continued over several lines with a trailing backslash is rewritten as one.
    """
    for cell in cells:
        lines = [line.strip() for line in split_lines(cell.masked.code)]
        originals = cell.masked.originals
        ids = sorted(originals)
        while ids:
            group = [ids.pop(0)]
            while originals[group[-1]].endswith("\\") and ids and ids[0] == group[-1] + 1:
                group.append(ids.pop(0))
            shell = migrate_project_text("\n".join(originals[n] for n in group), SHELL_FILE, passes, to, gate=gate)
            if shell.error is not None:
                continue
            placeholder = f"import __nbmagic_{group[0]}__"
            line_no = lines.index(placeholder) + 1 if placeholder in lines else 1

            for finding in shell.findings:
                line, message = _shell_position(cell, line_no + finding.line - 1, finding.message, json_line)
                fix = finding.fix.moved(line - finding.line) if finding.fix is not None else None
                result.findings.append(replace(finding, line=line, message=message, fix=fix))
            new_lines = shell.code.split("\n")
            if shell.changed and len(new_lines) == len(group):
                originals.update(zip(group, new_lines, strict=True))
                for edit in shell.edits:
                    line, message = _shell_position(cell, line_no + edit.line - 1, edit.message, json_line)
                    result.edits.append(replace(edit, line=line, message=message))
                result.passes_applied.extend(p for p in shell.passes_applied if p not in result.passes_applied)


# --- readable diffs -----------------------------------------------------------------------------------------------


