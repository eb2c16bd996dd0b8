"""The run's two summary tables — per pass and per repository — built once and drawn one way: with rich on a
colour terminal, as plain aligned text otherwise. Each column says what it counts (files or edits)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from torchmigrate.core.results import Summary

if TYPE_CHECKING:
    from rich.console import Console

    from torchmigrate.output.terminal import Tally
    from torchmigrate.run.bulk import RepoOutcome

__all__ = ["Table", "pass_table", "print_table", "render_plain", "repo_table"]


@dataclass
class Table:
    """A header, rows and an optional total row; the first column is a name, the others counts, except the columns
    from ``text_from`` on (free text, such as what git did)."""

    header: list[str]
    rows: list[list[str]]
    total: list[str] | None = None
    text_from: int | None = None
    warn: dict[int, str] = field(default_factory=dict)  # column → rich style for a non-zero count

    def _numeric(self, column: int) -> bool:
        return column > 0 and (self.text_from is None or column < self.text_from)


def _edits(written: bool) -> str:
    return "edits applied" if written else "edits to apply"


def pass_table(tally: Tally, *, written: bool) -> Table | None:
    """Per pass: the files it edited or reported on, its edits, its findings. ``None`` when no pass did anything."""
    ids = sorted({*tally.edits, *tally.findings})
    if not ids:
        return None
    rows = [[i, str(tally.files[i]), str(tally.edits[i]), str(tally.findings[i])] for i in ids]
    return Table(["pass", "files", _edits(written), "findings"], rows, warn={3: "yellow"})


def repo_table(repos: Sequence[RepoOutcome], *, written: bool) -> Table:
    """Per repository: files scanned, files changed, edits, findings, errors (a refused repository is one), git."""
    changed = "files changed" if written else "files to change"
    header = ["repository", "files scanned", changed, _edits(written), "findings", "errors", "git"]
    total = Summary()
    rows = []
    for r in repos:
        s = r.summary
        errors = s.errors + int(r.error is not None)
        rows.append([r.path, str(s.scanned), str(s.changed), str(s.edits), str(s.findings), str(errors), r.git_status])
        total.scanned += s.scanned
        total.changed += s.changed
        total.edits += s.edits
        total.findings += s.findings
        total.errors += errors
    totals = ["total", str(total.scanned), str(total.changed), str(total.edits), str(total.findings), str(total.errors), ""]
    if not any(row[6] for row in rows):  # no git options, no repository-level error: no git column
        header, rows, totals = header[:6], [row[:6] for row in rows], totals[:6]
    return Table(header, rows, totals, text_from=6, warn={4: "yellow", 5: "red"})


def render_plain(table: Table) -> str:
    """Aligned text: names left, counts right, a rule under the header and above the total."""
    lines_in = [table.header, *table.rows, *([table.total] if table.total else [])]
    width = len(table.header)
    widths = [max(len(row[i]) for row in lines_in) for i in range(width)]

    def line(row: list[str]) -> str:
        cells = [row[i].rjust(widths[i]) if table._numeric(i) else row[i].ljust(widths[i]) for i in range(width)]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [line(table.header), rule, *(line(row) for row in table.rows)]
    if table.total:
        out += [rule, line(table.total)]
    return "\n".join(out) + "\n"


def print_rich(out: Console, table: Table) -> None:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    drawn = RichTable(
        title=None, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True, header_style="bold"
    )
    for number, name in enumerate(table.header):
        drawn.add_column(name, justify="right" if table._numeric(number) else "left", no_wrap=number < (table.text_from or 99))

    def cells(row: list[str]) -> list[Text]:
        styled = []
        for number, value in enumerate(row):
            style = table.warn.get(number, "") if table._numeric(number) and value not in ("", "0") else ""
            styled.append(Text(value, style=style))
        return styled

    for row in table.rows:
        drawn.add_row(*cells(row))
    if table.total:
        drawn.add_section()
        drawn.add_row(*cells(table.total), style="bold")
    out.print(drawn)


def print_table(out: Console | None, table: Table) -> None:
    """On ``out`` (a colour console on stderr) with rich; without one, as plain text on stderr."""
    if out is not None:
        print_rich(out, table)
    else:
        print(render_plain(table), end="", file=sys.stderr, flush=True)
