"""Human output on a terminal: coloured diffs and findings, a summary table, and readable ``--explain`` (rich).

Colour is decided per stream: ``--color always`` / ``never`` force it; ``auto`` (the default) colours a stream that is
a terminal, unless ``NO_COLOR`` is set (https://no-color.org), and ``FORCE_COLOR`` turns it on without a terminal.
Without colour the output is exactly the plain text (a piped ``--diff`` is the patch ``git apply`` takes).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, TextIO

if TYPE_CHECKING:  # rich is imported when colour is used: plain output (CI, pipes, cached runs) does not pay for it
    from rich.console import Console

from torchmigrate.core.passes import Pass
from torchmigrate.core.results import Edit, FileResult, Fix, Replacement, Summary, check_note
from torchmigrate.core.text import plural
from torchmigrate.output.diffs import diff_bytes, unified_diff
from torchmigrate.output.docs import safety_line

__all__ = ["COLOR_CHOICES", "Reporter", "Tally", "console", "explain_markdown", "print_diff", "print_explain", "use_color"]

COLOR_CHOICES = ("auto", "always", "never")


def use_color(choice: str, stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Whether to colour ``stream`` for ``--color choice``."""
    environ = os.environ if env is None else env
    if choice == "always":
        return True
    if choice == "never" or environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", ""):
        return True
    if environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def console(stream: TextIO, color: bool, wrap: bool = False) -> Console:
    """A rich console on ``stream`` that does not wrap (unless ``wrap``), highlight, or read markup or emoji codes."""
    from rich.console import Console

    return Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=not wrap,
    )


_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"), ("\\", "dim"))


def print_diff(out: Console, diff: str) -> None:
    """A unified diff, coloured line by line."""
    for line in diff.splitlines():
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), None)
        out.out(line, style=style, highlight=False)


def print_finding(out: Console, path: str, line: int, col: int, pass_id: str, message: str) -> None:
    from rich.text import Text

    text = Text()
    text.append(f"{path}:{line}:{col}:", style="bold")
    text.append(" ")
    text.append(pass_id, style="yellow")
    text.append(f" {message}")
    out.print(text)


SUGGESTION_INDENT = "    "


def suggestion_block(fix: Fix) -> list[str]:
    """The lines text mode prints under a finding that holds back a review edit: its suggested change, as diff lines."""
    return [SUGGESTION_INDENT + line for line in fix.diff_lines()]


def print_suggestion(out: Console, fix: Fix) -> None:
    for line in fix.diff_lines():
        out.out(SUGGESTION_INDENT + line, style="green" if line.startswith("+") else "red", highlight=False)


def print_review(out: Console, path: str, edit: Edit) -> None:
    from rich.text import Text

    text = Text()
    text.append(f"{path}:{edit.line}:{edit.col}:", style="bold")
    text.append(" ")
    text.append(edit.pass_id, style="cyan")
    text.append(" [review]", style="bold cyan")
    text.append(f" {edit.message}{check_note(edit.pass_id, edit.note)}")
    out.print(text)


def print_error(out: Console, path: str, error: str) -> None:
    from rich.text import Text

    text = Text()
    text.append(f"{path}:", style="bold")
    text.append(" error:", style="bold red")
    text.append(f" {error}")
    out.print(text)


@dataclass
class Tally:
    """Edits and findings per pass, for the summary table."""

    edits: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    files: Counter[str] = field(default_factory=Counter)

    def add(self, result: FileResult) -> None:
        edits = result.edits if result.error is None else []  # a file left as it was has no edits applied
        for edit in edits:
            self.edits[edit.pass_id] += 1
        for finding in result.findings:
            self.findings[finding.pass_id] += 1
        for pass_id in {*(e.pass_id for e in edits), *(f.pass_id for f in result.findings)}:
            self.files[pass_id] += 1


def print_summary(out: Console | None, summary: Summary, tally: Tally, *, written: bool) -> None:
    """The table of edits and findings per pass (rich on ``out``, plain text on stderr without it), then the one-line
    summary."""
    from torchmigrate.output import tables

    table = tables.pass_table(tally, written=written)
    if table is not None:
        tables.print_table(out, table)
    if out is None:
        print(summary.render(written=written), file=sys.stderr, flush=True)
        return
    from rich.text import Text

    style = "bold red" if summary.errors else ("bold yellow" if summary.findings or summary.changed else "bold green")
    out.print(Text(summary.render(written=written), style=style))


def would_fix_lines(changed: list[tuple[str, int]]) -> list[str]:
    """``--check``: one ``Would fix: PATH (N edits)`` line per file that would change, sorted by path (as ruff)."""
    return [f"Would fix: {path} ({plural(edits, 'edit')})" for path, edits in sorted(changed)]


def print_would_fix(out: Console | None, changed: list[tuple[str, int]]) -> None:
    """The ``--check`` file list on stderr, beside the findings (stdout stays empty, as the hooks expect)."""
    for line in would_fix_lines(changed):
        if out is not None:
            out.out(line, highlight=False)
        else:
            print(line, file=sys.stderr, flush=True)


