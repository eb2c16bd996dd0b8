"""The real-code truth harness and benchmark: what `migrate` does to real repositories, and how fast.

    python benchmarks/realcode.py DIR...                    # each DIR: one repository (it is copied, never written)
    python benchmarks/realcode.py --corpus CORPUS --real-trees TREES --json out.json --markdown out.md

For each tree (a DIR, each repository of ``--corpus``, and with ``--real-trees`` the Python sources of the installed
torch and of torchvision/transformers wheels) the harness

- **benchmarks** (issue #13): reading the ``.py`` files, a one-process stdlib ``ast.parse`` of them (fastest of three, in a fresh process), a cold
  ``migrate --to T --diff --no-cache --jobs 2`` (the fastest of three under 20 s, else once) and a warm run (cache primed, then the
  fastest of three), their ratios, the funnel
  (files with a trigger word → files the ast precheck keeps → files edited) and the peak RSS of the timed runs;
- **checks the truth** (issue #12): on a copy, ``migrate --to T`` in write mode, once by default and once with
  ``--unsafe-fixes`` (when ``migrate --help`` offers it), then per pass: edits, findings, migrated files that gain a
  lint or formatter failure (flake8 — pyflakes and pycodestyle, with the project's flake8 configuration —, ``ruff
  check --select E,F,I`` with the project's ruff configuration, and ``black --check`` / ``ruff format --check`` when
  the project configures that formatter), outputs that no longer parse, and files a second run still changes. A new
  failure is a code on a line the original did not have (lines mapped through the diff); it is blamed on the pass of
  the nearest edit in that file;
- **proves resolution** (issue #14): every requirement set the migration changed is resolved before and after with
  ``pip install --dry-run --ignore-installed --report -`` (see ``reqsets.py``), and sets that resolved before and no
  longer do are counted.

Output: a summary on stdout, ``--markdown`` tables for the README and ``--json`` with every figure. The linters come
from the ``truth`` extra (``pip install -e '.[truth]'``); a missing one is skipped with a note.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import zipfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules: lintdiff, reqsets, corpus

import reqsets  # noqa: E402
from lintdiff import (  # noqa: E402
    Diagnostic,
    LineMap,
    configured_formatters,
    formatter_first_line,
    nearest_pass,
    new_failures,
    norm_path,
    run_flake8,
    run_formatter,
    run_ruff,
    tool_path,
)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DEFAULT_TO = "2.12"
CACHE_DIR = ".torchmigrate_cache"

# --- parsing the outputs ------------------------------------------------------------------------------------------


def parses(path: str, text: str) -> bool | None:
    """Does ``text`` parse as what ``path`` is? ``None``: a kind of file without a grammar to check."""
    suffix = Path(path).suffix
    name = Path(path).name
    try:
        if suffix == ".py":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        elif suffix == ".ipynb":
            json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
        elif name == "setup.cfg":
            configparser.ConfigParser(interpolation=None).read_string(text)
        elif suffix in (".yml", ".yaml"):
            import yaml

            yaml.safe_load(text)
        else:
            return None
    except ImportError:
        return None
    except Exception:
        return False
    return True


def notebook_cells_parse(old: str, new: str) -> list[int]:
    """The code cells (1-based, markdown counted) that parsed before and no longer do (IPython lines set aside)."""
    try:
        before, after = json.loads(old).get("cells", []), json.loads(new).get("cells", [])
    except (ValueError, AttributeError):
        return []

    def python(cell: dict[str, Any]) -> str | None:
        if cell.get("cell_type") != "code":
            return None
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if source.lstrip().startswith("%%"):
            return None
        return "\n".join("pass" if line.lstrip().startswith(("%", "!")) or line.rstrip().endswith("?") else line for line in source.splitlines())

    broken = []
    for number, (b, a) in enumerate(zip(before, after, strict=False), start=1):
        old_src, new_src = python(b), python(a)
        if old_src is None or new_src is None or old_src == new_src:
            continue
        if parses("cell.py", old_src) and not parses("cell.py", new_src):
            broken.append(number)
    return broken


# --- running migrate ----------------------------------------------------------------------------------------------


@dataclass
class Timed:
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float
    max_rss_mb: float
    cpu_s: float = 0.0  # user + system time of the child and the workers it waited for
    timed_out: bool = False


def migrate_command() -> list[str]:
    exe = tool_path("migrate")
    return [exe] if exe else [sys.executable, "-m", "torchmigrate"]


_LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - start
with os.fdopen(int(sys.argv[1]), "w") as report:
    json.dump({"seconds": seconds, "rss_kb": usage.ru_maxrss, "cpu_s": usage.ru_utime + usage.ru_stime}, report)
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""Runs one command and reports its wall time, CPU time and peak RSS on the pipe it is given. Linux keeps the
high-water RSS of the memory a process had before ``exec`` in its peak (``ru_maxrss``); a command started by this
harness directly, which holds every tree's results by then, reports the harness's own peak. Started by this small
process, it reports its own. (A pipe, not a file: a new file in a folder above the tree would change the project's
signature and miss the cache of its project reading.)"""


