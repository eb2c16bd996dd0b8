"""Suppression comments: ``# migrate: ignore[...]`` on a logical line, ``# migrate: skip-file`` for a file."""

from __future__ import annotations

import io
import re
import tokenize

from torchmigrate.core.text import SUPPRESS, suppressed_ids


def _merge(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return None if a is None or b is None else a | b



def suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """Line number → suppressed pass ids (``None``: every pass) from ``# migrate: ignore[...]`` comments.

    Only real comments count (not text inside strings), and a comment covers its whole *logical* line: every physical
    line of a statement that spans several lines (a multi-line call, an import in parentheses, a compound statement's
    header). So the comment may sit on the first, a middle or the last line of a multi-line statement.
    """
    if "migrate:" not in text:
        return {}
    try:
        return _logical_suppressions(text)
    except (tokenize.TokenError, SyntaxError, ValueError):  # not tokenizable: fall back to physical lines
        result: dict[int, frozenset[str] | None] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            match = SUPPRESS.search(line)
            if match:
                result[number] = suppressed_ids(match)
        return result



SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*migrate:[ \t]*skip-file\b", re.MULTILINE)



def skips_file(text: str) -> bool:
    """True when a ``# migrate: skip-file`` comment stands on a line of its own (not inside a string)."""
    if not SKIP_FILE.search(text):
        return False
    try:
        return any(
            t.type == tokenize.COMMENT and SKIP_FILE.match(t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
        )
    except (tokenize.TokenError, SyntaxError, ValueError):
        return True






def _logical_suppressions(text: str) -> dict[int, frozenset[str] | None]:
    result: dict[int, frozenset[str] | None] = {}
    first: int | None = None  # first physical line of the logical line being read
    pending: list[frozenset[str] | None] = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        kind, line = token.type, token.start[0]
        if kind == tokenize.COMMENT:
            match = SUPPRESS.match(token.string)
            if match and first is not None:
                pending.append(suppressed_ids(match))
            continue
        if kind in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
            continue
        if kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if first is not None and pending:
                ids: frozenset[str] | None = frozenset()
                for found in pending:
                    ids = _merge(ids, found)
                for number in range(first, token.end[0] + 1):
                    result[number] = _merge(result.get(number, frozenset()), ids)
            first, pending = None, []
            continue
        if first is None:
            first = line
    return result
