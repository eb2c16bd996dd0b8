"""Fault suite: awkward inputs next to legacy code, each with its exact outcome (bytes on disk, exit code, stderr line).

One real `migrate` process runs over a tree holding every awkward file at once (that is also the proof that one bad
file never stops the run); the faults that need an injected pass or a failing system call run in-process; the
interrupt test sends a real SIGINT to a real process.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import MIGRATE, popen
from typer.testing import CliRunner

import torchmigrate.core.registry
import torchmigrate.run.files
from torchmigrate.cli import app
from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.python.engine import MAX_PARSE_CHARS
from torchmigrate.python.transform import CallContext
from torchmigrate.run.files import TMP_SUFFIX, write_atomic

# Only the two bundled export passes run, so the expected bytes below stay exact whatever passes are added later.
SELECT = ("--select", "export-for-inference,export-for-training")
ARGS = ("--to", "2.12", "--no-cache", *SELECT)

LEGACY = "import torch\n\nep = torch.export.export_for_inference(model, (x,))\n"
MIGRATED = "import torch\n\nep = torch.export.export(model, (x,), strict=True).run_decompositions()\n"


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


# name → (bytes written, bytes expected afterwards, error line expected on stderr or None)
LATIN1_BEFORE = (
    b"# -*- coding: latin-1 -*-\n# caf\xe9, \xfcber, na\xefve\nimport torch\n\nname = '\xe9t\xe9'\n"
    b"ep = torch.export.export_for_inference(model, (x,))\n"
)
LATIN1_AFTER = (
    b"# -*- coding: latin-1 -*-\n# caf\xe9, \xfcber, na\xefve\nimport torch\n\nname = '\xe9t\xe9'\n"
    b"ep = torch.export.export(model, (x,), strict=True).run_decompositions()\n"
)
# Mixed endings: every old line keeps its own; the import the pass adds takes the file's dominant ending (CRLF here,
# although the first line ends in LF, which is what libcst alone would use).
MIXED_BEFORE = (
    b"#!/usr/bin/env python\nimport os\r\n\r\ndef run(m, x):\r\n"
    b"    from torch.export import export_for_inference\n    return export_for_inference(m, (x,))\r\n"
)
MIXED_AFTER = (
    b"#!/usr/bin/env python\nimport os\r\nfrom torch.export import export\r\n\r\ndef run(m, x):\r\n"
    b"    return export(m, (x,), strict=True).run_decompositions()\r\n"
)
TABS_BEFORE = b"import torch\n\nclass Exporter:\n\tdef run(self, m, x):\n\t\tif x is not None:\n\t\t\treturn torch.export.export_for_inference(m, (x,))\n"
TABS_AFTER = (
    b"import torch\n\nclass Exporter:\n\tdef run(self, m, x):\n\t\tif x is not None:\n"
    b"\t\t\treturn torch.export.export(m, (x,), strict=True).run_decompositions()\n"
)
SYNTAX_ERROR = b"import torch\nep = torch.export.export_for_inference(model, (x,)\n"
PYTHON2 = b'import torch\nprint "exporting"\nep = torch.export.export_for_inference(model, (x,))\n'
DEEP_PARENS = ("import torch\nx = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n" + LEGACY).encode()
DEEP_BOOL = ("import torch\nx = " + " and ".join(["a"] * 50_000) + "\n" + LEGACY).encode()
NUL_JUNK = bytes(range(256)) * 4
UTF8_JUNK = b"\x89PNG\r\n\x1a\n" + bytes(range(128, 256)) * 8
BIG_LINE = "value_{0} = compute(alpha, beta[{0}], 'a string without trigger words {0}')  # comment\n"


def big_text(size: int, tail: str = "") -> bytes:
    lines, total, i = [], 0, 0
    while total < size:
        line = BIG_LINE.format(i)
        lines.append(line)
        total += len(line)
        i += 1
    return ("".join(lines) + tail).encode()


@dataclass
class Run:
    root: Path
    cases: dict[str, tuple[bytes, bytes, str | None]]
    diff: subprocess.CompletedProcess[bytes]
    write: subprocess.CompletedProcess[bytes]
    outside: Path

    def stderr_lines(self) -> list[str]:
        return self.write.stderr.decode().splitlines()


def make_tree(base: Path) -> tuple[Path, Path, dict[str, tuple[bytes, bytes, str | None]]]:
    root = base / "proj"
    outside = base / "outside"
    (root / "pkg").mkdir(parents=True)
    outside.mkdir()
    (outside / "foreign.py").write_text(LEGACY)
    big = big_text(6_000_000)
    huge_legacy = big_text(MAX_PARSE_CHARS, tail=LEGACY)
    cases: dict[str, tuple[bytes, bytes, str | None]] = {
        "pkg/legacy.py": (LEGACY.encode(), MIGRATED.encode(), None),
        "pkg/latin1.py": (LATIN1_BEFORE, LATIN1_AFTER, None),
        "pkg/bom.py": (b"\xef\xbb\xbf" + LEGACY.encode(), b"\xef\xbb\xbf" + MIGRATED.encode(), None),
        "pkg/crlf.py": (crlf(LEGACY), crlf(MIGRATED), None),
        "pkg/mixed.py": (MIXED_BEFORE, MIXED_AFTER, None),
        "pkg/tabs.py": (TABS_BEFORE, TABS_AFTER, None),
        "pkg/empty.py": (b"", b"", None),
        "pkg/syntax_error.py": (SYNTAX_ERROR, SYNTAX_ERROR, "cannot parse: line 2: '(' was never closed"),
        "pkg/python2.py": (
            PYTHON2,
            PYTHON2,
            "cannot parse: line 2: Missing parentheses in call to 'print'. Did you mean print(...)?",
        ),
        "pkg/nul_junk.py": (NUL_JUNK, NUL_JUNK, "binary file (contains NUL bytes)"),
        "pkg/utf8_junk.py": (UTF8_JUNK, UTF8_JUNK, "cannot decode: invalid or missing encoding declaration"),
        "pkg/big.py": (big, big, None),
        "pkg/huge_legacy.py": (
            huge_legacy,
            huge_legacy,
            f"file too large to migrate ({len(huge_legacy):,} characters, limit {MAX_PARSE_CHARS:,}); left as it was",
        ),
        "pkg/readonly.py": (LEGACY.encode(), LEGACY.encode(), "file is read-only; left as it was"),
        # Nesting that overflows the stack of libcst's native parser (a segfault that would end the run) is stopped first.
        "pkg/deep_parens.py": (DEEP_PARENS, DEEP_PARENS, "cannot parse: line 2: too many nested parentheses"),
        "pkg/deep_bool.py": (
            DEEP_BOOL,
            DEEP_BOOL,
            "cannot parse: line 2: an and/or chain of 50000 operands is too deep to rewrite",
        ),
        "pkg/script.py": (b"#!/usr/bin/env python\n" + LEGACY.encode(), b"#!/usr/bin/env python\n" + MIGRATED.encode(), None),
        "rodir/legacy.py": (LEGACY.encode(), LEGACY.encode(), "folder is read-only; file left as it was"),
        "z_after_errors.py": (LEGACY.encode(), MIGRATED.encode(), None),
    }
    for name, (data, _, _) in cases.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "pkg" / "readonly.py").chmod(0o444)
    (root / "pkg" / "script.py").chmod(0o755)
    (root / "rodir").chmod(0o555)
    # Symlinks: to a file inside the root, to a folder inside the root, to a file and a folder outside the root.
    (root / "pkg" / "zz_link_to_legacy.py").symlink_to("legacy.py")
    (root / "linked_pkg").symlink_to("pkg", target_is_directory=True)
    (root / "pkg" / "outside_link.py").symlink_to(outside / "foreign.py")
    (root / "outside_dir").symlink_to(outside, target_is_directory=True)
    (root / "pkg" / "dangling.py").symlink_to("no_such_file.py")  # reported, and never created
    return root, outside, cases


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    base = tmp_path_factory.mktemp("faults")
    root, outside, cases = make_tree(base)
    diff = subprocess.run([str(MIGRATE), *ARGS, "--diff", "proj"], cwd=base, capture_output=True, timeout=300)
    unchanged_by_diff = all((root / name).read_bytes() == data for name, (data, _, _) in cases.items())
    assert unchanged_by_diff, "--diff wrote to disk"
    write = subprocess.run([str(MIGRATE), *ARGS, "proj"], cwd=base, capture_output=True, timeout=300)
    yield Run(root, cases, diff, write, outside)
    (root / "rodir").chmod(0o755)


REAL_FILES = 19  # the entries of `cases`; the symlinks add nothing but the dangling one, which is reported


def test_exit_code_and_summary(run: Run) -> None:
    errors = sum(1 for _, _, error in run.cases.values() if error) + 1  # the dangling link
    changed = sum(1 for before, after, _ in run.cases.values() if before != after)
    scanned = REAL_FILES + 1
    assert len(run.cases) == REAL_FILES
    assert run.write.returncode == 2, run.write.stderr.decode()
    assert run.write.stdout == b""
    assert run.stderr_lines()[-1] == f"torchmigrate: {scanned} files scanned, {changed} changed, 0 findings, {errors} errors"
    # --diff writes nothing, so the two files that cannot be written are not errors there: they would change.
    assert run.diff.returncode == 2
    assert run.diff.stderr.decode().splitlines()[-1] == (
        f"torchmigrate: {scanned} files scanned, {changed + 2} would change, 0 findings, {errors - 2} errors"
    )


@pytest.mark.parametrize(
    "name",
    [
        "pkg/legacy.py",
        "pkg/latin1.py",
        "pkg/bom.py",
        "pkg/crlf.py",
        "pkg/mixed.py",
        "pkg/tabs.py",
        "pkg/empty.py",
        "pkg/syntax_error.py",
        "pkg/python2.py",
        "pkg/nul_junk.py",
        "pkg/utf8_junk.py",
        "pkg/big.py",
        "pkg/huge_legacy.py",
        "pkg/readonly.py",
        "pkg/deep_parens.py",
        "pkg/deep_bool.py",
        "pkg/script.py",
        "rodir/legacy.py",
        "z_after_errors.py",
    ],
)
def test_each_file_has_its_exact_outcome(run: Run, name: str) -> None:
    _, expected, error = run.cases[name]
    assert (run.root / name).read_bytes() == expected
    mentions = [line for line in run.stderr_lines() if line.startswith(f"proj/{name}:")]
    if error is None:
        assert mentions == []
    else:
        assert mentions == [f"proj/{name}: error: {error}"]


def test_file_modes_are_kept(run: Run) -> None:
    assert stat.S_IMODE((run.root / "pkg" / "script.py").stat().st_mode) == 0o755
    assert stat.S_IMODE((run.root / "pkg" / "readonly.py").stat().st_mode) == 0o444
    assert stat.S_IMODE((run.root / "pkg" / "legacy.py").stat().st_mode) == 0o644 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_symlinks_are_never_followed_out_of_the_root_nor_processed_twice(run: Run) -> None:
    link = run.root / "pkg" / "zz_link_to_legacy.py"
    assert link.is_symlink() and os.readlink(link) == "legacy.py"  # still a link, to the migrated file
    assert (run.outside / "foreign.py").read_text() == LEGACY  # outside the root: never touched
    assert (run.root / "outside_dir").is_symlink() and (run.root / "linked_pkg").is_symlink()
    # Each changed file appears once in the diff, under its real path inside the root, and no link is named anywhere.
    headers = [line for line in run.diff.stdout.decode("latin-1").splitlines() if line.startswith("--- a/")]
    unwritable = {"pkg/readonly.py", "rodir/legacy.py"}
    changed = sorted(
        f"--- a/proj/{name}" for name, (before, after, _) in run.cases.items() if before != after or name in unwritable
    )
    assert sorted(headers) == changed
    for output in (run.diff.stdout, run.diff.stderr, run.write.stderr):
        for name in (b"zz_link_to_legacy", b"linked_pkg", b"outside"):
            assert name not in output


def test_a_dangling_symlink_is_reported_and_not_created(run: Run) -> None:
    link = run.root / "pkg" / "dangling.py"
    assert link.is_symlink() and not link.exists()
    assert [line for line in run.stderr_lines() if "dangling" in line] == [
        "proj/pkg/dangling.py: error: cannot read: No such file or directory"
    ]


def test_no_temporary_files_are_left(run: Run) -> None:
    assert [p for p in run.root.rglob("*") if p.name.endswith(TMP_SUFFIX)] == []
    assert sorted(p.name for p in (run.root / "pkg").iterdir() if p.name.startswith(".")) == []


# --- in-process faults: an injected pass, a failing system call, a deterministic interrupt ----------------------------

runner = CliRunner()


def crashing_pass() -> Pass:
    boom = Pass(
        id="boom",
        release="2.9",  # after export-for-inference (2.8) has already rewritten the file in memory
        safety=SAFE,
        title="a pass with a bug",
        evidence="none: a test double",
        triggers=("explode",),
        doc="## What it does\nCrashes.\n## Fix safety\nNone.",
    )

    @boom.rewrites_calls("torch.explode")
    def rewrite(call: object, ctx: CallContext) -> None:
        raise RuntimeError("kaboom")

    return boom


def with_passes(monkeypatch: pytest.MonkeyPatch, *extra: Pass) -> None:
    real = torchmigrate.core.registry.all_passes()
    monkeypatch.setattr(
        torchmigrate.core.registry, "all_passes", lambda: tuple(sorted((*real, *extra), key=lambda p: (p.version, p.id)))
    )


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_pass_that_raises_leaves_its_file_untouched_and_the_rest_migrated(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_passes(monkeypatch, crashing_pass())
    crash = LEGACY + "torch.explode()\n"
    (cwd / ".flake8").write_text("[flake8]\nmax-line-length = 120\n")  # the migrated line is not split at 79
    (cwd / "a.py").write_text(LEGACY)
    (cwd / "b.py").write_text(crash)
    (cwd / "c.py").write_text(LEGACY)
    result = runner.invoke(app, ["--to", "2.12", "--no-cache", "--jobs", "1", "--select", "export-for-inference,boom", "."])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "b.py: error: pass boom failed: RuntimeError: kaboom"
    assert lines[-1] == "torchmigrate: 3 files scanned, 2 changed, 0 findings, 1 error"
    assert [line.split() for line in lines[1:-1] if line.startswith("export")] == [["export-for-inference", "2", "2", "0"]]
    assert (cwd / "b.py").read_text() == crash
    expected = "import torch\n\nep = torch.export.export_for_training(model, (x,), strict=True).run_decompositions()\n"
    assert (cwd / "a.py").read_text() == expected and (cwd / "c.py").read_text() == expected


def test_new_text_the_files_encoding_cannot_hold_is_an_error(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    omega = Pass(
        id="to-omega",
        release="2.9",
        safety=SAFE,
        title="renames to a name latin-1 cannot encode",
        evidence="none: a test double",
        triggers=("export_for_training",),
        renames={"torch.export.export_for_training": "torch.export.export_\u03a9"},
        doc="## What it does\nRenames.\n## Fix safety\nNone.",
    )
    with_passes(monkeypatch, omega)
    (cwd / "latin1.py").write_bytes(LATIN1_BEFORE.replace(b"export_for_inference", b"export_for_training"))
    (cwd / "utf8.py").write_text("import torch\nep = torch.export.export_for_training(m, (x,))\n")
    result = runner.invoke(app, ["--to", "2.9", "--no-cache", "--jobs", "1", "--select", "to-omega", "."])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "latin1.py: error: new text cannot be encoded in the file's encoding (latin-1): ordinal not in range(256)"
    )
    assert (cwd / "latin1.py").read_bytes() == LATIN1_BEFORE.replace(b"export_for_inference", b"export_for_training")
    assert (cwd / "utf8.py").read_text() == "import torch\nep = torch.export.export_\u03a9(m, (x,))\n"


def test_a_failing_write_leaves_the_original_and_no_temporary_file(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_replace = os.replace

    def replace(src: str, dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == "a.py":
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(torchmigrate.run.files.os, "replace", replace)
    (cwd / "a.py").write_text(LEGACY)
    (cwd / "b.py").write_text(LEGACY)
    result = runner.invoke(app, [*ARGS, "--jobs", "1", "."])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "a.py: error: cannot write: No space left on device"
    assert lines[-1] == "torchmigrate: 2 files scanned, 1 changed, 0 findings, 1 error"
    assert (cwd / "a.py").read_text() == LEGACY
    assert (cwd / "b.py").read_text() == MIGRATED
    assert sorted(p.name for p in cwd.iterdir()) == ["a.py", "b.py"]


def test_ctrl_c_during_a_write_finishes_that_file_then_stops(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGINT arriving right after the temporary file is created: the write completes, nothing is left behind."""
    real_mkstemp = torchmigrate.run.files.tempfile.mkstemp

    def mkstemp(**kwargs: str | Path) -> tuple[int, str]:
        made = real_mkstemp(**kwargs)  # type: ignore[call-overload]
        os.kill(os.getpid(), signal.SIGINT)
        return made  # type: ignore[no-any-return]

    monkeypatch.setattr(torchmigrate.run.files.tempfile, "mkstemp", mkstemp)
    (cwd / "a.py").write_text(LEGACY)
    (cwd / "b.py").write_text(LEGACY)
    # A suite started in the background (or under nohup) inherits SIG_IGN: Ctrl-C must mean what it does at a prompt.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = runner.invoke(app, [*ARGS, "--jobs", "1", "."])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.exit_code == 130
    assert result.stderr.splitlines() == ["migrate: interrupted: each file is either fully migrated or as it was"]
    assert (cwd / "a.py").read_text() == MIGRATED  # the write in progress completed
    assert (cwd / "b.py").read_text() == LEGACY  # the run stopped before the next file
    assert sorted(p.name for p in cwd.iterdir()) == ["a.py", "b.py"]


