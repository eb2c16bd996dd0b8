"""The development corpus: public repositories, each pinned to one commit in ``benchmarks/corpus.json``.

    python benchmarks/corpus.py rebuild DEST                  # clone each repository from its public URL
    python benchmarks/corpus.py rebuild DEST --mirrors DIR    # or read it from a folder of bare mirrors
    python benchmarks/corpus.py verify DEST                   # file counts against the manifest
    python benchmarks/corpus.py list                          # repository, commit

Each repository becomes ``DEST/OWNER__NAME``: the tree of its pinned commit, exported with ``git archive`` (no
``.git``, ``export-ignore`` honoured), so the result is the same whichever source it came from. A folder of bare
mirrors may hold each repository as ``OWNER+NAME/repo``, ``OWNER+NAME``, ``OWNER__NAME[.git]`` or
``OWNER/NAME[.git]``; a repository missing there, or whose mirror lacks the commit, is fetched from its URL.
The corpus is for measuring the tool on real code: its code is never committed to this project.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).with_name("corpus.json")


@dataclass(frozen=True)
class Entry:
    repo: str  # owner/name
    commit: str
    url: str
    py_files: int = 0
    py_bytes: int = 0

    @property
    def folder(self) -> str:
        """The folder name under DEST: ``owner__name``."""
        return self.repo.replace("/", "__")


def load_manifest(path: Path = MANIFEST) -> list[Entry]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Entry(r["repo"], r["commit"], r.get("url") or f"https://github.com/{r['repo']}.git", r.get("py_files", 0), r.get("py_bytes", 0))
        for r in data["repos"]
    ]


def mirror_candidates(mirrors: Path, repo: str) -> list[Path]:
    """Where a bare mirror of ``repo`` may sit under ``mirrors`` (the layouts named in the module docstring)."""
    owner, name = repo.split("/", 1)
    return [
        mirrors / f"{owner}+{name}" / "repo",
        mirrors / f"{owner}+{name}",
        mirrors / f"{owner}__{name}",
        mirrors / f"{owner}__{name}.git",
        mirrors / owner / name,
        mirrors / owner / f"{name}.git",
    ]


def _git(*args: str, git_dir: Path | None = None, timeout: float = 1800) -> subprocess.CompletedProcess[bytes]:
    command = ["git", *([f"--git-dir={git_dir}"] if git_dir is not None else []), *args]
    return subprocess.run(command, capture_output=True, timeout=timeout)


def has_commit(git_dir: Path, commit: str) -> bool:
    proc = _git("cat-file", "-t", commit, git_dir=git_dir, timeout=60)
    return proc.returncode == 0 and proc.stdout.strip() == b"commit"


def find_mirror(mirrors: Path | None, entry: Entry) -> Path | None:
    """The first bare mirror of ``entry`` under ``mirrors`` that holds its commit, else ``None``."""
    if mirrors is None:
        return None
    for candidate in mirror_candidates(mirrors, entry.repo):
        if (candidate / "objects").is_dir() and has_commit(candidate, entry.commit):
            return candidate
    return None


def fetch_commit(url: str, commit: str, scratch: Path) -> Path:
    """A bare repository in ``scratch`` holding ``commit`` fetched from ``url`` (shallow; a full fetch if the server
    refuses to serve a commit by its id)."""
    git_dir = scratch / "fetch.git"
    subprocess.run(["git", "init", "--bare", "-q", str(git_dir)], check=True, capture_output=True)
    proc = _git("fetch", "-q", "--depth", "1", url, commit, git_dir=git_dir)
    if proc.returncode != 0 or not has_commit(git_dir, commit):
        proc = _git("fetch", "-q", url, "+refs/heads/*:refs/heads/*", git_dir=git_dir)
        if proc.returncode != 0 or not has_commit(git_dir, commit):
            raise RuntimeError(f"cannot fetch {commit} from {url}: {proc.stderr.decode(errors='replace').strip()[-500:]}")
    return git_dir


def export(git_dir: Path, commit: str, dest: Path) -> int:
    """Write the tree of ``commit`` to ``dest`` (which must not exist) with ``git archive``; the number of files left
    out. A mirror may lack some large blobs (a partial clone): then the tree is written blob by blob without them."""
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    missing = 0
    with tempfile.TemporaryFile() as archive:
        proc = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit], stdout=archive, stderr=subprocess.PIPE
        )
        if proc.returncode == 0:
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                tar.extractall(tmp, filter="tar")
        elif b"invalid object" in proc.stderr or b"cannot read" in proc.stderr:
            shutil.rmtree(tmp)
            tmp.mkdir()
            missing = export_blobs(git_dir, commit, tmp)
        else:
            raise RuntimeError(f"git archive {commit} failed: {proc.stderr.decode(errors='replace').strip()}")
    tmp.rename(dest)
    return missing


def tree_entries(git_dir: Path, commit: str) -> list[tuple[str, str, str]]:
    """(mode, blob id, path) of every file of ``commit`` (submodules left out, as ``git archive`` does)."""
    proc = _git("ls-tree", "-r", "-z", "--full-tree", commit, git_dir=git_dir)
    if proc.returncode != 0:
        raise RuntimeError(f"git ls-tree {commit} failed: {proc.stderr.decode(errors='replace').strip()}")
    entries = []
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind == "blob":
            entries.append((mode, blob, path))
    return entries


def export_blobs(git_dir: Path, commit: str, dest: Path) -> int:
    """Write each blob of ``commit`` that the repository holds under ``dest``; the number it does not hold."""
    entries = tree_entries(git_dir, commit)
    proc = subprocess.Popen(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    missing = 0
    for mode, blob, path in entries:
        proc.stdin.write(blob.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":  # "<id> missing"
            missing += 1
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)  # the newline after the contents
        target = dest / path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(data.decode("utf-8", "surrogateescape"))
            continue
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)
    proc.stdin.close()
    proc.wait()
    return missing


def rebuild(dest: Path, entries: Sequence[Entry], mirrors: Path | None = None, force: bool = False) -> list[str]:
    """Rebuild every entry under ``dest``; one line per repository saying where it came from."""
    dest.mkdir(parents=True, exist_ok=True)
    lines = []
    for entry in entries:
        target = dest / entry.folder
        if target.exists():
            if not force:
                lines.append(f"{entry.repo}: kept (already there; --force rebuilds it)")
                continue
            shutil.rmtree(target)
        mirror = find_mirror(mirrors, entry)
        if mirror is not None:
            missing = export(mirror, entry.commit, target)
            source = "the mirror"
        else:
            with tempfile.TemporaryDirectory(prefix="corpus-fetch-") as scratch:
                git_dir = fetch_commit(entry.url, entry.commit, Path(scratch))
                missing = export(git_dir, entry.commit, target)
            source = entry.url
        note = f" ({missing} files the source does not hold left out)" if missing else ""
        lines.append(f"{entry.repo}: {entry.commit[:12]} from {source}{note}")
    return lines


def count_python(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*.py") if p.is_file() and not p.is_symlink()]
    return len(files), sum(p.stat().st_size for p in files)


def verify(dest: Path, entries: Sequence[Entry]) -> list[str]:
    """Problems found: a missing repository, or ``.py`` counts that differ from the manifest."""
    problems = []
    for entry in entries:
        target = dest / entry.folder
        if not target.is_dir():
            problems.append(f"{entry.repo}: missing ({target})")
            continue
        files, size = count_python(target)
        if entry.py_files and (files, size) != (entry.py_files, entry.py_bytes):
            problems.append(f"{entry.repo}: {files} .py files, {size} bytes; the manifest says {entry.py_files}, {entry.py_bytes}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rebuild the development corpus")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("rebuild", help="export each repository at its commit into DEST/OWNER__NAME")
    build.add_argument("dest", type=Path)
    build.add_argument("--mirrors", type=Path, help="a folder of bare git mirrors to read before the network")
    build.add_argument("--only", help="comma-separated owner/name entries to rebuild (default: all)")
    build.add_argument("--force", action="store_true", help="rebuild repositories that are already there")
    check = sub.add_parser("verify", help="compare DEST with the manifest's file counts")
    check.add_argument("dest", type=Path)
    sub.add_parser("list", help="print repository and commit")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    args = parser.parse_args(argv)

    entries = load_manifest(args.manifest)
    if args.command == "list":
        for entry in entries:
            print(entry.repo, entry.commit)
        return 0
    if args.command == "verify":
        problems = verify(args.dest, entries)
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{len(entries) - len(problems)} of {len(entries)} repositories match the manifest")
        return 1 if problems else 0
    if args.only:
        wanted = {name.strip() for name in args.only.split(",") if name.strip()}
        unknown = wanted - {e.repo for e in entries}
        if unknown:
            parser.error(f"not in the manifest: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e.repo in wanted]
    for line in rebuild(args.dest, entries, args.mirrors, args.force):
        print(line)
    problems = verify(args.dest, entries)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
