"""The README's table of passes, generated from the registry: ``python -m torchmigrate.output.docs README.md``."""

from __future__ import annotations

import sys
from pathlib import Path

from torchmigrate.core.passes import PROJECT, Pass
from torchmigrate.core.registry import all_passes

START, END = "<!-- passes:start -->", "<!-- passes:end -->"


def pass_table() -> str:
    rows = [
        "| id | release | kind | safety | what it does | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for p in all_passes():
        kind = f"{p.safety.value}, opt-in" if p.opt_in else p.safety.value
        title = p.title.replace("|", "\\|")
        change = f"{p.kind.value} (removed {p.removed_in})" if p.removed_in else p.kind.value
        change = "project files" if p.files == PROJECT else change
        rows.append(f"| `{p.id}` | {p.release_label} | {change} | {kind} | {title} | {p.evidence.replace('|', '/')} |")
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
