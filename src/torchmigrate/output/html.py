"""``--report-html FILE``: one self-contained HTML page for reviewing a (bulk) migration.

The page loads nothing: the style sheet is inline, the bar chart is inline SVG, there is no script and no font, image
or link it has to fetch. It shows, in this order: the run's options; per repository, its totals and what git did; a
table of edits and findings per pass and repository, and a bar chart of them; each changed file's diff, hunk by hunk,
with the edits of that hunk beside it (for a ``review`` edit, what to review: the pass's ``review_note``); the findings
grouped by pass, each linking to its file and line; and the files that could not be processed.

Like ``--report`` it is written to a temporary name beside the target and renamed into place when the run ends.
"""

from __future__ import annotations

import html
import os
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from torchmigrate.core.about import __version__
from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import all_passes
from torchmigrate.core.results import Edit, FileResult, Finding, Summary
from torchmigrate.output.diffs import unified_diff

if TYPE_CHECKING:
    from torchmigrate.run.bulk import RepoOutcome

__all__ = ["HtmlReport", "RunOptions", "render_page"]


@dataclass(frozen=True)
class RunOptions:
    """What the page says about how the run was made."""

    mode: str  # write, diff or check
    to: str
    argv: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass
class _File:
    repo: str
    path: str
    changed: bool
    written: bool
    edits: list[Edit]
    findings: list[Finding]
    error: str | None
    diff: str = ""


@dataclass
class HtmlReport:
    """Collects the results of a run as they stream (:meth:`add`), then writes the page (:meth:`write`)."""

    options: RunOptions
    files: list[_File] = field(default_factory=list)
    edits: Counter[tuple[str, str]] = field(default_factory=Counter)  # (repo, pass id) → edits
    findings: Counter[tuple[str, str]] = field(default_factory=Counter)  # (repo, pass id) → findings

    def add(self, repo: str, result: FileResult) -> None:
        for e in result.edits:
            self.edits[repo, e.pass_id] += 1
        for f in result.findings:
            self.findings[repo, f.pass_id] += 1
        if not (result.changed or result.edits or result.findings or result.error):
            return
        diff = ""
        if result.changed and result.old is not None and result.new is not None:
            diff = unified_diff(result.old, result.new, result.path)
        edits, findings = sorted(result.edits), sorted(result.findings)
        self.files.append(_File(repo, result.path, result.changed, result.written, edits, findings, result.error, diff))

    def write(self, path: Path, repos: Sequence[RepoOutcome], summary: Summary) -> None:
        page = render_page(self, repos, summary)
        folder = path.parent if str(path.parent) else Path(".")
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(page)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as an ordinary new file (mkstemp makes it private)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


# --- rendering --------------------------------------------------------------------------------------------------------

