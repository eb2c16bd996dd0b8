"""benchmarks/corpus.py rebuilds the corpus from a folder of bare mirrors or from a URL (here: local repositories)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import corpus  # noqa: E402

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="no git")


def git(*args: str, cwd: Path | None = None) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.invalid",
           "HOME": str(cwd or Path.cwd()), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env).stdout.strip()


def make_repo(root: Path) -> tuple[Path, str, str]:
    """A work tree with two commits; the pinned one is the first. Returns (repo, pinned commit, id of big.bin's blob)."""
    root.mkdir(parents=True)
    git("init", "-q", cwd=root)
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("import torch\n")
    (root / "b.py").write_text("x = 1\n")
    (root / "big.bin").write_bytes(b"\0" * 100)
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    pinned = git("rev-parse", "HEAD", cwd=root)
    blob = git("rev-parse", "HEAD:big.bin", cwd=root)
    (root / "c.py").write_text("later = True\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "two", cwd=root)
    return root, pinned, blob


def manifest(tmp_path: Path, commit: str, url: str) -> list[corpus.Entry]:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"repos": [{"repo": "someone/proj", "commit": commit, "url": url, "py_files": 2, "py_bytes": 19}]}))
    return corpus.load_manifest(path)


def test_rebuild_from_a_url_exports_the_pinned_commit(tmp_path: Path) -> None:
    repo, pinned, _ = make_repo(tmp_path / "upstream")
    entries = manifest(tmp_path, pinned, str(repo))
    lines = corpus.rebuild(tmp_path / "dest", entries)
    tree = tmp_path / "dest" / "someone__proj"
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()) == ["b.py", "big.bin", "pkg/a.py"]
    assert not (tree / ".git").exists()
    assert lines == [f"someone/proj: {pinned[:12]} from {repo}"]
    assert corpus.verify(tmp_path / "dest", entries) == []
    assert corpus.rebuild(tmp_path / "dest", entries) == ["someone/proj: kept (already there; --force rebuilds it)"]


def test_rebuild_from_mirrors_and_a_mirror_without_some_blobs(tmp_path: Path) -> None:
    repo, pinned, blob = make_repo(tmp_path / "upstream")
    mirrors = tmp_path / "mirrors"
    bare = mirrors / "someone+proj" / "repo"
    bare.parent.mkdir(parents=True)
    git("clone", "-q", "--bare", "--no-local", str(repo), str(bare))
    entries = manifest(tmp_path, pinned, "https://example.invalid/unreachable.git")
    assert corpus.find_mirror(mirrors, entries[0]) == bare
    corpus.rebuild(tmp_path / "one", entries, mirrors)
    assert (tmp_path / "one" / "someone__proj" / "big.bin").exists()

    # a mirror that lacks a large blob (a partial snapshot): the tree is written without it, and the line says so
    git("repack", "-a", "-d", "-q", cwd=bare)
    pack = next((bare / "objects" / "pack").glob("*.pack"))
    keep = tmp_path / "pack"
    keep.mkdir()
    for part in (bare / "objects" / "pack").iterdir():
        part.rename(keep / part.name)
    subprocess.run(["git", f"--git-dir={bare}", "unpack-objects", "-q"], stdin=(keep / pack.name).open("rb"), check=True)
    (bare / "objects" / blob[:2] / blob[2:]).unlink()
    lines = corpus.rebuild(tmp_path / "two", entries, mirrors)
    tree = tmp_path / "two" / "someone__proj"
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()) == ["b.py", "pkg/a.py"]
    assert lines == [f"someone/proj: {pinned[:12]} from the mirror (1 files the source does not hold left out)"]


def test_verify_reports_missing_and_different_trees(tmp_path: Path) -> None:
    entries = manifest(tmp_path, "0" * 40, "x")
    assert corpus.verify(tmp_path, entries) == [f"someone/proj: missing ({tmp_path / 'someone__proj'})"]
    (tmp_path / "someone__proj").mkdir()
    (tmp_path / "someone__proj" / "a.py").write_text("x = 1\n")
    assert corpus.verify(tmp_path, entries) == ["someone/proj: 1 .py files, 6 bytes; the manifest says 2, 19"]


def test_the_committed_manifest_names_each_repository_once_with_a_full_commit() -> None:
    entries = corpus.load_manifest()
    assert len(entries) >= 15
    assert len({e.repo for e in entries}) == len(entries)
    assert all(len(e.commit) == 40 and e.url == f"https://github.com/{e.repo}.git" for e in entries)
