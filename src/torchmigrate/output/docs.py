"""The README's table of passes, generated from the registry: ``python -m torchmigrate.docs README.md``."""

from __future__ import annotations

import sys
from pathlib import Path

from torchmigrate.core.passes import PROJECT
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
        rows.append(f"| `{p.id}` | {p.release} | {change} | {kind} | {title} | {p.evidence.replace('|', '/')} |")
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
