"""The radar's report: a summary, the changes by kind, and draft catalog rows (Markdown) or JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from torchmigrate.radar.compare import KINDS, Change
from torchmigrate.radar.scan import Scan

__all__ = ["as_json", "as_markdown", "as_text", "summary"]


def summary(old: Scan, new: Scan, changes: Sequence[Change]) -> str:
    counts = Counter(c.kind for c in changes)
    parts = [f"{counts[k]} {k}" for k in KINDS if counts[k]]
    unparsed = len(old.unparsed) + len(new.unparsed)
    note = f"; {unparsed} files did not parse" if unparsed else ""
    return (f"radar {old.label} -> {new.label}: {len(old.modules)} / {len(new.modules)} modules read{note}; "
            f"{len(changes)} changes: " + (", ".join(parts) or "none"))


def as_text(old: Scan, new: Scan, changes: Sequence[Change]) -> str:
    lines = [summary(old, new, changes), ""]
    for kind, heading in KINDS.items():
        chosen = [c for c in changes if c.kind == kind]
        if not chosen:
            continue
        lines.append(f"## {heading} ({len(chosen)})")
        for c in chosen:
            maybe = " [uncertain: the module has a __getattr__]" if c.uncertain else ""
            lines.append(f"- {c.detail}{maybe}")
            lines.append(f"    {c.evidence}")
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_markdown(old: Scan, new: Scan, changes: Sequence[Change]) -> str:
    """Draft catalog rows in the catalog's own columns, one table per kind; every row still needs a runtime check."""
    lines = [
        f"# Draft catalog rows: torch {old.label} -> {new.label}",
        "",
        f"Drafted by `python -m torchmigrate.radar {old.label} {new.label}` from the sources alone. "
        "Confirm each row on the real release before a pass relies on it.",
        "",
        summary(old, new, changes),
        "",
    ]
    for kind, heading in KINDS.items():
        chosen = [c for c in changes if c.kind == kind]
        if not chosen:
            continue
        lines += [f"## {heading}", "", "| old | new | status | evidence | rewrite |", "|---|---|---|---|---|"]
        for c in chosen:
            status = c.status + (" (uncertain: module __getattr__)" if c.uncertain else "")
            lines.append(f"| {_cell(c.old)} | {_cell(c.new)} | {_cell(status)} | {_cell(c.evidence)} | {_cell(c.rewrite)} |")
        lines.append("")
    return "\n".join(lines)


def as_json(old: Scan, new: Scan, changes: Sequence[Change]) -> str:
    return json.dumps(
        {"old": old.label, "new": new.label, "summary": summary(old, new, changes),
         "changes": [c.as_dict() for c in changes]},
        indent=2,
    ) + "\n"
