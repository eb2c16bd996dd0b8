"""The README's table of passes, generated from the registry: ``python -m torchmigrate.output.docs README.md``."""

from __future__ import annotations

import sys
from pathlib import Path

from torchmigrate.core.passes import PROJECT, Kind, Pass, Safety
from torchmigrate.core.registry import all_passes

START, END = "<!-- passes:start -->", "<!-- passes:end -->"


def safety_label(p: Pass) -> str:
    """``safe``, or ``review (--unsafe-fixes)``: a review-level pass's edits are applied only with unsafe fixes."""
    return "review (--unsafe-fixes)" if p.safety is Safety.REVIEW else p.safety.value


def safety_line(p: Pass) -> str:
    """What ``--explain`` says about a pass's fix safety and the torch its new form needs."""
    if p.safety is Safety.REVIEW:
        text = "review: applied only with --unsafe-fixes; without it each edit is reported with the suggested change"
    else:
        text = "safe: applied by default"
    if p.files != PROJECT:
        if p.kind is Kind.DEPRECATION:  # core.fixes.Gate.findings: the old form still works, the edit waits
            below = "below that support floor the edit waits, unreported: the deprecated form still works there"
        else:
            below = "below that support floor it is reported, not made"
        text += f"; the new form needs torch >= {p.since_version} ({below})"
    return text


def pass_table() -> str:
    rows = [
        "| id | release | kind | since | safety | what it does | evidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in all_passes():
        kind = safety_label(p) + (", opt-in" if p.opt_in else "")
        title = p.title.replace("|", "\\|")
        change = f"{p.kind.value} (removed {p.removed_in})" if p.removed_in else p.kind.value
        change = "project files" if p.files == PROJECT else change
        since = "—" if p.files == PROJECT else str(p.since_version)
        rows.append(f"| `{p.id}` | {p.release_label} | {change} | {since} | {kind} | {title} | {p.evidence.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def with_table(readme: str) -> str:
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{pass_table()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0] if args else "README.md")
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{path}: no {START} … {END} markers", file=sys.stderr)
        return 2
    path.write_text(with_table(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def render_explain(p: Pass) -> str:
    opt_in = f"    opt-in (run only with --select {p.id})" if p.opt_in else ""
    lines = [
        f"{p.id}: {p.title}",
        f"release: {p.release_label}    kind: {'project files' if p.files == PROJECT else p.kind.value}    "
        f"safety: {p.safety.value}{opt_in}",
        f"fix safety: {safety_line(p)}",
        f"evidence: {p.evidence}",
        "",
        p.doc,
    ]
    if p.review_note:
        lines += ["", "## What to review", p.review_note]
    if p.examples:
        lines += ["", "## Examples"]
        for number, example in enumerate(p.examples, start=1):
            title = f" — {example.title}" if example.title else ""
            title += f" ({example.path})" if example.path else ""
            lines += ["", f"### Example {number}{title}", "Before:", _indent(example.before)]
            if example.after is None:
                reported = f" ({example.findings} finding(s) reported)" if example.findings else ""
                lines.append("After: unchanged" + reported)
            else:
                lines += ["After:", _indent(example.after)]
                if example.findings:
                    lines.append(f"({example.findings} finding(s) reported)")
    return "\n".join(lines).rstrip() + "\n"



def _indent(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.rstrip("\n").splitlines())
