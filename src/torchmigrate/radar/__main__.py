"""``python -m torchmigrate.radar OLD NEW``: see :mod:`torchmigrate.radar`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchmigrate.radar.api import SourceError, radar
from torchmigrate.radar.compare import KINDS
from torchmigrate.radar.render import as_json, as_markdown, as_text, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchmigrate.radar",
        description="List what changed between two releases of torch that can break user code (read statically).",
    )
    parser.add_argument("old", help="the older release: a version (2.13.0), a wheel file or an unpacked tree")
    parser.add_argument("new", help="the newer release, likewise")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                        help="text (default), markdown (draft catalog rows) or json")
    parser.add_argument("--kind", action="append", choices=sorted(KINDS), help="only these kinds of change (repeatable)")
    parser.add_argument("--package", default="torch", help="the top-level package to read (default: torch)")
    parser.add_argument("--download-dir", type=Path, default=None,
                        help="where downloaded wheels are kept (default: ~/.cache/torchmigrate-radar)")
    parser.add_argument("--output", type=Path, default=None, help="write the report to this file instead of stdout")
    args = parser.parse_args(argv)
    try:
        result = radar(args.old, args.new, args.package, args.download_dir)
    except SourceError as exc:
        print(f"radar: error: {exc}", file=sys.stderr)
        return 2
    changes = [c for c in result.changes if not args.kind or c.kind in args.kind]
    render = {"text": as_text, "markdown": as_markdown, "json": as_json}[args.format]
    report = render(result.old, result.new, changes)
    if args.output is not None:
        args.output.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    print(summary(result.old, result.new, changes), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
