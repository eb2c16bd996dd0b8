"""Do migrated files keep their project's lint and format? A small real-code check of style regressions.

    python benchmarks/stylecheck.py [--to 2.13] [--unsafe-fixes] [--keep DIR] REPO_DIR...

Each REPO_DIR is copied twice (``before/``, ``after/``); ``migrate`` rewrites ``after/`` in place (never the folder
given). For every Python file the migration changed, the same checks run on both copies, from the copy's root so that
the project's own configuration applies:

- ``flake8 --isolated`` (pyflakes + pycodestyle, the project's ``max-line-length`` when it sets one),
- ``ruff check --select E,F,I`` (with the project's ruff settings, when it has them),
- ``black --check`` / ``ruff format --check`` when the project configures that formatter.

A *regression* is a lint code reported more often after the migration than before, or a formatter that accepted the
file before and rejects it after. The tools are looked up on ``PATH`` (or ``--tools DIR``); a missing tool is skipped
and said so. Findings are counted per pass from the JSON report.
"""

from __future__ import annotations

import argparse
import collections
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_IGNORE = shutil.ignore_patterns(".git", ".torchmigrate_cache", "__pycache__", "*.pyc")


def _tool(name: str, tools: Path | None) -> str | None:
    if tools is not None and (tools / name).exists():
        return str(tools / name)
    return shutil.which(name)