def test_write_atomic_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("edited by someone else\n")
    with pytest.raises(torchmigrate.run.files.SourceError, match="file changed on disk during the run; left as it is"):
        write_atomic(path, MIGRATED.encode(), expected_old=LEGACY.encode())
    assert path.read_text() == "edited by someone else\n"


# --- a real SIGINT in the middle of a real run -------------------------------------------------------------------------

FILLER = "".join(f"def helper_{i}(a, b):\n    return [a * {i} + b for _ in range({i})]\n\n\n" for i in range(40))


def test_sigint_mid_run_leaves_every_file_whole_and_no_temporary_file(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    before = (FILLER + LEGACY).encode()
    after = (FILLER + MIGRATED).encode()
    count = 400
    for i in range(count):
        (tree / f"f{i:03}.py").write_bytes(before)
    first = tree / "f000.py"
    proc = popen(*ARGS, "tree", cwd=tmp_path)  # with the default SIGINT handler, however the suite was started
    try:
        deadline = time.monotonic() + 120
        while first.read_bytes() == before:
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "no file was written within 120 s"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()
    assert out == b""
    assert err.decode().splitlines()[-1] == "migrate: interrupted: each file is either fully migrated or as it was"
    contents = [p.read_bytes() for p in sorted(tree.iterdir())]
    assert len(contents) == count  # no temporary file left behind, nothing else created
    assert all(data in (before, after) for data in contents)  # never a partly written file
    written = contents.count(after)
    assert 1 <= written < count, f"{written} of {count} written: the interrupt did not land mid-run"
    # Files are processed in order: the written ones are a prefix.
    assert contents[:written] == [after] * written
