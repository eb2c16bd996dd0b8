"""The replay of an unchanged read-only run (torchmigrate.run.replay): the same command over the same files prints what
it printed, without the command line; anything that could change the output makes it run again."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from torchmigrate.run import replay

PAST = 1_600_000_000  # seconds: older than the two seconds within which a file is not trusted

_LAUNCH = """
import sys
from torchmigrate.launch import main
sys.argv = ["migrate", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stdout.flush()
print("::typer loaded:", "typer" in sys.modules, "exit:", code, file=sys.stderr)
"""


def _age(root: Path) -> None:
    """Every file and folder under ``root`` dated in the past (the cache folder included: it is left out anyway)."""
    for folder, subfolders, names in os.walk(root):
        for name in [*names, *subfolders]:
            os.utime(os.path.join(folder, name), (PAST, PAST), follow_symlinks=False)
    os.utime(root, (PAST, PAST))
    time.sleep(0.05)  # their status-change times (now) clearly before the next run's start


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)  # the git top: what lies above is looked at for names only
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("import torch\nq, r = torch.qr(x)\n")
    (root / "pkg" / "b.py").write_text("import torch\nx = torch.load('m.pt')\n")
    (root / "pkg" / "c.py").write_text("print('no torch here')\n")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("jobs: {}\n")
    _age(root)
    return root


class Run:
    def __init__(self, done: subprocess.CompletedProcess[bytes]) -> None:
        lines = done.stderr.splitlines()
        self.tail = lines[-1].decode()
        self.stdout = done.stdout
        self.stderr = b"\n".join(lines[:-1])
        self.replayed = "typer loaded: False" in self.tail
        self.code = int(self.tail.rsplit("exit:", 1)[1])


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    command = [sys.executable, "-c", _LAUNCH, "--to", "2.12", *args]
    done = subprocess.run(command, cwd=root, capture_output=True, check=False, env={**os.environ, **(env or {})})
    return Run(done)


def _settled(root: Path, *args: str) -> Run:
    """The first run of ``args``: never a replay (and recorded, when it may be)."""
    first = _run(root, *args)
    assert not first.replayed
    return first


def test_an_unchanged_diff_run_is_replayed_without_the_command_line(tree: Path) -> None:
    recorded = _settled(tree, "--diff", ".")
    assert b"torch.linalg.qr" in recorded.stdout and recorded.code == 0
    again = _run(tree, "--diff", ".")
    assert again.replayed
    assert (again.stdout, again.stderr, again.code) == (recorded.stdout, recorded.stderr, recorded.code)
    assert list((tree / ".torchmigrate_cache" / "runs").iterdir())


def test_a_check_run_is_replayed_with_its_exit_code(tree: Path) -> None:
    recorded = _settled(tree, "--check", ".")
    assert recorded.code == 1
    again = _run(tree, "--check", ".")
    assert again.replayed and again.code == 1 and again.stderr == recorded.stderr


def test_a_file_with_other_bytes_runs_again_even_with_the_same_size_and_time(tree: Path) -> None:
    _settled(tree, "--diff", ".")
    source = tree / "pkg" / "a.py"
    status = source.stat()
    source.write_text(source.read_text().replace("torch.qr", "torch.Qr"))  # same size
    os.utime(source, ns=(status.st_atime_ns, status.st_mtime_ns))  # and the same time
    again = _run(tree, "--diff", ".")
    assert not again.replayed
    assert b"torch.linalg.qr" not in again.stdout


def test_a_new_file_or_folder_runs_again(tree: Path) -> None:
    _settled(tree, "--diff", ".")
    (tree / "pkg" / "sub").mkdir()
    (tree / "pkg" / "sub" / "d.py").write_text("import torch\nq, r = torch.qr(y)\n")
    _age(tree)
    again = _run(tree, "--diff", ".")
    assert not again.replayed and b"pkg/sub/d.py" in again.stdout


def test_a_file_the_run_did_not_read_but_listed_runs_again_when_it_changes(tree: Path) -> None:
    # The CI file's reading is kept by the project readers under its size and time: the replay checks them too.
    _settled(tree, "--diff", ".")
    assert _run(tree, "--diff", ".").replayed
    workflow = tree / ".github" / "workflows" / "ci.yml"
    workflow.write_text("jobs: {a: {}}\n")
    os.utime(workflow, (PAST + 5, PAST + 5))
    assert not _run(tree, "--diff", ".").replayed


def test_a_new_entry_above_the_project_runs_again(tree: Path) -> None:
    _settled(tree, "--diff", ".")
    (tree.parent / "pyproject.toml").write_text("[tool.torchmigrate]\nto = '2.12'\n")
    assert not _run(tree, "--diff", ".").replayed


def test_another_command_or_environment_is_not_replayed(tree: Path) -> None:
    _settled(tree, "--diff", ".")
    assert not _run(tree, "--diff", "pkg").replayed
    assert not _run(tree, "--diff", ".", env={"SOME_SETTING": "1"}).replayed
    assert not _run(tree, "--diff", "--unsafe-fixes", ".").replayed
    assert _run(tree, "--diff", ".").replayed


def test_no_cache_neither_reads_nor_writes_a_record(tree: Path) -> None:
    _run(tree, "--diff", "--no-cache", ".")
    _age(tree)
    _run(tree, "--diff", "--no-cache", ".")
    assert not (tree / ".torchmigrate_cache").exists()
    _settled(tree, "--diff", ".")
    assert not _run(tree, "--diff", "--no-cache", ".").replayed


def test_a_write_run_or_a_run_with_a_report_file_is_never_recorded(tree: Path) -> None:
    for args in (("--diff", "--output-file", "../out.diff", "."), ("--check", "--report", "../r.json", ".")):
        _settled(tree, *args)
        assert not _run(tree, *args).replayed
    written = _run(tree, ".")  # writes the migration
    assert not written.replayed and "torch.linalg.qr" in (tree / "pkg" / "a.py").read_text()
    runs = tree / ".torchmigrate_cache" / "runs"
    assert not runs.exists() or not list(runs.iterdir())


def test_a_file_the_tool_cannot_parse_is_an_error_of_its_bytes_and_replayed(tree: Path) -> None:
    (tree / "pkg" / "broken.py").write_text("import torch\nq, r = torch.qr(\n")
    _age(tree)
    first = _settled(tree, "--diff", ".")
    assert first.code == 2 and b"broken.py: error" in first.stderr
    again = _run(tree, "--diff", ".")
    assert again.replayed and (again.code, again.stderr, again.stdout) == (first.code, first.stderr, first.stdout)


def test_a_run_with_a_file_it_could_not_read_is_not_recorded(tree: Path) -> None:
    (tree / "pkg" / "gone.py").symlink_to("missing.py")  # listed, and its read fails
    _age(tree)
    first = _settled(tree, "--diff", ".")
    assert first.code == 2 and b"cannot read" in first.stderr
    assert not _run(tree, "--diff", ".").replayed
    runs = tree / ".torchmigrate_cache" / "runs"
    assert not runs.exists() or not list(runs.iterdir())


def test_a_failure_of_the_command_line_is_not_recorded(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[tool.torchmigrate]\nselect = ['no-such-pass']\n")
    _age(tree)
    first = _settled(tree, "--diff", ".")
    assert first.code == 2 and b"error" in first.stderr
    assert not _run(tree, "--diff", ".").replayed


def test_a_file_changed_a_moment_ago_keeps_the_run_from_being_recorded(tree: Path) -> None:
    _run(tree, "--diff", ".")
    _age(tree)
    (tree / "pkg" / "c.py").write_text("print('now')\n")  # modified now: a change in the same tick would not show
    _run(tree, "--diff", ".")
    assert not _run(tree, "--diff", ".").replayed
    _age(tree)
    (tree / "pkg" / "notes.txt").write_text("listed, never read\n")  # the same for a file the run only listed
    _run(tree, "--diff", ".")
    assert not _run(tree, "--diff", ".").replayed
    _age(tree)
    _run(tree, "--diff", ".")
    assert _run(tree, "--diff", ".").replayed


def test_a_worker_that_opens_a_file_of_the_user_s_keeps_the_run_from_being_recorded(tree: Path) -> None:
    recorder = replay.Recorder(["--diff", "."])
    replay._Allowed.root, replay._Allowed.paths = str(tree), (str(tree),)
    recorder._saved = (sys.stdout, sys.stderr)  # as start() leaves them (streams untouched here)
    recorder.worker_saw("open", (str(tree / "pkg" / "a.py"), "r", 0))
    assert recorder.flagged
    recorder.worker_saw("open", (str(Path(replay.__file__)), "r", 0))  # the tool's own files do not count
    mark = replay._worker_mark(str(tree), recorder.key)
    assert os.path.exists(mark)
    recorder.stop(0)
    assert not os.path.exists(mark)
    assert not os.path.exists(replay._record_path(str(tree), recorder.key))


def test_the_key_covers_the_tool_stamp(monkeypatch: pytest.MonkeyPatch) -> None:
    key = replay.run_key(["--diff", "."], "/x", {"A": "1"})
    assert replay.run_key(["--diff", "."], "/x", {"A": "1", "OLDPWD": "/y", "SHLVL": "3"}) == key
    monkeypatch.setattr(replay, "tool_stamp", lambda: "another build")
    assert replay.run_key(["--diff", "."], "/x", {"A": "1"}) != key


def test_a_damaged_record_is_a_miss(tree: Path) -> None:
    recorded = _settled(tree, "--diff", ".")
    for record in (tree / ".torchmigrate_cache" / "runs").iterdir():
        record.write_bytes(b"\x00not marshal")
    again = _run(tree, "--diff", ".")
    assert not again.replayed and again.stdout == recorded.stdout


def _files(count: int, root: Path) -> None:
    for index in range(count):
        (root / "pkg" / f"m{index}.py").write_text(f"import torch\nq{index}, r = torch.qr(x)\n")


def test_a_run_whose_reader_went_away_is_not_recorded_and_a_replay_into_a_closed_pipe_stops_quietly(tree: Path) -> None:
    _files(400, tree)  # a diff larger than a pipe's buffer
    _age(tree)
    launch = f"{sys.executable} -c '{_LAUNCH}' --to 2.12 --diff ."
    reader = "true"  # gone before the first write: every write meets a closed pipe

    def shell(command: str) -> subprocess.CompletedProcess[bytes]:  # every run from the same shell: one environment
        return subprocess.run(["bash", "-c", command], cwd=tree, capture_output=True, check=False)

    cut = shell(f"{launch} | {reader}")
    assert b"typer loaded: True" in cut.stderr
    full = shell(f"{launch} | cat")  # not the cut run's record: it runs again, in full
    assert b"typer loaded: True exit: 0" in full.stderr and full.stdout.count(b"+++ b/") == 401
    again = shell(f"{launch} | cat")
    assert b"typer loaded: False exit: 0" in again.stderr and again.stdout == full.stdout
    replayed_cut = shell(f"{launch} | {reader}")
    assert b"typer loaded: False exit: 1" in replayed_cut.stderr and b"Traceback" not in replayed_cut.stderr


def test_a_skipped_folder_the_walk_looked_into_is_compared_too(tree: Path) -> None:
    (tree / "tools").mkdir()
    (tree / "tools" / "pyvenv.cfg").write_text("home = /usr\n")  # a virtual environment: skipped
    (tree / "tools" / "b.py").write_text("import torch\nq, r = torch.qr(y)\n")
    _age(tree)
    recorded = _settled(tree, "--diff", ".")
    assert b"tools/b.py" not in recorded.stdout
    assert _run(tree, "--diff", ".").replayed
    (tree / "tools" / "pyvenv.cfg").unlink()
    os.utime(tree / "tools", (PAST, PAST))
    again = _run(tree, "--diff", ".")
    assert not again.replayed and b"tools/b.py" in again.stdout


def test_a_link_that_points_elsewhere_runs_again(tree: Path) -> None:
    store = tree / ".store"
    store.mkdir()
    (store / "t.py").write_text("import torch\nq, r = torch.qr(z)\n")
    (tree / "pkg" / "link.py").symlink_to("../.store/t.py")
    _age(tree)
    recorded = _settled(tree, "--diff", ".")
    assert b"link.py" in recorded.stdout
    outside = tree.parent / "outside"
    outside.mkdir()
    (outside / "t.py").write_text((store / "t.py").read_text())
    (tree / "pkg" / "link.py").unlink()
    (tree / "pkg" / "link.py").symlink_to("../../outside/t.py")  # same bytes, now outside the PATH
    _age(tree)
    _age(outside)
    again = _run(tree, "--diff", ".")
    assert not again.replayed and b"link.py" not in again.stdout


def test_a_run_that_reads_a_pipe_or_a_device_is_not_recorded(tree: Path) -> None:
    config = tree.parent / "c.toml"
    config.write_text("[tool.torchmigrate]\nignore = ['linalg-deprecated']\n")
    os.utime(config, (PAST, PAST))
    command = f"{sys.executable} -c '{_LAUNCH}' --to 2.12 --check --config /dev/stdin . < {config}"
    for _ in range(2):
        done = subprocess.run(["bash", "-c", command], cwd=tree, capture_output=True, check=False)
        assert b"typer loaded: True" in done.stderr


def test_a_link_above_the_project_that_comes_to_point_at_something_runs_again(tree: Path) -> None:
    (tree.parent / "pyproject.toml").symlink_to("shared.toml")  # points at nothing yet
    _settled(tree, "--check", ".")
    assert _run(tree, "--check", ".").replayed
    (tree.parent / "shared.toml").write_text("[tool.torchmigrate]\nignore = ['linalg-deprecated']\n")
    assert not _run(tree, "--check", ".").replayed


def test_a_file_read_and_gone_or_changed_while_the_run_ran_keeps_it_from_being_recorded(tree: Path) -> None:
    for change in ("delete", "rewrite"):
        recorder = replay.Recorder(["--diff", "."])
        replay._Allowed.root, replay._Allowed.paths = None, ()
        replay.allow([str(tree)])
        recorder._saved = (sys.stdout, sys.stderr)
        target = tree / "pkg" / f"{change}.py"
        target.write_text("x = 1\n")
        os.utime(target, (PAST, PAST))
        recorder.start_ns += 5  # the file was there, and old, when the run began
        recorder.saw("open", (str(target), "r", 0))
        if change == "delete":
            target.unlink()
        else:
            target.write_text("y = 2\n")
            os.utime(target, (PAST, PAST))  # its modification time set back; its status-change time is now
        recorder.stop(0)
        assert not os.path.exists(replay._record_path(str(tree), recorder.key))


def test_another_release_of_a_loaded_module_runs_again(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(tree, "--diff", ".")
    [record_file] = (tree / ".torchmigrate_cache" / "runs").iterdir()
    import marshal

    record = marshal.loads(record_file.read_bytes())
    modules = {path for path, _, _ in record["modules"]}
    assert any("typer" in path for path in modules) and any(path.endswith("sqlite3/__init__.py") for path in modules)
    assert replay._holds(record)
    path, size, mtime = record["modules"][0]
    record["modules"][0] = (path, size, mtime + 1)
    assert not replay._holds(record)


def test_the_key_covers_the_terminals_around_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # stdout and stderr are never terminals here, but stdin may be one, and a console library sizes its tables from it
    key = replay.run_key(["--diff", "."], "/x", {})
    monkeypatch.setattr(replay, "_terminal_size", lambda fd: (120, 40) if fd == 0 else None)
    wide = replay.run_key(["--diff", "."], "/x", {})
    monkeypatch.setattr(replay, "_terminal_size", lambda fd: (30, 40) if fd == 0 else None)
    assert len({key, wide, replay.run_key(["--diff", "."], "/x", {})}) == 3


def test_a_linked_folder_the_walk_looked_into_and_a_chain_of_links_are_compared_too(tree: Path) -> None:
    (tree / ".gitignore").write_text("vendor/\n")
    (tree / "vendor" / "torchstubs").mkdir(parents=True)
    (tree / "stubs").mkdir()
    (tree / "stubs" / "torch").symlink_to("../vendor/torchstubs")  # a stub package, once it holds __init__.pyi
    (tree / "stubs" / "t.py").write_text("import torch\nq, r = torch.qr(y)\n")
    store = tree / ".store" / "deep"
    store.mkdir(parents=True)
    (store / "real.py").write_text("import torch\nq, r = torch.qr(w)\n")
    (store / "t.py").symlink_to("real.py")
    (tree / "pkg" / "link.py").symlink_to("../.store/deep/t.py")
    _age(tree)
    recorded = _settled(tree, "--diff", ".")
    assert b"stubs/t.py" in recorded.stdout and b"pkg/link.py" in recorded.stdout
    assert _run(tree, "--diff", ".").replayed
    (tree / "vendor" / "torchstubs" / "__init__.pyi").write_text("")
    _age(tree)
    again = _run(tree, "--diff", ".")
    assert not again.replayed and b"stubs/t.py" not in again.stdout
    outside = tree.parent / "outside"
    outside.mkdir()
    (outside / "t.py").write_text((store / "real.py").read_text())
    (store / "t.py").unlink()
    (store / "t.py").symlink_to("../../../outside/t.py")  # the chain's second link, to the same bytes outside
    _age(tree)
    _age(outside)
    moved = _run(tree, "--diff", ".")
    assert not moved.replayed and b"pkg/link.py" not in moved.stdout


def test_the_run_s_own_output_file_in_the_project_is_not_an_input(tree: Path) -> None:
    launch = f"{sys.executable} -c '{_LAUNCH}' --to 2.12 --diff . > changes.diff"
    runs = [subprocess.run(["bash", "-c", launch], cwd=tree, capture_output=True, check=False) for _ in range(2)]
    assert b"typer loaded: True" in runs[0].stderr and b"typer loaded: False" in runs[1].stderr
    assert b"torch.linalg.qr" in (tree / "changes.diff").read_bytes()


def test_a_command_that_fails_or_runs_with_the_replay_off_leaves_no_record_folder(tree: Path) -> None:
    failed = _run(tree, "--diff", "--select", "no-such-pass", ".")
    assert failed.code == 2 and not (tree / ".torchmigrate_cache").exists()
    _run(tree, "--diff", ".", env={"TORCHMIGRATE_NO_REPLAY": "1"})
    assert (tree / ".torchmigrate_cache").is_dir() and not (tree / ".torchmigrate_cache" / "runs").exists()
