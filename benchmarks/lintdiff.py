"""Lint and formatter failures that a migration adds to a file: the truth harness's style check.

flake8 (pyflakes + pycodestyle, with the project's flake8 configuration), ``ruff check --select E,F,I`` (with the
project's ruff configuration) and, where the project configures them, ``black --check`` / ``ruff format --check`` run
on the original and the migrated file. :class:`LineMap` maps the migrated file's lines back through the diff;
:func:`new_failures` keeps the diagnostics the original did not have; :func:`nearest_pass` blames one on the pass of
the closest edit.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


# --- diagnostics and the line map ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Diagnostic:
    """One lint or formatter failure in one file."""

    tool: str  # flake8, ruff, black, ruff-format
    code: str
    line: int
    col: int = 0
    message: str = ""

    def key(self) -> tuple[str, str]:
        """What must match on an unchanged line: the code and the message with its numbers blanked (a pyflakes message
        names the name; an ``F811 … from line 12`` moves with the lines above it)."""
        return self.code, re.sub(r"\d+", "N", self.message)


class LineMap:
    """Where each line of a migrated text came from in the original (``difflib`` over lines)."""

    def __init__(self, old: str, new: str) -> None:
        self.old_lines = old.splitlines()
        self.new_lines = new.splitlines()
        matcher = difflib.SequenceMatcher(None, self.old_lines, self.new_lines, autojunk=False)
        self.opcodes = matcher.get_opcodes()

    def origin(self, new_line: int) -> tuple[int, int | None]:
        """(hunk, original line) of 1-based ``new_line``: the original line when the line is unchanged (the hunk is
        then ``-1``), else ``None`` and the index of the changed hunk it lies in. Lines past the end map to the end."""
        j = min(max(new_line, 1), max(len(self.new_lines), 1)) - 1
        for index, (tag, i1, _i2, j1, j2) in enumerate(self.opcodes):
            # a line after a deletion is the unchanged line it is (a diagnostic the deletion causes on it, such as
            # E303, is new there all the same: the original line did not have it)
            if j1 <= j < j2:
                if tag == "equal":
                    return -1, i1 + (j - j1) + 1
                return index, None
        return -1, len(self.old_lines)

    def hunk_old_range(self, hunk: int) -> tuple[int, int]:
        """The original lines (1-based, inclusive start, exclusive end) a changed hunk replaced."""
        _tag, i1, i2, _j1, _j2 = self.opcodes[hunk]
        return i1 + 1, i2 + 1

    def old_line_of(self, new_line: int) -> int:
        """The original line for ``new_line``: itself when unchanged, else the first line of the hunk it lies in."""
        hunk, line = self.origin(new_line)
        if line is not None:
            return line
        return self.hunk_old_range(hunk)[0]

    def changed(self, new_line: int) -> bool:
        return self.origin(new_line)[1] is None


def new_failures(old: Sequence[Diagnostic], new: Sequence[Diagnostic], lines: LineMap) -> list[Diagnostic]:
    """The diagnostics of the migrated text that the original did not have.

    On an unchanged line, a diagnostic is old when the original had the same code and message on the line it came
    from. On a changed line, it is old when the original lines that hunk replaced had as many of that code."""
    on_line = Counter((d.line, d.key()) for d in old)
    per_hunk: dict[int, Counter[str]] = {}
    found = []
    for diagnostic in sorted(new, key=lambda d: (d.line, d.col, d.code)):
        hunk, line = lines.origin(diagnostic.line)
        if line is not None:
            slot = (line, diagnostic.key())
            if on_line[slot] > 0:
                on_line[slot] -= 1
                continue
            found.append(diagnostic)
            continue
        if hunk not in per_hunk:
            lo, hi = lines.hunk_old_range(hunk)
            per_hunk[hunk] = Counter(d.code for d in old if lo <= d.line < max(hi, lo + 1))
        if per_hunk[hunk][diagnostic.code] > 0:
            per_hunk[hunk][diagnostic.code] -= 1
            continue
        found.append(diagnostic)
    return found


def nearest_pass(old_line: int, edits: Sequence[dict[str, Any]]) -> str | None:
    """The pass of the edit closest to ``old_line`` (lines in the original file), the earlier one on a tie."""
    best: tuple[int, int, str] | None = None
    for edit in edits:
        candidate = (abs(int(edit["line"]) - old_line), int(edit["line"]), str(edit["pass_id"]))
        if best is None or candidate < best:
            best = candidate
    return best[2] if best else None


# --- lint and formatter runs --------------------------------------------------------------------------------------

_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<message>.*)$")


def parse_flake8(output: str) -> dict[str, list[Diagnostic]]:
    """flake8's default format (``path:line:col: CODE message``) → diagnostics per path (``./`` dropped)."""
    found: dict[str, list[Diagnostic]] = defaultdict(list)
    for line in output.splitlines():
        match = _FLAKE8_LINE.match(line)
        if match:
            path = norm_path(match["path"])
            found[path].append(Diagnostic("flake8", match["code"], int(match["line"]), int(match["col"]), match["message"]))
    return dict(found)