def _pyproject(root: Path) -> dict[str, object]:
    try:
        return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _flake8_max_line_length(root: Path) -> int | None:
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(root / name, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        for section in ("flake8", "pycodestyle"):
            if parser.has_option(section, "max-line-length"):
                value = parser.get(section, "max-line-length").strip()
                if value.isdigit():
                    return int(value)
    return None


def _formatters(root: Path) -> set[str]:
    data = _pyproject(root)
    tool = data.get("tool", {})
    found = set()
    if isinstance(tool, dict):
        if "black" in tool:
            found.add("black")
        ruff = tool.get("ruff")
        if isinstance(ruff, dict) and "format" in ruff:
            found.add("ruff-format")
    precommit = root / ".pre-commit-config.yaml"
    if precommit.is_file():
        text = precommit.read_text(encoding="utf-8", errors="replace")
        if re.search(r"id:\s*black\b", text):
            found.add("black")
        if re.search(r"id:\s*ruff-format\b", text):
            found.add("ruff-format")
    return found


def _has_ruff_config(root: Path) -> bool:
    tool = _pyproject(root).get("tool", {})
    return (isinstance(tool, dict) and "ruff" in tool) or (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file()


def _run(cmd: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, check=False)


_FLAKE8_LINE = re.compile(r"^[^:]+:\d+:\d+: (?P<code>[A-Z]+\d+) (?P<msg>.*)$")


def _flake8(exe: str, root: Path, rel: str, max_len: int | None) -> collections.Counter[str]:
    cmd = [exe, "--isolated", rel]
    if max_len is not None:
        cmd.insert(2, f"--max-line-length={max_len}")
    out = _run(cmd, root).stdout
    found: collections.Counter[str] = collections.Counter()
    for line in out.splitlines():
        match = _FLAKE8_LINE.match(line)
        if match:
            found[f"{match['code']} {_general(match['msg'])}"] += 1
    return found


def _general(message: str) -> str:
    """A message without line-specific numbers, so that the same error before and after compares equal."""
    return re.sub(r"\(\d+ > \d+ characters\)|\d+", "#", message)


def _ruff(exe: str, root: Path, rel: str, project_config: bool, line_length: int | None) -> collections.Counter[str]:
    cmd = [exe, "check", "--select", "E,F,I", "--output-format", "json", "--no-fix", "--exit-zero"]
    if not project_config:
        cmd.append("--isolated")
        if line_length is not None:
            cmd += ["--line-length", str(line_length)]
    cmd.append(rel)
    out = _run(cmd, root).stdout
    found: collections.Counter[str] = collections.Counter()
    try:
        items = json.loads(out or "[]")
    except json.JSONDecodeError:
        return found
    for item in items:
        found[f"{item.get('code')} {_general(item.get('message', ''))}"] += 1
    return found


def _formatted(kind: str, tools: dict[str, str | None], root: Path, rel: str) -> bool | None:
    if kind == "black":
        exe = tools["black"]
        if exe is None:
            return None
        return _run([exe, "--check", "--quiet", rel], root).returncode == 0
    exe = tools["ruff"]
    if exe is None:
        return None
    return _run([exe, "format", "--check", "--quiet", rel], root).returncode == 0


def check_repo(repo: Path, args: argparse.Namespace, tools: dict[str, str | None], work: Path) -> dict[str, object]:
    before, after = work / "before", work / "after"
    shutil.copytree(repo, before, ignore=_IGNORE, symlinks=True)
    shutil.copytree(repo, after, ignore=_IGNORE, symlinks=True)
    report_file = work / "report.json"
    cmd = [args.migrate, "--to", args.to, "--no-cache", "--no-progress", "--format", "json", "--output-file", str(report_file), "."]
    if args.unsafe_fixes:
        cmd.insert(1, "--unsafe-fixes")
    done = _run(cmd, after)
    report = json.loads(report_file.read_text()) if report_file.is_file() else {"files": []}
    edits: collections.Counter[str] = collections.Counter()
    findings: collections.Counter[str] = collections.Counter()
    for entry in report.get("files", []):
        for e in entry.get("edits", []):
            edits[e["pass_id"]] += 1
        for f in entry.get("findings", []):
            findings[f["pass_id"]] += 1
    changed = []
    for path in sorted(after.rglob("*.py")):
        rel = path.relative_to(after).as_posix()
        old = before / rel
        if old.is_file() and old.read_bytes() != path.read_bytes():
            changed.append(rel)
    data = _pyproject(before)
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    assert isinstance(tool, dict)
    ruff_len = tool.get("ruff", {}).get("line-length") if isinstance(tool.get("ruff"), dict) else None
    black_len = tool.get("black", {}).get("line-length") if isinstance(tool.get("black"), dict) else None
    flake8_len = _flake8_max_line_length(before)
    max_len = flake8_len or ruff_len or black_len
    formatters = _formatters(before)
    ruff_config = _has_ruff_config(before)
    regressions: list[str] = []
    for rel in changed:
        checks: list[tuple[str, collections.Counter[str], collections.Counter[str]]] = []
        if tools["flake8"]:
            checks.append(("flake8", _flake8(tools["flake8"], before, rel, max_len), _flake8(tools["flake8"], after, rel, max_len)))
        if tools["ruff"]:
            length = ruff_len or black_len or flake8_len
            checks.append(
                ("ruff", _ruff(tools["ruff"], before, rel, ruff_config, length), _ruff(tools["ruff"], after, rel, ruff_config, length))
            )
        for name, old_found, new_found in checks:
            for key, count in new_found.items():
                if count > old_found.get(key, 0):
                    regressions.append(f"{rel}: {name} {key} ({old_found.get(key, 0)} → {count})")
        for kind in sorted(formatters):
            was, now = _formatted(kind, tools, before, rel), _formatted(kind, tools, after, rel)
            if was and now is False:
                regressions.append(f"{rel}: {kind} --check accepted the original, rejects the migrated file")
    return {
        "repo": repo.name,
        "exit": done.returncode,
        "stderr_tail": done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else [],
        "changed_files": len(changed),
        "edits": dict(edits),
        "findings": dict(findings),
        "formatters": sorted(formatters),
        "max_line_length": max_len,
        "regressions": regressions,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--to", default="2.13")
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--tools", type=Path, default=None, help="a folder holding flake8, black and ruff")
    parser.add_argument("--migrate", default=shutil.which("migrate") or "migrate")
    parser.add_argument("--keep", type=Path, default=None, help="keep the before/after copies under this folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    args = parser.parse_args(argv)
    tools = {name: _tool(name, args.tools) for name in ("flake8", "black", "ruff")}
    missing = [name for name, exe in tools.items() if exe is None]
    if missing:
        print(f"stylecheck: not found, skipped: {', '.join(missing)}", file=sys.stderr)
    results = []
    total = 0
    for repo in args.repos:
        base = args.keep / repo.name if args.keep is not None else Path(tempfile.mkdtemp(prefix="stylecheck-"))
        if base.exists() and args.keep is not None:
            shutil.rmtree(base)
        base.mkdir(parents=True, exist_ok=True)
        try:
            result = check_repo(repo.resolve(), args, tools, base)
        finally:
            if args.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        results.append(result)
        regressions = result["regressions"]
        assert isinstance(regressions, list)
        total += len(regressions)
        edits = sum(result["edits"].values()) if isinstance(result["edits"], dict) else 0
        findings = sum(result["findings"].values()) if isinstance(result["findings"], dict) else 0
        print(
            f"{result['repo']}: {result['changed_files']} files changed, {edits} edits, {findings} findings, "
            f"{len(regressions)} style regressions (formatters: {', '.join(result['formatters']) or 'none'}; "
            f"line length {result['max_line_length'] or 'default'})"
        )
        for line in regressions:
            print(f"  {line}")
        sys.stdout.flush()
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"total: {total} style regressions")
    return 1 if total else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