EDIT_COLOUR, FINDING_COLOUR = "#2f6fb3", "#c77c0e"  # the chart's bars (tests look for them in the screenshot)
_CSS = """
:root { --edit: #2f6fb3; --finding: #c77c0e; --add: #e6f4ea; --del: #fce8e6; --line: #d0d7de; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto;
       max-width: 1500px; padding: 1.5em 2em 4em; }
h1 { font-size: 1.6em; margin: 0 0 .2em; } h2 { margin-top: 2em; border-bottom: 1px solid var(--line); }
h3 { margin: 1.4em 0 .4em; font-size: 1.05em; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
.lead { color: var(--muted); margin-top: 0; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid var(--line); padding: .25em .6em; text-align: right; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
thead th { background: #f6f8fa; }
tfoot td { font-weight: 600; background: #f6f8fa; }
td.zero { color: #afb8c1; }
.scroll { overflow-x: auto; }
.side { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
.side .scroll { max-width: 100%; }
dl.options { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1.2em; }
dl.options dt { font-weight: 600; } dl.options dd { margin: 0; }
.badge { display: inline-block; border-radius: 3px; padding: 0 .4em; font-size: 12px; font-weight: 600; color: #fff; }
.badge.safe { background: #1a7f37; } .badge.review { background: #bf3989; }
.file { border: 1px solid var(--line); border-radius: 6px; margin: 1em 0; }
.file > h3 { margin: 0; padding: .5em .8em; background: #f6f8fa; border-bottom: 1px solid var(--line); }
.hunk { display: grid; grid-template-columns: minmax(0, 3fr) minmax(16em, 2fr); border-top: 1px solid var(--line); }
.file > .hunk:first-of-type { border-top: 0; }
.hunk pre { margin: 0; padding: .4em 0; overflow-x: auto; }
.hunk pre span { display: block; padding: 0 .8em 0 1.8em; text-indent: -1em; white-space: pre-wrap; overflow-wrap: anywhere; }
.hunk pre .add { background: var(--add); } .hunk pre .del { background: var(--del); }
.hunk pre .hdr { color: var(--muted); background: #f0f6fc; }
.notes { border-left: 1px solid var(--line); padding: .5em .8em; background: #fbfbfc; }
.note { margin: 0 0 .6em; } .note p { margin: .2em 0 0; }
.note.review { border-left: 3px solid #bf3989; padding-left: .5em; }
.review-text { color: #6e2c57; }
ul.findings { list-style: none; padding-left: 0; } ul.findings li { margin: .25em 0; }
.chart text { font: 12px system-ui, sans-serif; fill: #1f2328; }
.legend { color: var(--muted); }
.swatch { display: inline-block; width: .9em; height: .9em; vertical-align: -1px; margin: 0 .3em 0 .8em; }
.error { color: #cf222e; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _passes() -> dict[str, Pass]:
    return {p.id: p for p in all_passes()}


def _pass_order(ids: Sequence[str]) -> list[str]:
    rank = {p.id: i for i, p in enumerate(all_passes())}
    return sorted(set(ids), key=lambda i: (rank.get(i, len(rank)), i))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _file_uri(path: str, line: int | None = None) -> str:
    uri = Path(path).resolve().as_uri()
    return f"{uri}#L{line}" if line else uri


def _anchor(number: int) -> str:
    return f"file-{number}"


def render_page(report: HtmlReport, repos: Sequence[RepoOutcome], summary: Summary) -> str:
    """The whole page."""
    known = _passes()
    opts = report.options
    verb = "changed" if opts.mode == "write" else "would change"
    title = f"torchmigrate report: migration to PyTorch {opts.to}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead" id="summary">{len(repos)} {"repository" if len(repos) == 1 else "repositories"} · '
        f"{_plural(summary.scanned, 'file')} scanned · {summary.changed} {verb} · {_plural(summary.edits, 'edit')} · "
        f"{_plural(summary.findings, 'finding')} · {_plural(summary.errors, 'error')}</p>",
        '<nav><a href="#options">Options</a><a href="#repositories">Repositories</a><a href="#passes">Passes</a>'
        '<a href="#diffs">Diffs</a><a href="#findings">Findings</a></nav>',
        _options_section(opts),
        _repos_section(repos, verb),
        _passes_section(report, repos, known),
        _diffs_section(report, known),
        _findings_section(report, known),
        _errors_section(report),
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part) + "\n"


def _options_section(opts: RunOptions) -> str:
    rows = [
        ("Command", f'<code>migrate {_e(" ".join(opts.argv))}</code>'),
        ("Target", f"PyTorch {_e(opts.to)}"),
        ("Mode", {"write": "write (files rewritten)", "diff": "diff (nothing written)", "check": "check (nothing written)"}.get(
            opts.mode, _e(opts.mode))),
        ("Review-level edits", "applied" if opts.unsafe_fixes else "not applied (reported)"),
        ("Selected passes", _e(", ".join(opts.select)) if opts.select else "the default set"),
        ("Ignored passes", _e(", ".join(opts.ignore)) if opts.ignore else "none"),
        ("Tool", f"torchmigrate {_e(__version__)}"),
    ]
    items = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return f'<h2 id="options">Options</h2><dl class="options">{items}</dl>'


def _repos_section(repos: Sequence[RepoOutcome], verb: str) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("files scanned", f"files {verb}", "edits", "findings", "errors"))
    rows = []
    for r in repos:
        s = r.summary
        git = f'<span class="error">error: {_e(r.error)}</span>' if r.error else _e(r.git_status or "—")
        cells = "".join(f"<td>{n}</td>" for n in (s.scanned, s.changed, s.edits, s.findings, s.errors))
        rows.append(
            f'<tr><td class="text">{_e(r.path)}</td><td class="text">{_e(r.options.from_)} → {_e(r.options.to)}</td>'
            f'{cells}<td class="text">{git}</td></tr>'
        )
    return (
        '<h2 id="repositories">Repositories</h2><div class="scroll"><table><thead><tr><th class="text">repository</th>'
        f'<th class="text">from → to</th>{head}<th class="text">git</th></tr></thead><tbody>{"".join(rows)}</tbody>'
        "</table></div>"
    )


def _passes_section(report: HtmlReport, repos: Sequence[RepoOutcome], known: dict[str, Pass]) -> str:
    ids = _pass_order([pass_id for _, pass_id in (*report.edits, *report.findings)])
    if not ids:
        return '<h2 id="passes">Passes</h2><p>No pass had anything to do.</p>'
    names = list(dict.fromkeys(r.path for r in repos))
    top = "".join(f'<th colspan="2">{_e(name)}</th>' for name in [*names, "total"])
    sub = "<th>edits</th><th>findings</th>" * (len(names) + 1)
    rows = []
    for pass_id in ids:
        p = known.get(pass_id)
        label = f"<code>{_e(pass_id)}</code>" + (f' <span class="badge {p.safety.value}">{p.safety.value}</span>' if p else "")
        cells = []
        for name in names:
            cells += [_count(report.edits[name, pass_id]), _count(report.findings[name, pass_id])]
        cells += [_count(sum(report.edits[n, pass_id] for n in names)), _count(sum(report.findings[n, pass_id] for n in names))]
        rows.append(f'<tr><td class="text">{label}</td><td>{_e(p.release) if p else ""}</td>{"".join(cells)}</tr>')
    totals = []
    for chosen in [*([name] for name in names), names]:
        totals += [
            f"<td>{sum(report.edits[n, i] for n in chosen for i in ids)}</td>",
            f"<td>{sum(report.findings[n, i] for n in chosen for i in ids)}</td>",
        ]
    table = (
        '<div class="scroll"><table id="pass-table"><thead><tr><th class="text" rowspan="2">pass</th><th rowspan="2">'
        f"release</th>{top}</tr><tr>{sub}</tr></thead><tbody>{''.join(rows)}</tbody>"
        f'<tfoot><tr><td class="text">total</td><td></td>{"".join(totals)}</tr></tfoot></table></div>'
    )
    chart = _chart(ids, report, names)
    return f'<h2 id="passes">Edits and findings per pass</h2><div class="side">{table}<div>{chart}</div></div>'


def _count(n: int) -> str:
    return f'<td class="zero">{n}</td>' if n == 0 else f"<td>{n}</td>"


def _chart(ids: Sequence[str], report: HtmlReport, names: Sequence[str]) -> str:
    """Two bars per pass (edits, findings over every repository), drawn to one scale, as inline SVG."""
    label_width, bar_width, row, bar = 210, 300, 34, 12
    edits = {i: sum(report.edits[n, i] for n in names) for i in ids}
    findings = {i: sum(report.findings[n, i] for n in names) for i in ids}
    largest = max([*edits.values(), *findings.values(), 1])
    height = row * len(ids) + 10
    shapes = []
    for number, pass_id in enumerate(ids):
        y = number * row + 6
        shapes.append(f'<text x="{label_width - 8}" y="{y + bar + 3}" text-anchor="end">{_e(pass_id)}</text>')
        for offset, (kind, count, colour) in enumerate(
            (("edits", edits[pass_id], EDIT_COLOUR), ("findings", findings[pass_id], FINDING_COLOUR))
        ):
            top = y + offset * (bar + 2)
            width = round(bar_width * count / largest, 1)
            shapes.append(
                f'<rect class="bar {kind}" data-pass="{_e(pass_id)}" data-count="{count}" x="{label_width}" y="{top}" '
                f'width="{width}" height="{bar}" fill="{colour}"><title>{_e(pass_id)}: {_plural(count, kind[:-1])}</title></rect>'
            )
            if count:
                shapes.append(f'<text x="{label_width + width + 5}" y="{top + bar - 2}">{count}</text>')
    total_width = label_width + bar_width + 40
    legend = (
        '<p class="legend"><span class="swatch" style="background: var(--edit)"></span>edits'
        '<span class="swatch" style="background: var(--finding)"></span>findings (all repositories)</p>'
    )
    return (
        f'<svg class="chart" id="chart" role="img" aria-label="edits and findings per pass" width="{total_width}" '
        f'height="{height}" viewBox="0 0 {total_width} {height}" xmlns="http://www.w3.org/2000/svg">'
        f"{''.join(shapes)}</svg>{legend}"
    )


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def _hunks(diff: str) -> list[tuple[int, int, list[str]]]:
    """The hunks of a unified diff: (first old line, last old line, the hunk's lines, header first)."""
    found: list[tuple[int, int, list[str]]] = []
    for line in diff.splitlines():
        match = _HUNK.match(line)
        if match:
            start, length = int(match.group(1)), int(match.group(2) or "1")
            found.append((max(start, 1), max(start, 1) + max(length, 1) - 1, [line]))
        elif found:
            found[-1][2].append(line)
    return found


def _assign(edits: Sequence[Edit], hunks: Sequence[tuple[int, int, list[str]]]) -> list[list[Edit]]:
    """Each edit beside the hunk that holds its line, else the nearest one."""
    shares: list[list[Edit]] = [[] for _ in hunks]
    for edit in edits:
        if not hunks:
            break

        def distance(i: int, line: int = edit.line) -> tuple[int, int]:
            first, last = hunks[i][0], hunks[i][1]
            return (0, 0) if first <= line <= last else (1, min(abs(line - first), abs(line - last)))

        shares[min(range(len(hunks)), key=distance)].append(edit)
    return shares


def _diff_line(line: str) -> str:
    kind = "hdr" if line.startswith("@@") else "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
    return f'<span class="{kind}">{_e(line) or " "}</span>'


def _note(edit: Edit, known: dict[str, Pass]) -> str:
    p = known.get(edit.pass_id)
    safety = edit.safety
    text = (
        f'<div class="note {safety}" data-pass="{_e(edit.pass_id)}"><span class="badge {safety}">{_e(safety)}</span> '
        f"<code>{_e(edit.pass_id)}</code> line {edit.line}: {_e(edit.message)}"
    )
    if safety == "review":
        what = p.review_note if p is not None and p.review_note else "check that the rewritten code means what the old did"
        text += f'<p class="review-text"><strong>What to review:</strong> {_e(what)}</p>'
    return text + "</div>"


def _diffs_section(report: HtmlReport, known: dict[str, Pass]) -> str:
    changed = [(n, f) for n, f in enumerate(report.files) if f.diff]
    if not changed:
        return '<h2 id="diffs">Diffs</h2><p>No file changes.</p>'
    state = "applied" if report.options.mode == "write" else "not written"
    parts = [f'<h2 id="diffs">Diffs</h2><p class="lead">{_plural(len(changed), "file")} ({state}); beside each hunk, '
             "the edits it holds.</p>"]
    for number, f in changed:
        hunks = _hunks(f.diff)
        parts.append(f'<section class="file" id="{_anchor(number)}"><h3 class="mono">{_e(f.path)}</h3>')
        for (_, _, lines), edits in zip(hunks, _assign(f.edits, hunks), strict=True):
            notes = "".join(_note(e, known) for e in edits)
            body = "".join(_diff_line(line) for line in lines)
            parts.append(f'<div class="hunk"><pre>{body}</pre><aside class="notes">{notes}</aside></div>')
        parts.append("</section>")
    return "".join(parts)


def _findings_section(report: HtmlReport, known: dict[str, Pass]) -> str:
    by_pass: dict[str, list[tuple[int, _File, Finding]]] = {}
    for number, f in enumerate(report.files):
        for finding in f.findings:
            by_pass.setdefault(finding.pass_id, []).append((number, f, finding))
    if not by_pass:
        return '<h2 id="findings">Findings</h2><p>No findings.</p>'
    parts = ['<h2 id="findings">Findings</h2><p class="lead">What no pass could rewrite without guessing: change it by hand.</p>']
    for pass_id in _pass_order(list(by_pass)):
        p = known.get(pass_id)
        entries = by_pass[pass_id]
        heading = f"<code>{_e(pass_id)}</code>" + (f" (PyTorch {_e(p.release)}) — {_e(p.title)}" if p else "")
        count = _plural(len(entries), "finding")
        parts.append(f'<section class="pass-findings" data-pass="{_e(pass_id)}"><h3>{heading} · {count}</h3>')
        parts.append('<ul class="findings">')
        for number, f, finding in entries:
            where = f"{f.path}:{finding.line}:{finding.col}"
            jump = f' (<a href="#{_anchor(number)}">diff</a>)' if f.diff else ""
            link = f'<a class="mono" href="{_e(_file_uri(f.path, finding.line))}">{_e(where)}</a>'
            parts.append(f"<li>{link}{jump} {_e(finding.message)}</li>")
        parts.append("</ul></section>")
    return "".join(parts)


def _errors_section(report: HtmlReport) -> str:
    failed = [f for f in report.files if f.error]
    if not failed:
        return ""
    items = "".join(f'<li><span class="mono">{_e(f.path)}</span>: <span class="error">{_e(f.error)}</span></li>' for f in failed)
    return f'<h2 id="errors">Files left as they were</h2><ul class="findings">{items}</ul>'