def parse_ruff(output: str, root: Path) -> dict[str, list[Diagnostic]]:
    """``ruff check --output-format json`` → diagnostics per path relative to ``root``."""
    found: dict[str, list[Diagnostic]] = defaultdict(list)
    for item in json.loads(output or "[]"):
        path = _relative(item["filename"], root)
        location = item.get("location") or {}
        code = item.get("code") or "syntax-error"
        found[path].append(
            Diagnostic("ruff", code, int(location.get("row", 0)), int(location.get("column", 0)), item.get("message", ""))
        )
    return dict(found)


def norm_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return norm_path(path)


def tool_path(name: str) -> str | None:
    """The executable ``name`` beside this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def _run(command: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _chunks(items: Sequence[str], size: int = 200) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


_FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")


def has_flake8_config(root: Path) -> bool:
    """Whether flake8, run in ``root``, reads a ``[flake8]`` section of the project's."""
    for name in _FLAKE8_FILES:
        path = root / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if re.search(r"^\[flake8\]", text, re.MULTILINE):
                return True
    return False


def configured_line_length(root: Path) -> int | None:
    """The line length the project's ruff, black or yapf configuration in ``root`` sets (the smallest when several
    do): what its formatter and linter enforce."""
    found = [n for n in (_ruff_line_length(root), *_black_yapf_line_lengths(root)) if n]
    return min(found) if found else None


def _toml_table(path: Path, *keys: str) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        table: Any = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return None
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else None


def _positive(value: object) -> int | None:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _ruff_line_length(root: Path) -> int | None:
    for table in (
        _toml_table(root / "ruff.toml"),
        _toml_table(root / ".ruff.toml"),
        _toml_table(root / "pyproject.toml", "tool", "ruff"),
    ):
        if table is not None:
            return _positive(table.get("line-length"))
    return None


def _black_yapf_line_lengths(root: Path) -> list[int | None]:
    out: list[int | None] = []
    black = _toml_table(root / "pyproject.toml", "tool", "black")
    if black is not None:
        out.append(_positive(black.get("line-length")))
    yapf = _toml_table(root / "pyproject.toml", "tool", "yapf")
    if yapf is not None:
        out.append(_positive(yapf.get("column_limit")))
    for name, section in ((".style.yapf", "style"), ("setup.cfg", "yapf")):
        path = root / name
        if path.is_file():
            match = re.search(
                rf"^\[{section}\][^\[]*?^column_limit\s*=\s*(\d+)",
                path.read_text(encoding="utf-8", errors="replace"),
                re.MULTILINE | re.DOTALL,
            )
            if match:
                out.append(int(match.group(1)))
    return out


def _length_option(flag: str, root: Path) -> list[str]:
    length = configured_line_length(root)
    return [f"{flag}={length}"] if length else []


def run_flake8(root: Path, files: Sequence[str], notes: list[str]) -> dict[str, list[Diagnostic]] | None:
    """flake8 on ``files`` (relative to ``root``) with the project's configuration (found from ``root``); on a
    configuration flake8 rejects, with its defaults (``--isolated``), and a note. A project with no flake8
    configuration of its own does not run flake8 with pycodestyle's 79 columns: its line length is the one its ruff or
    black configuration sets (:func:`configured_line_length`), which flake8 then gets (none set: flake8's default)."""
    exe = tool_path("flake8")
    if exe is None or not files:
        return None if exe is None else {}
    out: dict[str, list[Diagnostic]] = {}
    length = [] if has_flake8_config(root) else _length_option("--max-line-length", root)
    for chunk in _chunks(files):
        proc = _run([exe, "--format=default", "--exit-zero", *length, *chunk], root)
        if proc.returncode != 0 or "Traceback" in proc.stderr:
            note = f"{root.parent.name}: flake8 rejected the project's configuration ({proc.stderr.strip().splitlines()[-1:]}); used its defaults"
            if note not in notes:
                notes.append(note)
            isolated = _length_option("--max-line-length", root)
            proc = _run([exe, "--isolated", "--format=default", "--exit-zero", *isolated, *chunk], root)
        out.update(parse_flake8(proc.stdout))
    return out