def run_timed(command: list[str], cwd: Path, timeout: float = 3600, env: dict[str, str] | None = None) -> Timed:
    """Run ``command`` (through :data:`_LAUNCHER`); its wall time, its CPU time and the peak RSS of the largest process
    of its tree (the command and the workers it waited for), as the launcher measures them."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        read_end, write_end = os.pipe()
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", _LAUNCHER, str(write_end), *command],
                cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=(write_end,),
                env=env,
            )
        finally:
            os.close(write_end)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, 9))
        timer.start()
        try:
            with os.fdopen(read_end) as pipe:
                reported = pipe.read()  # until the launcher exits (or is killed)
            proc.wait()
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        killed = seconds >= timeout
        out.seek(0)
        err.seek(0)
        usage = json.loads(reported) if reported else {"seconds": seconds, "rss_kb": 0, "cpu_s": 0.0}
        return Timed(proc.returncode, out.read(), err.read(), usage["seconds"], usage["rss_kb"] / 1024, usage["cpu_s"], killed)


def offers_unsafe_fixes() -> bool:
    proc = subprocess.run([*migrate_command(), "--help"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    return "--unsafe-fixes" in proc.stdout


def known_release(release: str | None) -> str:
    """``release`` for ``--from``, raised to the oldest release the tool knows (a ``torch==1.5`` pin is detected as
    1.5; every pass is newer than the oldest known release, so this selects the same passes)."""
    from torchmigrate.core.versions import OLDEST, VersionError, parse_version

    try:
        return str(max(parse_version(release, known_only=False), OLDEST)) if release else str(OLDEST)
    except VersionError:
        return str(OLDEST)


def read_report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def diff_paths(diff: bytes) -> set[str]:
    """The files a unified diff from ``migrate --diff`` changes."""
    return {line[6:].decode("utf-8", "replace").rstrip() for line in diff.splitlines() if line.startswith(b"+++ b/")}


# --- copies -------------------------------------------------------------------------------------------------------


def copy_tree(src: Path, dest: Path) -> Path:
    """A copy of ``src`` without its cache and git objects (an empty ``.git`` keeps the project root where it was)."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(CACHE_DIR, ".git"))
    if (src / ".git").exists():
        (dest / ".git").mkdir(exist_ok=True)
    return dest


def python_files(root: Path) -> list[Path]:
    """The ``.py`` files of ``root`` that ``migrate`` discovers (its own skips: hidden folders, venvs, .gitignore)."""
    from torchmigrate.run.files import discover

    return [p for p in discover([root]) if p.suffix == ".py"]


# --- one tree -----------------------------------------------------------------------------------------------------


@dataclass
class Config:
    to: str = DEFAULT_TO
    jobs: int = 2
    work: Path = Path(".")
    bench: bool = True
    truth: bool = True
    lint: bool = True
    resolve: bool = True
    unsafe: bool = False  # does migrate offer --unsafe-fixes
    resolve_timeout: float = 300
    migrate: list[str] = field(default_factory=lambda: migrate_command())
    pip_runner: reqsets.Runner = reqsets.run_pip
    index_note: str | None = None  # why resolution is skipped
    timeout: float = 3600  # seconds one migrate run may take
    notes: list[str] = field(default_factory=list)
    resolutions: dict[tuple[tuple[str, ...], tuple[str, ...]], reqsets.Resolution] = field(default_factory=dict)


# Cheap steps (the ast.parse, the warm run) are timed this many times and the fastest is kept; so is the cold run of a
# tree it takes less than COLD_REPEAT_BELOW_S for (a single sub-second run varied by a third between two benchmark
# runs on a busy machine); a longer cold run, once.
REPEAT = 3
COLD_REPEAT_BELOW_S = 20.0


_AST_TIMER = """
import ast, sys, time, warnings
texts = [open(p, "rb").read() for p in sys.stdin.read().splitlines()]
best = cpu = float("inf")
for _ in range(int(sys.argv[1])):
    start, cpu_start = time.perf_counter(), time.process_time()
    unparsable = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in texts:
            try:
                ast.parse(data)
            except (SyntaxError, ValueError):
                unparsable += 1
    best = min(best, time.perf_counter() - start)
    cpu = min(cpu, time.process_time() - cpu_start)
print(best, cpu, unparsable)
"""


