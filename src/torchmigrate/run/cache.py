"""The result cache: a re-run over an unchanged tree reads each file, hashes it, and parses nothing.

Where: ``.torchmigrate_cache/`` in the *project root* of each PATH — the top of the git work tree it lies in, else the
first folder upwards holding a ``pyproject.toml``, else the PATH itself (its folder, for a file). The folder writes its
own ``.gitignore`` (``*``), so it never shows up in ``git status``; discovery skips it like any hidden folder.

What: one SQLite table, one row per (file path relative to the root, options fingerprint), holding the SHA-256 of
(tool fingerprint, options fingerprint, the file's bytes) and the result. A row is used only when that hash matches, so
a cached "no change" is valid only for the same bytes, the same options (target, start release, pass set, unsafe
fixes, support floor) and the same tool: its fingerprint covers the torchmigrate version, the source of every module
and pass, libcst's version and the Python version. The fingerprint itself (a hash of the tool's sources) is kept in
the cache beside the tool's *stamp* — the path, size and modification time of each of its source files, what Python
checks before it reuses their bytecode — and computed again only when the stamp changes. Keying rows by path keeps the
cache as large as the tree (an edited file replaces its row).
A cache that cannot be opened or written is switched off for the run; a damaged row is a miss. Never wrong, at worst slow.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from functools import cache
from pathlib import Path
from typing import Any

from torchmigrate.core.paths import CACHE_DIR, project_root
from torchmigrate.core.registry import Options
from torchmigrate.core.results import Edit, FileResult, Finding, Fix
from torchmigrate.core.stamp import tool_stamp
from torchmigrate.core.stamp import versions as _versions
from torchmigrate.run.files import relative_posix

__all__ = ["CACHE_DIR", "ResultCache", "options_fingerprint", "project_root", "tool_fingerprint", "tool_stamp"]



@cache
def tool_fingerprint() -> str:
    """A hash of everything that decides a result: the tool's version and code, its passes, libcst, Python."""
    digest = hashlib.sha256(_versions().encode())
    package = Path(__file__).resolve().parents[1]  # the torchmigrate package, passes (codemods/) included
    for file in sorted(package.rglob("*.py")):
        digest.update(file.relative_to(package).as_posix().encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def options_fingerprint(options: Options) -> str:
    """The options that decide a result. The passes they select follow from them and from the tool's code (which
    :func:`tool_fingerprint` covers), so the pass registry is not loaded to compute this."""
    select = "*" if options.select is None else ",".join(sorted(options.select))
    ignore = ",".join(sorted(options.ignore))
    unsafe = "unsafe" if options.unsafe_fixes else "safe"
    floor = f"{options.project_floor or '-'}|{options.min_torch}|{options.min_torch_kind}|{options.min_torch_source}"
    layout = f"{options.layout.line_length}|{options.layout.formatter}"
    key = f"{options.to}|{options.from_}|{select}|{ignore}|{unsafe}|{floor}|{layout}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


@cache
def _key_prefix(tool_fp: str, options_fp: str) -> Any:
    digest = hashlib.sha256(tool_fp.encode())
    digest.update(options_fp.encode())
    return digest


def result_key(data: bytes, options_fp: str, tool_fp: str | None = None) -> str:
    """A file's cache key: a hash of the tool's fingerprint (``tool_fp``, else computed), the options and the file's
    bytes."""
    digest = _key_prefix(tool_fp or tool_fingerprint(), options_fp).copy()
    digest.update(data)
    return str(digest.hexdigest())


def encode_result(result: FileResult) -> str:
    """The cacheable part of a migration result (not its path, not whether it was written)."""
    return json.dumps(
        {
            "enc": result.encoding,
            "new": result.new if result.changed else None,
            "applied": result.passes_applied,
            "edits": [[e.line, e.col, e.pass_id, e.message, e.safety, e.note] for e in result.edits],
            "findings": [
                [f.line, f.col, f.pass_id, f.message, f.fix.to_dict() if f.fix is not None else None]
                for f in result.findings
            ],
            "error": result.error,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode_result(value: str, path: str, data: bytes) -> FileResult:
    raw: dict[str, Any] = json.loads(value)
    result = FileResult(
        path=path,
        encoding=raw["enc"],
        passes_applied=list(raw["applied"]),
        edits=[Edit(*e) for e in raw["edits"]],
        findings=[Finding(f[0], f[1], f[2], f[3], Fix.from_dict(f[4]) if f[4] is not None else None) for f in raw["findings"]],
        error=raw["error"],
    )
    if raw["new"] is not None:
        result.old = data.decode(result.encoding)
        result.new = raw["new"]
    return result


def make_cache_folder(folder: Path) -> None:
    """The cache folder, with the ``.gitignore`` that keeps it out of ``git status``; raises ``OSError``."""
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by torchmigrate: this folder is a cache\n*\n", encoding="utf-8")


class ResultCache:
    """One project root's cache. Use :meth:`get` / :meth:`put` from a single process; :meth:`close` commits."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root = os.path.abspath(root)
        self.folder = root / CACHE_DIR
        self._db: sqlite3.Connection | None = None
        self._failed = False
        self._pending = 0
        self._tool: str | None = None
        self.hits = 0
        self.misses = 0

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self._failed:
            return self._db
        try:
            make_cache_folder(self.folder)
            db = sqlite3.connect(self.folder / "results.sqlite3", timeout=10, isolation_level="DEFERRED")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS results (path TEXT, options TEXT, key TEXT, value TEXT, PRIMARY KEY (path, options))"
            )
            db.execute("CREATE TABLE IF NOT EXISTS tool (stamp TEXT PRIMARY KEY, fingerprint TEXT)")
            db.execute("CREATE TABLE IF NOT EXISTS projects (name TEXT PRIMARY KEY, signature TEXT, value TEXT)")
            self._db = db
        except (OSError, sqlite3.Error):
            self._failed = True
        return self._db

    def tool_fingerprint(self) -> str:
        """:func:`tool_fingerprint`, kept in this cache for the :func:`tool_stamp` it was computed at: computed again
        only when a source file of the tool (or its version, libcst's or Python's) changed since."""
        if self._tool is not None:
            return self._tool
        stamp = tool_stamp()
        db = self._connect()
        found = None
        if db is not None:
            try:
                row = db.execute("SELECT fingerprint FROM tool WHERE stamp = ?", (stamp,)).fetchone()
                found = row[0] if row is not None and isinstance(row[0], str) else None
            except sqlite3.Error:
                found = None
        if found is None:
            found = tool_fingerprint()
            if db is not None:
                try:
                    db.execute("DELETE FROM tool")  # one tool per cache: rows for other stamps are stale
                    db.execute("INSERT INTO tool VALUES (?, ?)", (stamp, found))
                except sqlite3.Error:
                    self._failed = True
        self._tool = found
        return found

    def project_get(self, name: str, signature: str) -> str | None:
        """The project reading kept under ``name`` (see :class:`~torchmigrate.run.plan.ProjectReads`) if it was read
        at ``signature``."""
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT signature, value FROM projects WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None or row[0] != signature or not isinstance(row[1], str):
            return None
        return row[1]

    def project_put(self, name: str, signature: str, value: str) -> None:
        db = self._connect()
        if db is None:
            return
        try:
            db.execute("INSERT OR REPLACE INTO projects VALUES (?, ?, ?)", (name, signature, value))
        except sqlite3.Error:
            self._failed = True

    def _relative(self, path: Path, absolute: str | None = None) -> str:
        return relative_posix(absolute or os.path.abspath(path), self._root)

    def get(
        self, path: Path, options_fp: str, key: str, shown: str, data: bytes, absolute: str | None = None
    ) -> FileResult | None:
        """The cached result for ``path`` (``absolute``: its absolute path, when the caller has it) if its key matches."""
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute(
                "SELECT key, value FROM results WHERE path = ? AND options = ?", (self._relative(path, absolute), options_fp)
            ).fetchone()
            if row is None or row[0] != key:
                self.misses += 1
                return None
            result = decode_result(row[1], shown, data)
        except (sqlite3.Error, ValueError, KeyError, TypeError, LookupError):
            self.misses += 1
            return None  # a damaged row is a miss
        self.hits += 1
        return result

    def put(self, path: Path, options_fp: str, key: str, result: FileResult) -> None:
        db = self._connect()
        if db is None:
            return
        try:
            db.execute(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?)",
                (self._relative(path), options_fp, key, encode_result(result)),
            )
            self._pending += 1
            if self._pending >= 500:
                db.commit()
                self._pending = 0
        except sqlite3.Error:
            self._failed = True

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.commit()
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None


class CacheSet:
    """The caches of every project root a run touches, opened on first use."""

    def __init__(self) -> None:
        self._by_root: dict[Path, ResultCache] = {}

    def for_root(self, root: Path) -> ResultCache:
        found = self._by_root.get(root)
        if found is None:
            found = self._by_root[root] = ResultCache(root)
        return found

    @property
    def hits(self) -> int:
        return sum(c.hits for c in self._by_root.values())

    @property
    def misses(self) -> int:
        return sum(c.misses for c in self._by_root.values())

    def close(self) -> None:
        for found in self._by_root.values():
            found.close()