def run_ruff(root: Path, files: Sequence[str], notes: list[str]) -> dict[str, list[Diagnostic]] | None:
    """``ruff check --select E,F,I`` on ``files``: the project's ruff settings (line length, isort sections, ignores)
    apply, the rule families are these three; where ruff's configuration sets no line length, the one black or yapf
    is configured with. On a configuration this ruff rejects: its defaults (``--isolated``) but the project's
    configured line length, with a note."""
    exe = tool_path("ruff")
    if exe is None or not files:
        return None if exe is None else {}
    out: dict[str, list[Diagnostic]] = {}
    base = [exe, "check", "--select", "E,F,I", "--output-format", "json", "--no-cache", "--exit-zero", "--no-fix"]
    if _ruff_line_length(root) is None:  # ruff's 88 is not the project's limit when its black or yapf sets another
        base += _length_option("--line-length", root)
    for chunk in _chunks(files):
        proc = _run([*base, *chunk], root)
        if proc.returncode != 0:
            note = f"{root.parent.name}: ruff rejected the project's configuration; used its defaults (--isolated)"
            if note not in notes:
                notes.append(note)
            length = [] if any(a.startswith("--line-length") for a in base) else _length_option("--line-length", root)
            proc = _run([*base, "--isolated", *length, *chunk], root)
        try:
            out.update(parse_ruff(proc.stdout, root))
        except ValueError:
            notes.append(f"{root.name}: ruff gave no JSON: {proc.stderr.strip()[-300:]}")
    return out


def configured_formatters(root: Path) -> dict[str, str]:
    """The formatters a project configures (``black``, ``ruff-format``) → where it says so."""
    found: dict[str, str] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tool = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace")).get("tool", {})
        except tomllib.TOMLDecodeError:
            tool = {}
        if "black" in tool:
            found["black"] = "[tool.black] in pyproject.toml"
        if isinstance(tool.get("ruff"), dict) and "format" in tool["ruff"]:
            found["ruff-format"] = "[tool.ruff.format] in pyproject.toml"
    for name in ("ruff.toml", ".ruff.toml"):
        path = root / name
        if path.is_file() and "ruff-format" not in found:
            try:
                if "format" in tomllib.loads(path.read_text(encoding="utf-8", errors="replace")):
                    found["ruff-format"] = f"[format] in {name}"
            except tomllib.TOMLDecodeError:
                pass
    for name in (".pre-commit-config.yaml", ".pre-commit-config.yml"):
        path = root / name
        if not path.is_file():
            continue
        hooks = _precommit_hooks(path.read_text(encoding="utf-8", errors="replace"))
        if hooks & {"black", "black-jupyter"} and "black" not in found:
            found["black"] = f"black hook in {name}"
        if "ruff-format" in hooks and "ruff-format" not in found:
            found["ruff-format"] = f"ruff-format hook in {name}"
    return found


def _precommit_hooks(text: str) -> set[str]:
    try:
        import yaml

        data = yaml.safe_load(text) or {}
        return {
            str(hook.get("id"))
            for repo in data.get("repos", []) or []
            for hook in repo.get("hooks", []) or []
            if isinstance(hook, dict)
        }
    except Exception:  # no pyyaml, or a file it cannot read: the ids as text
        return set(re.findall(r"^\s*-?\s*id:\s*['\"]?([\w\-]+)", text, re.MULTILINE))


def run_formatter(name: str, root: Path, files: Sequence[str]) -> dict[str, int | None] | None:
    """For each file the formatter would change: the first line it would change (``None`` when it does not say);
    files it accepts as they are are absent. ``None``: the formatter is not installed."""
    exe = tool_path("black" if name == "black" else "ruff")
    if exe is None:
        return None
    rejected: dict[str, int | None] = {}
    for chunk in _chunks(files):
        if name == "ruff-format":
            proc = _run([exe, "format", "--check", "--no-cache", "--output-format", "json", *chunk], root)
            try:
                for item in json.loads(proc.stdout or "[]"):
                    row = (item.get("location") or {}).get("row")
                    rejected.setdefault(_relative(item["filename"], root), int(row) if row else None)
                continue
            except ValueError:  # a ruff without JSON output for `format`: its text
                proc = _run([exe, "format", "--check", "--no-cache", *chunk], root)
                pattern = re.compile(r"^(?:Would reformat: |error: Failed to parse )(.+?)(?::\d+:\d+.*)?$", re.MULTILINE)
                text = proc.stdout + proc.stderr
        else:
            proc = _run([exe, "--check", *chunk], root)
            pattern = re.compile(r"^(?:would reformat|error: cannot format) (.+?)(?:: .*)?$", re.MULTILINE)
            text = proc.stderr
        for match in pattern.finditer(text):
            rejected.setdefault(_relative(match.group(1), root), None)
    return rejected


def formatter_first_line(name: str, root: Path, path: str) -> int:
    """The first line of ``path`` (1-based) that the formatter would change, from its ``--diff``."""
    exe = tool_path("black" if name == "black" else "ruff") or name
    command = [exe, "--diff", "-q", path] if name == "black" else [exe, "format", "--diff", "--no-cache", path]
    proc = _run(command, root)
    lines = proc.stdout.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^@@ -(\d+)", line)
        if not match:
            continue
        number = int(match.group(1))
        for body in lines[index + 1 :]:
            if body.startswith("-"):
                return number
            if body.startswith("@@"):
                break
            if not body.startswith("+"):
                number += 1
        return int(match.group(1))
    return 1