def _time_ast_parse(paths: Sequence[Path]) -> tuple[float, float, int]:
    """(seconds, CPU seconds, files that do not parse) of the stdlib ``ast.parse`` of ``paths``, the fastest of
    :data:`REPEAT`, in a fresh Python process: what this process has loaded and keeps (the tool's passes, its caches,
    earlier trees' results) would slow the parser's allocations and the collector, and flatter the ratios."""
    done = subprocess.run(
        [sys.executable, "-c", _AST_TIMER, str(REPEAT)],
        input="\n".join(str(p) for p in paths),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, cpu, unparsable = done.stdout.split()
    return float(seconds), float(cpu), int(unparsable)


def benchmark_reading(root: Path, to: str) -> dict[str, Any]:
    """Read, ``ast.parse`` (one process) and the funnel, in this process."""
    from torchmigrate.api import make_options
    from torchmigrate.python.precheck import relevant_passes
    from torchmigrate.python.triggers import bytes_trigger_regex
    from torchmigrate.run.plan import root_options

    paths = python_files(root)
    start = time.perf_counter()
    texts = [p.read_bytes() for p in paths]
    t_read = time.perf_counter() - start
    t_ast, cpu_ast, unparsable = _time_ast_parse(paths)
    options = root_options(root, make_options(to), detect_from=True)
    passes = options.passes()
    regex = bytes_trigger_regex(passes)
    triggered = [data for data in texts if regex.search(data)]
    kept = 0
    for data in triggered:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            kept += 1  # the engine decides on such a file; count it in play
            continue
        kept += bool(relevant_passes(text, passes))
    return {
        "py_files": len(paths),
        "bytes": sum(len(t) for t in texts),
        "lines": sum(t.count(b"\n") for t in texts),
        "read_s": t_read,
        "ast_s": t_ast,
        "ast_cpu_s": cpu_ast,
        "ast_unparsable": unparsable,
        "from": str(options.from_),
        "passes": len(passes),
        "funnel": {"py_files": len(paths), "trigger_word": len(triggered), "precheck_keeps": kept},
    }


def lint_regressions(
    pristine: Path, migrated: Path, files: Sequence[str], edits: dict[str, list[dict[str, Any]]], notes: list[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """New lint/formatter failures of the migrated ``files`` against their originals, each blamed on a pass."""
    found: list[dict[str, Any]] = []
    checked: dict[str, Any] = {"files": len(files), "tools": []}
    if not files:
        return found, checked
    texts = {f: ((pristine / f).read_text(encoding="utf-8", errors="replace"), (migrated / f).read_text(encoding="utf-8", errors="replace")) for f in files}
    maps = {f: LineMap(*texts[f]) for f in files}

    def blame(path: str, diagnostic: Diagnostic, kind: str) -> None:
        old_line = maps[path].old_line_of(diagnostic.line)
        file_edits = edits.get(path, [])
        found.append(
            {
                "class": kind,
                "file": path,
                "tool": diagnostic.tool,
                "code": diagnostic.code,
                "line": diagnostic.line,
                "original_line": old_line,
                "message": diagnostic.message,
                "source": maps[path].new_lines[diagnostic.line - 1] if 0 < diagnostic.line <= len(maps[path].new_lines) else "",
                "passes": sorted({str(e["pass_id"]) for e in file_edits}),
                "pass": nearest_pass(old_line, file_edits),
            }
        )

    for tool, runner in (("flake8", run_flake8), ("ruff", run_ruff)):
        before = runner(pristine, files, notes)
        if before is None:
            notes.append(f"{tool} is not installed: its lint check was skipped (pip install -e '.[truth]')")
            continue
        after = runner(migrated, files, notes) or {}
        checked["tools"].append(tool)
        for path in files:
            for diagnostic in new_failures(before.get(path, []), after.get(path, []), maps[path]):
                blame(path, diagnostic, "lint")
    formatters = configured_formatters(pristine)
    checked["formatters"] = formatters
    for name in formatters:
        before = run_formatter(name, pristine, files)
        if before is None:
            notes.append(f"{pristine.name}: {name} is configured but not installed: its check was skipped")
            continue
        accepted = [f for f in files if f not in before]
        after = run_formatter(name, migrated, accepted) or {}
        checked["tools"].append(name)
        checked.setdefault("formatted_originals", {})[name] = len(accepted)
        for path, line in after.items():
            if line is None:
                line = formatter_first_line(name, migrated, path)
            blame(path, Diagnostic(name, "would-reformat", line, 0, f"{name} accepted the original, not the migrated file"), "format")
    return found, checked


def truth_run(name: str, pristine: Path, copy: Path, cfg: Config, unsafe: bool) -> dict[str, Any]:
    """Migrate ``copy`` in write mode, run it again, and compare what changed with ``pristine``."""
    report_path = cfg.work / f"{name}.{'unsafe' if unsafe else 'default'}.json"
    base = [*cfg.migrate, "--to", cfg.to, "--no-progress", "--color", "never", "--jobs", str(cfg.jobs)]
    flags = ["--unsafe-fixes"] if unsafe else []
    first = run_timed([*base, *flags, "--report", str(report_path), "."], copy, cfg.timeout)
    if first.timed_out:
        return {"error": f"the write run did not finish within {cfg.timeout:.0f} s"}
    if first.returncode not in (0, 1, 2) or not report_path.exists():
        return {"error": f"migrate exited {first.returncode}: {first.stderr.decode(errors='replace')[-1500:]}"}
    report = read_report(report_path)
    repo = (report.get("repos") or [{}])[0]
    files = [f for f in report["files"]]
    changed = [norm_path(f["path"]) for f in files if f.get("changed")]
    edits = {norm_path(f["path"]): f.get("edits", []) for f in files if f.get("edits")}
    per_pass: dict[str, Counter[str]] = defaultdict(Counter)
    for f in files:
        for e in f.get("edits", []):
            per_pass[e["pass_id"]]["edits"] += 1
        for x in f.get("findings", []):
            per_pass[x["pass_id"]]["findings"] += 1
    failures: list[dict[str, Any]] = []
    second_error: list[str] | None = None

    # outputs that do not parse
    for path in changed:
        old = (pristine / path).read_text(encoding="utf-8", errors="replace")
        new = (copy / path).read_text(encoding="utf-8", errors="replace")
        passes = sorted({e["pass_id"] for e in edits.get(path, [])})
        if parses(path, old) and parses(path, new) is False:
            failures.append({"class": "unparsable", "file": path, "passes": passes, "pass": passes[0] if passes else None})
        elif path.endswith(".ipynb"):
            for cell in notebook_cells_parse(old, new):
                failures.append({"class": "unparsable", "file": path, "cell": cell, "passes": passes, "pass": passes[0] if passes else None})

    # a second run over the migrated tree, from the same release as the first (the moved pin would otherwise
    # raise --from and hide a pass that is not idempotent)
    second_path = cfg.work / f"{name}.{'unsafe' if unsafe else 'default'}.second.json"
    second = run_timed([*base, *flags, "--from", known_release(repo.get("from")), "--diff", "--report", str(second_path), "."], copy)
    if second_path.exists():
        for f in read_report(second_path)["files"]:
            if f.get("changed"):
                path = norm_path(f["path"])
                again = sorted({e["pass_id"] for e in f.get("edits", [])})
                failures.append(
                    {
                        "class": "second-run",
                        "file": path,
                        "passes": again,
                        "pass": again[0] if again else None,
                        "first_run_passes": sorted({e["pass_id"] for e in edits.get(path, [])}),
                        "edits": f.get("edits", [])[:5],
                    }
                )
    else:
        second_error = second.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {second.returncode}"]
        cfg.notes.append(f"{name}: the second run failed (exit {second.returncode}): {second_error[0][:300]}")

    lint: dict[str, Any] = {}
    if cfg.lint:
        python = [p for p in changed if p.endswith(".py")]
        found, lint = lint_regressions(pristine, copy, python, edits, cfg.notes)
        failures += found

    resolution = resolve_changes(pristine, copy, changed, edits, cfg) if cfg.resolve else {}
    failures += [
        {"class": "no-longer-resolves", "file": c["file"], "set": c["label"], "passes": c["passes"], "pass": c["passes"][0] if c["passes"] else None,
         "before": c["before"], "after": c["after"]}
        for c in resolution.get("changes", [])
        if c["regression"]
    ]
    for failure in failures:
        if failure.get("pass"):
            per_pass[failure["pass"]][failure["class"]] += 1
    return {
        "from": repo.get("from"),
        "seconds": first.seconds,
        "second_run_s": second.seconds,
        "second_run_error": second_error[0] if second_error else None,
        "max_rss_mb": first.max_rss_mb,
        "exit": first.returncode,
        "files": len(files),
        "changed": len(changed),
        "changed_files": changed,
        "edits": sum(len(v) for v in edits.values()),
        "findings": sum(len(f.get("findings", [])) for f in files),
        "errors": sum(1 for f in files if f.get("error")),
        "per_pass": {k: dict(v) for k, v in sorted(per_pass.items())},
        "lint": lint,
        "resolution": {k: v for k, v in resolution.items() if k != "changes"} | {"changes": resolution.get("changes", [])},
        "failures": failures,
    }


def resolve_changes(
    pristine: Path, copy: Path, changed: Sequence[str], edits: dict[str, list[dict[str, Any]]], cfg: Config
) -> dict[str, Any]:
    """Resolve every requirement set the migration changed, before and after."""

    def reader(root: Path) -> reqsets.Reader:
        def read(path: str) -> str | None:
            target = root / path
            try:
                return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None
            except OSError:
                return None

        return read

    changes = []
    for path in changed:
        if reqsets.file_kind(path) is None:
            continue
        old = reader(pristine)(path) or ""
        new = reader(copy)(path) or ""
        changes += reqsets.changed_sets(path, old, new, reader(pristine), reader(copy))
    out: dict[str, Any] = {"sets_changed": len(changes), "checked": 0, "regressions": 0, "note": cfg.index_note, "changes": []}
    for change in changes:
        passes = sorted({str(e["pass_id"]) for e in edits.get(change.file, [])})
        record: dict[str, Any] = {"file": change.file, "label": change.label, "passes": passes, "regression": False}
        record["before_set"] = change.before.to_dict() if change.before else None
        record["after_set"] = change.after.to_dict() if change.after else None
        if cfg.index_note is not None:
            record["before"] = record["after"] = {"status": reqsets.SKIPPED, "detail": cfg.index_note}
        else:
            results = []
            for reqset in (change.before, change.after):
                if reqset is None:
                    results.append(reqsets.Resolution(reqsets.SKIPPED, "no such set"))
                    continue
                if reqset.key not in cfg.resolutions or reqset.skipped:
                    cfg.resolutions[reqset.key] = reqsets.resolve(reqset, cfg.resolve_timeout, cfg.pip_runner)
                results.append(cfg.resolutions[reqset.key])
            record["before"], record["after"] = results[0].to_dict(), results[1].to_dict()
            if results[0].status == reqsets.RESOLVES and results[1].status in (reqsets.RESOLVES, reqsets.FAILS):
                out["checked"] += 1
            record["regression"] = results[0].status == reqsets.RESOLVES and results[1].status == reqsets.FAILS
            out["regressions"] += record["regression"]
        out["changes"].append(record)
    return out


def study(name: str, src: Path, cfg: Config) -> dict[str, Any]:
    """Benchmark and check one tree."""
    print(f"== {name}", flush=True)
    began = time.perf_counter()
    slug = re.sub(r"[^\w.\-]+", "__", name)
    base = cfg.work / slug
    shutil.rmtree(base, ignore_errors=True)
    pristine = copy_tree(src, base / "pristine")
    out: dict[str, Any] = {"name": name, "path": str(src)}
    bench: dict[str, Any] = benchmark_reading(pristine, cfg.to)
    out.update({k: bench.pop(k) for k in ("py_files", "bytes", "lines", "from", "passes")})
    migrate = [*cfg.migrate, "--to", cfg.to, "--diff", "--no-progress", "--color", "never", "--jobs", str(cfg.jobs)]
    diff_changed: set[str] | None = None
    if cfg.bench:
        cold = run_timed([*migrate, "--no-cache", "."], pristine, cfg.timeout)
        if cold.timed_out:
            cfg.notes.append(f"{name}: the cold run did not finish within {cfg.timeout:.0f} s (load average {os.getloadavg()[0]:.1f}): no figures")
            out.update({"bench": None, "runs": {}, "seconds": time.perf_counter() - began})
            shutil.rmtree(base, ignore_errors=True)
            return out
        diff_changed = diff_paths(cold.stdout)
        first = cold
        if cold.seconds < COLD_REPEAT_BELOW_S:  # the fastest of three, as for the ast.parse it is compared with
            again = [run_timed([*migrate, "--no-cache", "."], pristine, cfg.timeout) for _ in range(REPEAT - 1)]
            cold = min([cold, *(r for r in again if not r.timed_out)], key=lambda run: run.seconds)
        bench["cold_first_s"] = first.seconds
        bench.update({"cold_s": cold.seconds, "cold_cpu_s": cold.cpu_s, "cold_rss_mb": cold.max_rss_mb, "cold_exit": cold.returncode})
        print(f"   cold {cold.seconds:.1f} s, ast.parse {bench['ast_s']:.2f} s", flush=True)
    runs: dict[str, Any] = {}
    if cfg.truth:
        migrated = copy_tree(src, base / "default")
        runs["default"] = truth_run(slug, pristine, migrated, cfg, unsafe=False)
        print(f"   default: {runs['default'].get('edits')} edits, {len(runs['default'].get('failures', []))} failures", flush=True)
        if cfg.bench:  # the write run primed the cache for the same bytes and options: the warm run reads it
            from torchmigrate.run.cache import project_root

            primed = project_root(migrated) / CACHE_DIR
            if primed.is_dir():
                shutil.copytree(primed, project_root(pristine) / CACHE_DIR, dirs_exist_ok=True)
        if cfg.unsafe:
            runs["unsafe"] = truth_run(slug, pristine, copy_tree(src, base / "unsafe"), cfg, unsafe=True)
        else:
            runs["unsafe"] = None
    if cfg.bench:
        if not (pristine / CACHE_DIR).exists():
            run_timed([*migrate, "."], pristine)  # prime the cache
        warm = min((run_timed([*migrate, "."], pristine) for _ in range(REPEAT)), key=lambda run: run.seconds)
        bench.update({"warm_s": warm.seconds, "warm_cpu_s": warm.cpu_s, "warm_rss_mb": warm.max_rss_mb})
        # the same re-run with the replay of unchanged runs off: what the per-file cache alone costs (one file edited)
        per_file = {**os.environ, "TORCHMIGRATE_NO_REPLAY": "1"}
        files_warm = min((run_timed([*migrate, "."], pristine, env=per_file) for _ in range(REPEAT)), key=lambda r: r.seconds)
        bench["warm_files_s"] = files_warm.seconds
        bench["warm_same_output"] = warm.stdout == files_warm.stdout and warm.returncode == files_warm.returncode
        if not bench["warm_same_output"]:
            cfg.notes.append(f"{name}: the replayed warm run printed other than the run with the replay off")
        bench["cold_over_ast"] = bench["cold_s"] / bench["ast_s"] if bench["ast_s"] else None
        bench["cold_cpu_over_ast_cpu"] = bench["cold_cpu_s"] / bench["ast_cpu_s"] if bench["ast_cpu_s"] else None
        bench["load_average"] = os.getloadavg()[0]
        bench["warm_over_cold"] = bench["warm_s"] / bench["cold_s"] if bench["cold_s"] else None
        bench["peak_rss_mb"] = max(bench["cold_rss_mb"], bench["warm_rss_mb"])
        if diff_changed is not None:
            bench["funnel"]["edited"] = sum(1 for p in diff_changed if p.endswith(".py"))
            bench["diff_changed"] = len(diff_changed)
            written = set(runs.get("default", {}).get("changed_files", []) if runs.get("default") else [])
            if runs.get("default") and written != diff_changed:
                cfg.notes.append(f"{name}: --diff and write mode changed different files: {sorted(written ^ diff_changed)[:5]}")
    out["bench"] = bench if cfg.bench else None
    out["runs"] = runs
    out["seconds"] = time.perf_counter() - began
    shutil.rmtree(base, ignore_errors=True)
    return out


# --- real trees ---------------------------------------------------------------------------------------------------


def prepare_real_trees(dest: Path, torchvision: str, transformers: str) -> list[tuple[str, Path]]:
    """The installed torch's Python sources, and torchvision/transformers sources from their wheels (``pip download
    --no-deps``, unzipped; never imported)."""
    from importlib import metadata
    from importlib.util import find_spec

    dest.mkdir(parents=True, exist_ok=True)
    trees = []
    version = metadata.version("torch").split("+")[0]
    spec = find_spec("torch")  # finds the package without importing it
    torch_tree = dest / f"torch-{version}"
    if not torch_tree.exists() and spec is not None and spec.submodule_search_locations:
        package = Path(list(spec.submodule_search_locations)[0])
        for path in package.rglob("*.py"):
            target = torch_tree / "torch" / path.relative_to(package)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    if torch_tree.exists():
        trees.append((torch_tree.name, torch_tree))
    wheels = dest / "wheels"
    for name, pinned in (("torchvision", torchvision), ("transformers", transformers)):
        tree = dest / f"{name}-{pinned}"
        if not tree.exists():
            wheels.mkdir(exist_ok=True)
            env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", f"{name}=={pinned}", "-d", str(wheels)],
                check=False, env=env,
            )
            found = sorted(wheels.glob(f"{name}-{pinned}-*.whl"))
            if not found:
                print(f"cannot download {name}=={pinned}: left out", file=sys.stderr)
                continue
            with zipfile.ZipFile(found[0]) as wheel:
                wheel.extractall(tree)
        trees.append((tree.name, tree))
    return trees


# --- the tables ---------------------------------------------------------------------------------------------------


def _f(value: float | None, digits: int = 1, suffix: str = "") -> str:
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _bench_row(name: str, files: int, size: int, b: dict[str, Any]) -> str:
    funnel = b["funnel"]
    warm = _ratio(b.get("warm_s"), b.get("cold_s"))
    return (
        f"| {name} | {files} | {size / 1e6:.1f} | {_f(b['read_s'], 2, ' s')} | {_f(b['ast_s'], 2, ' s')} | "
        f"{_f(b.get('cold_s'), 1, ' s')} | {_f(_ratio(b.get('cold_s'), b['ast_s']), 1, '×')} | "
        f"{_f(_ratio(b.get('cold_cpu_s'), b.get('ast_cpu_s')), 1, '×')} | {_f(b.get('warm_s'), 2, ' s')} | "
        f"{_f(None if warm is None else 100 * warm, 0, '%')} | {_f(b.get('warm_files_s'), 2, ' s')} | "
        f"{_f(b.get('peak_rss_mb'), 0, ' MB')} | "
        f"{funnel['trigger_word']} → {funnel['precheck_keeps']} → {funnel.get('edited', '—')} |"
    )


def bench_table(trees: Sequence[dict[str, Any]]) -> str:
    """The real-code benchmark: one row per tree and a total."""
    rows = [
        "| tree | .py files | MB | read | ast.parse | cold `--diff` | cold / ast | CPU: cold / ast | warm | warm / cold "
        "| warm, files cached | peak RSS | funnel: trigger word → precheck keeps → edited |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    timed = [t for t in trees if t.get("bench") and t["bench"].get("cold_s") is not None]
    for tree in timed:
        rows.append(_bench_row(tree["name"], tree["py_files"], tree["bytes"], tree["bench"]))
    if len(timed) > 1:
        total: dict[str, Any] = {"funnel": Counter()}
        for tree in timed:
            b = tree["bench"]
            for key in ("read_s", "ast_s", "ast_cpu_s", "cold_s", "cold_cpu_s", "warm_s", "warm_files_s"):
                total[key] = total.get(key, 0.0) + (b.get(key) or 0.0)
            total["peak_rss_mb"] = max(total.get("peak_rss_mb", 0.0), b.get("peak_rss_mb") or 0.0)
            total["funnel"].update(b["funnel"])
        rows.append(_bench_row("**all**", sum(t["py_files"] for t in timed), sum(t["bytes"] for t in timed), total))
    return "\n".join(rows)


def _failures(run: dict[str, Any] | None, kind: str) -> str:
    found = [f for f in (run or {}).get("failures", []) if f["class"] == kind]
    if not found:
        return "0"
    files = len({f["file"] for f in found})
    return f"{len(found)} ({files} file{'s' if files > 1 else ''})" if kind in ("lint", "format") else str(len(found))


def truth_table(trees: Sequence[dict[str, Any]], unsafe: bool) -> str:
    """The truth harness, one row per repository (default run; edits with ``--unsafe-fixes`` beside)."""
    rows = [
        "| repository | from | files changed | edits | findings | edits with `--unsafe-fixes` | new lint failures | new format "
        "failures | unparsable | second run changes | requirement sets changed / checked / stop resolving |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for tree in trees:
        run = tree["runs"].get("default")
        if not run:
            continue
        if "error" in run:
            rows.append(f"| {tree['name']} | error: {run['error'][:100]} |||||||||")
            continue
        other = tree["runs"].get("unsafe")
        res = run.get("resolution") or {}
        sets = f"{res.get('sets_changed', 0)} / {res.get('checked', 0)} / {res.get('regressions', 0)}" if res else "—"
        rows.append(
            f"| {tree['name']} | {run['from']} | {run['changed']} | {run['edits']} | {run['findings']} | "
            f"{other['edits'] if other and 'edits' in other else ('n/a' if not unsafe else '—')} | {_failures(run, 'lint')} | "
            f"{_failures(run, 'format')} | {_failures(run, 'unparsable')} | "
            f"{'migrate failed' if run.get('second_run_error') else _failures(run, 'second-run')} | {sets} |"
        )
    return "\n".join(rows)


def pass_table(trees: Sequence[dict[str, Any]]) -> str:
    """Per pass, over every tree: edits, findings, and the failures blamed on it."""
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for tree in trees:
        for column in ("default", "unsafe"):
            run = tree["runs"].get(column)
            if not run or "error" in run:
                continue
            for pass_id, counts in run["per_pass"].items():
                for key, value in counts.items():
                    totals[pass_id][key if column == "default" else f"unsafe {key}"] += value
    rows = [
        "| pass | edits | findings | edits with `--unsafe-fixes` | new lint failures | new format failures | unparsable | "
        "second run changes | requirement sets that stop resolving |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for pass_id, c in sorted(totals.items(), key=lambda item: (-item[1]["edits"], -item[1]["findings"], item[0])):
        rows.append(
            f"| `{pass_id}` | {c['edits']} | {c['findings']} | {c['unsafe edits'] if 'unsafe edits' in c else '—'} | {c['lint']} | "
            f"{c['format']} | {c['unparsable']} | {c['second-run']} | {c['no-longer-resolves']} |"
        )
    return "\n".join(rows)


def failure_table(trees: Sequence[dict[str, Any]]) -> str:
    """The failures grouped by class, pass and code, with a count and the first place each was seen."""
    groups: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for tree in trees:
        for column in ("default", "unsafe"):
            for f in (tree["runs"].get(column) or {}).get("failures", []):
                code = f.get("code") or f.get("set") or ""
                where = f"{tree['name']}/{f['file']}" + (f":{f['line']}" if f.get("line") else "")
                groups[(column, f["class"], f.get("pass") or "?", code)].append(where)
    if not groups:
        return ""
    rows = ["| run | failure | pass (nearest edit) | code | count | first seen |", "|---|---|---|---|---:|---|"]
    for (column, kind, pass_id, code), places in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1], -len(item[1]))):
        rows.append(f"| {column} | {kind} | `{pass_id}` | {code} | {len(places)} | {places[0]} |")
    return "\n".join(rows)


def markdown(result: dict[str, Any]) -> str:
    trees = result["trees"]
    load = result.get("load") or []
    parts = [
        f"Measured on {result['date']} on a {result['machine']['cpus']}-core machine (Python {result['machine']['python']}"
        + (f"; load average {load[0]:.1f} at the start, {load[-1]:.1f} at the end" if load else "")
        + f"), `--to {result['to']}`, `--jobs {result['jobs']}`: {result['command']}",
        "",
        bench_table(trees),
        "",
        truth_table(trees, result["unsafe_fixes_available"]),
        "",
        pass_table(trees),
    ]
    failures = failure_table(trees)
    if failures:
        parts += ["", failures]
    if result["notes"]:
        parts += ["", *[f"- {n}" for n in result["notes"]]]
    return "\n".join(parts) + "\n"


# --- main ---------------------------------------------------------------------------------------------------------


def corpus_trees(corpus: Path) -> list[tuple[str, Path]]:
    """The repositories of ``corpus`` that ``benchmarks/corpus.json`` names (``OWNER__NAME`` folders), in its order."""
    import corpus as corpus_manifest

    trees = []
    for entry in corpus_manifest.load_manifest():
        folder = corpus / entry.folder
        if folder.is_dir():
            trees.append((entry.repo, folder))
        else:
            print(f"{entry.repo}: not in {corpus} (python benchmarks/corpus.py rebuild {corpus})", file=sys.stderr)
    return trees


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the real-code truth harness and benchmark")
    parser.add_argument("dirs", nargs="*", type=Path, help="repositories to study (copied; never written)")
    parser.add_argument("--corpus", type=Path, help="a folder rebuilt by benchmarks/corpus.py: study each repository")
    parser.add_argument("--real-trees", type=Path, help="prepare (if missing) and study the torch/torchvision/transformers sources here")
    parser.add_argument("--torchvision", default="0.28.0")
    parser.add_argument("--transformers", default="5.24.0")
    parser.add_argument("--to", default=DEFAULT_TO, help=f"migrate --to (default {DEFAULT_TO})")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma-separated parts to run: bench, truth, lint, resolve (default: all)")
    parser.add_argument("--resolve-timeout", type=float, default=300, help="seconds for one pip resolution (default 300)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds one migrate run may take (default 3600)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--markdown", type=Path, help="write the tables here")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temporary folder, removed after)")
    args = parser.parse_args(argv)

    trees: list[tuple[str, Path]] = [(d.resolve().name, d.resolve()) for d in args.dirs]
    if args.corpus:
        trees += corpus_trees(args.corpus)
    if args.real_trees:
        trees += prepare_real_trees(args.real_trees, args.torchvision, args.transformers)
    if not trees:
        parser.error("name at least one DIR, --corpus or --real-trees")
    parts = {p.strip() for p in (args.only or "bench,truth,lint,resolve").split(",")}
    unknown = parts - {"bench", "truth", "lint", "resolve"}
    if unknown:
        parser.error(f"unknown part(s) {', '.join(sorted(unknown))}: use bench, truth, lint, resolve")
    work = args.work or Path(tempfile.mkdtemp(prefix="torchmigrate-realcode-"))
    work.mkdir(parents=True, exist_ok=True)
    # The tool runs as installed: with its bytecode cached (pip compiles it at install; an editable install writes it
    # on the first run). Without this, an environment that sets PYTHONDONTWRITEBYTECODE makes every timed run compile
    # the tool's modules again, about a tenth of a second per process.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([*migrate_command(), "--version"], capture_output=True, check=False)
    cfg = Config(
        to=args.to, jobs=args.jobs, work=work.resolve(), bench="bench" in parts, truth=bool(parts & {"truth", "lint", "resolve"}),
        lint="lint" in parts, resolve="resolve" in parts, unsafe=offers_unsafe_fixes(), resolve_timeout=args.resolve_timeout,
        timeout=args.timeout,
    )
    if not cfg.unsafe:
        cfg.notes.append("`migrate --help` offers no --unsafe-fixes: the unsafe column is skipped")
    if cfg.resolve:
        cfg.index_note = reqsets.index_reachable()
        if cfg.index_note:
            cfg.notes.append(f"the package index is not reachable ({cfg.index_note[:200]}): requirement sets are not resolved")
    started = time.perf_counter()
    load = [os.getloadavg()[0]]
    results = []
    names = Counter(name for name, _ in trees)
    from torchmigrate.core.about import __version__

    def summary() -> dict[str, Any]:
        return {
            "date": date.today().isoformat(),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
            "tool": {"version": __version__},
            "to": cfg.to,
            "jobs": cfg.jobs,
            "command": "`python benchmarks/realcode.py " + " ".join(argv if argv is not None else sys.argv[1:]) + "`",
            "unsafe_fixes_available": cfg.unsafe,
            "seconds": time.perf_counter() - started,
            "load": [*load, os.getloadavg()[0]],
            "notes": cfg.notes,
            "trees": results,
        }

    for name, path in trees:
        label = name if names[name] == 1 else f"{name} ({path})"
        results.append(study(label, path, cfg))
        if args.json:  # after each tree, so that a long run can be read while it goes on
            args.json.write_text(json.dumps(summary(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    result = summary()
    text = markdown(result)
    print(text)
    print(f"harness time: {result['seconds']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
