"""The result cache: a warm run parses nothing, and a cached result is only ever used for the same bytes and options."""

from __future__ import annotations

import ast
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import libcst
import pytest

from torchmigrate import migrate_paths
from torchmigrate.run.cache import CACHE_DIR, project_root

LEGACY = "import torch\n\nep = torch.export.export_for_inference(model, (x,), decomp_table=table)\n"
TRAINING = "import torch as th\n\nep = th.export.export_for_training(m, (x,))\n"
FINDING = "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n"
MODERN = "import torch\n\n# export_for_training was removed in 2.11\nep = torch.export.export(m, (x,))\n"
PLAIN = "def f(x):\n    return x + 1\n"
BROKEN = "import torch\nep = torch.export.export_for_training(m, (x,)\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in {
        "legacy": LEGACY,
        "training": TRAINING,
        "finding": FINDING,
        "modern": MODERN,
        "plain": PLAIN,
        "broken": BROKEN,
    }.items():
        (pkg / f"{name}.py").write_text(text)
    (pkg / "latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9'\nep = torch.export.export_for_training(m, a)\n"
    )
    return tmp_path


class ParseCounter:
    """Counts every ``ast.parse`` and ``libcst.parse_module`` call made in this process."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ast = 0
        self.cst = 0
        real_ast, real_cst = ast.parse, libcst.parse_module

        def counting_ast(*args: Any, **kwargs: Any) -> Any:
            self.ast += 1
            return real_ast(*args, **kwargs)

        def counting_cst(*args: Any, **kwargs: Any) -> Any:
            self.cst += 1
            return real_cst(*args, **kwargs)

        monkeypatch.setattr(ast, "parse", counting_ast)
        monkeypatch.setattr(libcst, "parse_module", counting_cst)


def _dicts(paths: list[Path], **kwargs: Any) -> list[dict[str, Any]]:
    report = migrate_paths(paths, to="2.12", from_="2.7", **kwargs)
    return [r.to_dict() | {"code": r.new} for r in report.results]


def test_a_warm_run_parses_nothing_and_gives_the_same_results(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    uncached = _dicts([tree / "pkg"])
    counter = ParseCounter(monkeypatch)
    cold = _dicts([tree / "pkg"], cache=True)
    assert counter.cst >= 4 and counter.ast >= 4  # the cold run did parse
    counter.ast = counter.cst = 0
    warm = _dicts([tree / "pkg"], cache=True)
    assert (counter.ast, counter.cst) == (0, 0)
    assert cold == warm == uncached
    assert any(d["changed"] for d in warm) and any(d["findings"] for d in warm) and any(d["error"] for d in warm)
    assert (tree / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"


def test_changed_bytes_or_options_are_never_served_from_the_cache(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dicts([tree / "pkg"], cache=True)
    counter = ParseCounter(monkeypatch)
    # New bytes under the same path: that file, and only that file, is migrated again.
    (tree / "pkg" / "modern.py").write_text(
        MODERN.replace("export(m", "export_for_training(m").replace("# export_for_training was removed in 2.11\n", "")
    )
    warm = {d["path"].rsplit("/", 1)[-1]: d for d in _dicts([tree / "pkg"], cache=True)}
    assert counter.cst == 1
    assert warm["modern.py"]["changed"] and "export(m, (x,))" in warm["modern.py"]["code"]
    # Another target release selects other passes: nothing cached for 2.12 is reused for 2.8.
    at_28 = {
        d["path"].rsplit("/", 1)[-1]: d
        for d in migrate_paths([tree / "pkg"], to="2.8", from_="2.7", cache=True).results
        for d in [d.to_dict()]
    }
    assert at_28["training.py"]["changed"] is False  # export_for_training is a 2.11 change
    assert at_28["legacy.py"]["passes_applied"] == ["export-for-inference"]


def test_write_mode_from_the_cache_writes_what_an_uncached_run_writes(
    tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("copy")
    subprocess.run(["cp", "-r", f"{tree}/.", str(other)], check=True)
    _dicts([tree / "pkg"], cache=True)  # --diff-like run fills the cache
    _dicts([tree / "pkg"], cache=True, write=True)  # served from the cache
    _dicts([other / "pkg"], write=True)  # no cache at all
    for path in sorted((other / "pkg").iterdir()):
        assert (tree / "pkg" / path.name).read_bytes() == path.read_bytes(), path.name
    assert "export_for_training" not in (tree / "pkg" / "latin.py").read_bytes().decode("latin-1")


def test_a_damaged_cache_is_a_miss_and_an_unwritable_one_is_skipped(tree: Path) -> None:
    expected = _dicts([tree / "pkg"])
    _dicts([tree / "pkg"], cache=True)
    db = sqlite3.connect(tree / CACHE_DIR / "results.sqlite3")
    db.execute("UPDATE results SET value = '{not json'")
    db.commit()
    db.close()
    assert _dicts([tree / "pkg"], cache=True) == expected
    blocked = tree / "blocked"
    blocked.mkdir()
    (blocked / "pyproject.toml").write_text("")
    (blocked / CACHE_DIR).write_text("a file where the cache folder should be")
    (blocked / "m.py").write_text(TRAINING)
    assert migrate_paths([blocked], to="2.12", cache=True).summary.changed == 1


def test_project_root_is_the_git_top_else_the_pyproject_folder_else_the_path(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub" / "pkg").mkdir(parents=True)
    (repo / "sub" / "pyproject.toml").write_text("")
    assert project_root(repo / "sub" / "pkg") == repo / "sub"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert project_root(repo / "sub" / "pkg") == repo
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "a.py").write_text("")
    assert project_root(loose) == loose
    assert project_root(loose / "a.py") == loose


def test_the_cache_stays_out_of_git_status(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "m.py").write_text(MODERN)
    subprocess.run(["git", "-C", str(tmp_path), "add", "m.py"], check=True)
    migrate_paths([tmp_path], to="2.12", cache=True)
    assert (tmp_path / CACHE_DIR).is_dir()
    status = subprocess.run(["git", "-C", str(tmp_path), "status", "--porcelain"], capture_output=True, text=True, check=True)
    assert status.stdout == "A  m.py\n"


_PROBE = """
import sys
from torchmigrate.cli import main
sys.argv = ["migrate", "--to", "2.12", "--diff", "--no-progress", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
print("libcst loaded:", "libcst" in sys.modules, "exit:", code, file=sys.stderr)
print("also loaded:", sorted(m for m in ("pydantic", "importlib.metadata") if m in sys.modules), file=sys.stderr)
"""


def test_a_warm_run_never_loads_libcst_or_the_passes(tree: Path) -> None:
    # What makes a cached re-run cheap: the cache answers before anything selects passes (which imports libcst).
    import sys

    def run() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-c", _PROBE, str(tree)], capture_output=True, cwd=tree.parent, check=False)

    cold, warm = run(), run()
    assert b"libcst loaded: True exit: 2" in cold.stderr  # exit 2: the broken file is an error
    assert b"libcst loaded: False exit: 2" in warm.stderr
    assert warm.stdout == cold.stdout and b"+++ b/" in warm.stdout
    # Nor the costliest imports of the start itself: pydantic (typer 0.29 coerces every parameter through it, about
    # 0.2 s) and importlib.metadata (the tool's fingerprint reads libcst's version from its _version.py instead).
    assert b"also loaded: []" in warm.stderr


def _package(root: Path) -> Path:
    package = root / "tool"
    (package / "passes").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "passes" / "a.py").write_text("X = 1\n")
    return package


def test_the_tool_stamp_changes_with_any_source_file_of_the_tool(tmp_path: Path) -> None:
    """The stamp covers what Python checks before it reuses a module's bytecode: each source's path, size and time."""
    import os

    from torchmigrate.core.stamp import _stamp

    def tool_stamp(package: Path) -> str:  # the stamp computed afresh (the tool's own is kept per process)
        return _stamp(str(package))

    package = _package(tmp_path)
    before = tool_stamp(package)
    assert tool_stamp(package) == before
    source = package / "passes" / "a.py"
    status = source.stat()
    source.write_text("X = 2\n")  # same size: the modification time tells
    os.utime(source, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    assert tool_stamp(package) != before
    os.utime(source, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert tool_stamp(package) == before  # same size and time: what Python would reuse too
    (package / "passes" / "b.py").write_text("")
    assert tool_stamp(package) != before
    (package / "passes" / "b.py").unlink()
    (package / "passes" / "a.py").rename(package / "passes" / "c.py")
    assert tool_stamp(package) != before


def test_a_warm_run_takes_the_tools_fingerprint_from_the_cache(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint (a hash of every source file of the tool) is computed once for a stamp and kept in the cache;
    a different stamp, as after an upgrade or an edit of the tool, computes it again and is what the rows are keyed
    by."""
    from torchmigrate.run import cache

    computed: list[str] = []
    real = cache.tool_fingerprint.__wrapped__

    def counting() -> str:
        computed.append("x")
        return real()

    monkeypatch.setattr(cache, "tool_fingerprint", counting)
    cold = migrate_paths([tree], to="2.12", cache=True)
    assert len(computed) == 1
    warm = migrate_paths([tree], to="2.12", cache=True)
    assert len(computed) == 1  # not computed again
    assert [r.to_dict() for r in warm.results] == [r.to_dict() for r in cold.results]
    database = project_root(tree) / CACHE_DIR / "results.sqlite3"

    def rows() -> dict[str, str]:
        with sqlite3.connect(database) as db:
            return dict(db.execute("SELECT path, key FROM results").fetchall())

    before = rows()
    monkeypatch.setattr(cache, "tool_stamp", lambda: "another tool")
    monkeypatch.setattr(cache, "tool_fingerprint", lambda: "another fingerprint")
    again = migrate_paths([tree], to="2.12", cache=True)
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in cold.results]
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT stamp, fingerprint FROM tool").fetchall() == [("another tool", "another fingerprint")]
    after = rows()  # every file was migrated again and its row keyed by the new fingerprint
    assert after.keys() == before.keys() and all(after[path] != before[path] for path in before)