# --- --explain ----------------------------------------------------------------------------------------------------


def explain_markdown(p: Pass) -> str:
    """A pass's documentation as one Markdown document."""
    opt_in = f" · opt-in (runs only with `--select {p.id}`)" if p.opt_in else ""
    parts = [
        f"# {p.id}",
        f"**{p.title}**",
        f"release **{p.release_label}** · safety **{p.safety.value}**{opt_in}",
        f"Fix safety: {safety_line(p)}",
        f"Evidence: {p.evidence}",
        p.doc,
    ]
    if p.review_note:
        parts += ["## What to review", p.review_note]
    if p.examples:
        parts.append("## Examples")
        for number, example in enumerate(p.examples, start=1):
            title = f" — {example.title}" if example.title else ""
            parts += [f"### Example {number}{title}", "Before:", _fenced(example.before)]
            reported = f" ({example.findings} finding(s) reported)" if example.findings else ""
            if example.after is None:
                parts.append(f"After: unchanged{reported}")
            else:
                parts += ["After:", _fenced(example.after)]
                if reported:
                    parts.append(reported.strip())
    return "\n\n".join(parts).rstrip() + "\n"


def _fenced(code: str) -> str:
    return "```python\n" + code.rstrip("\n") + "\n```"


def print_explain(out: Console, p: Pass) -> None:
    from rich.markdown import Markdown  # imported when needed: it costs start-up time on every run

    out.print(Markdown(explain_markdown(p), code_theme="ansi_dark"))


# --- the reporter the command uses ----------------------------------------------------------------------------------


class Reporter:
    """Renders a run as the command line asked: per file as results stream in (``add``), then the report and the
    summary (``finish``). ``fmt`` ``text``: findings and errors on stderr, the diff on ``out`` with ``diff``; another
    format: the report on ``out`` at the end, errors on stderr."""

    def __init__(self, fmt: str, *, mode: str, color: str, out: BinaryIO, to_stdout: bool = True) -> None:
        self.fmt, self.mode, self.out = fmt, mode, out
        self.err = console(sys.stderr, True) if use_color(color, sys.stderr) else None
        self.diff_console = console(sys.stdout, True) if to_stdout and use_color(color, sys.stdout) else None
        self.tally = Tally()
        self.kept: list[FileResult] = []
        self.would_fix: list[tuple[str, int]] = []  # --check: (path, edits) of each file that would change

    @property
    def written(self) -> bool:
        return self.mode == "write"

    def add(self, result: FileResult) -> None:
        self.tally.add(result)
        if self.mode == "check" and result.changed:
            self.would_fix.append((result.path, len(result.edits)))
        if result.error is not None:
            if self.err is not None:
                print_error(self.err, result.path, result.error)
            else:
                print(f"{result.path}: error: {result.error}", file=sys.stderr, flush=True)
        if self.fmt != "text":
            if not result.changed and not any(f.fix is not None for f in result.findings):
                result.old = result.new = None  # kept where SARIF fixes need them: changed files, suggested changes
            self.kept.append(result)
            return
        for edit in sorted(result.edits):  # applied review edits: say what to check (the machine formats carry it too)
            if edit.safety == "review":
                if self.err is not None:
                    print_review(self.err, result.path, edit)
                else:
                    print(edit.render_review(result.path), file=sys.stderr, flush=True)
        shown: set[tuple[Replacement, ...]] = set()  # edits that share one change show it once
        for f in sorted(result.findings):
            fix = f.fix if f.fix is not None and f.fix.replacements not in shown else None
            if f.fix is not None:
                shown.add(f.fix.replacements)
            if self.err is not None:
                print_finding(self.err, result.path, f.line, f.col, f.pass_id, f.message)
                if fix is not None:
                    print_suggestion(self.err, fix)
            else:
                block = "".join(line + "\n" for line in suggestion_block(fix)) if fix is not None else ""
                print(f.render(result.path) + "\n" + block, file=sys.stderr, end="", flush=True)
        if self.mode == "diff" and result.changed:
            if self.diff_console is not None and result.old is not None and result.new is not None:
                print_diff(self.diff_console, unified_diff(result.old, result.new, result.path))
            else:
                self.out.write(diff_bytes(result, result.path))
                self.out.flush()

    def list_would_fix(self) -> None:
        """``--check`` in text mode: the files that would change (call once the results are in, before the tables)."""
        if self.fmt == "text":
            print_would_fix(self.err, self.would_fix)

    def finish(self, summary: Summary) -> None:
        if self.fmt != "text":
            from torchmigrate.output import formats

            self.out.write(formats.render(self.fmt, formats.RunInfo(self.mode, self.kept, summary)).encode("utf-8"))
            self.out.flush()
        print_summary(self.err, summary, self.tally, written=self.written)
