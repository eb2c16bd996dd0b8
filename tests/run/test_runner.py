"""The runner: worker processes give the same results in the same order, streaming with bounded look-ahead."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import MIGRATE

from torchmigrate.api import make_options
from torchmigrate.run.runner import Runner, Task, run_tasks

LEGACY = "import torch\n\nep = torch.export.export_for_inference(model, (x,), decomp_table=table)\n"
TRAINING = "from torch.export import export_for_training\n\nep = export_for_training(m, (x,))\n"
MENTION = '"""Docs about export_for_training."""\nimport torch\n'
PLAIN = "import os\n\nprint(os.getcwd())\n"
BROKEN = "import torch\nep = torch.export.export_for_training(m, (x,)\n"


@pytest.fixture
def many(tmp_path: Path) -> Path:
    texts = [LEGACY, TRAINING, MENTION, PLAIN, BROKEN]
    for i in range(60):
        folder = tmp_path / f"d{i % 3}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i:02d}.py").write_text(texts[i % len(texts)] + f"\nVALUE_{i} = {i}\n")
    return tmp_path


def _tasks(root: Path) -> list[Task]:
    options = make_options("2.12", "2.7")
    return [Task(p, options) for p in sorted(root.rglob("*.py"))]


def _records(results: object) -> list[tuple[object, ...]]:
    return [(r.path, r.new, r.edits, r.findings, r.error, r.passes_applied) for r in results]  # type: ignore[attr-defined]


def test_worker_processes_give_identical_results_in_path_order(many: Path) -> None:
    tasks = _tasks(many)
    inline = _records(run_tasks(tasks, write=False, jobs=1))
    pooled = _records(run_tasks(tasks, write=False, jobs=2))
    assert pooled == inline
    assert [r[0] for r in pooled] == [str(t.path) for t in tasks]
    assert sum(1 for r in inline if r[1] is not None) == 24  # legacy + training files changed
    assert sum(1 for r in inline if r[4] is not None) == 12  # broken files reported


def test_results_stream_with_a_bounded_look_ahead(many: Path) -> None:
    template = _tasks(many)
    taken = 0

    def endless() -> Iterator[Task]:
        nonlocal taken
        for task in itertools.cycle(template):
            taken += 1
            yield task

    runner = Runner(jobs=2, batch_size=4)
    try:
        stream = runner.run(endless(), write=False)
        first = [next(stream) for _ in range(10)]
    finally:
        runner.close()
    assert [r.path for r in first] == [str(t.path) for t in template[:10]]
    assert taken <= runner.window + runner.lookahead + 12  # never the whole (here endless) input


def test_only_files_with_trigger_words_reach_the_engine_and_unchanged_texts_are_dropped(many: Path) -> None:
    runner = Runner(jobs=1)
    results = list(runner.run(_tasks(many), write=False))
    runner.close()
    assert runner.engine_files == 48  # PLAIN files never leave the raw-bytes prefilter
    assert all(r.old is None and r.new is None for r in results if not r.changed)


def test_cli_jobs_do_not_change_the_output(many: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(MIGRATE), "--to", "2.12", "--from", "2.7", "--diff", "--no-cache", *args, "."],
            cwd=many,
            capture_output=True,
            timeout=120,
        )

    one, two = run("--jobs", "1"), run("--jobs", "2")
    assert one.returncode == two.returncode == 2  # the broken files
    assert one.stdout == two.stdout and one.stdout.count(b"\n--- a/") + 1 == 24
    assert one.stderr == two.stderr
    assert not (many / ".torchmigrate_cache").exists()


def test_a_batch_sent_early_for_the_window_takes_no_more_items(tmp_path: Path) -> None:
    """Few files need the engine and the window is short: the oldest file's batch is sent half full before it fills.
    Later files must go to a new batch (a worker has the old one's items already), or results go missing."""
    for i in range(120):
        (tmp_path / f"f{i:03d}.py").write_text((LEGACY if i % 9 == 0 else PLAIN) + f"\nVALUE_{i} = {i}\n")
    tasks = _tasks(tmp_path)
    expected = _records(run_tasks(tasks, write=False, jobs=1))
    runner = Runner(jobs=2, batch_size=4)
    runner.window = 5
    try:
        assert _records(runner.run(tasks, write=False)) == expected
    finally:
        runner.close()
    assert sum(1 for r in expected if r[1] is not None) == 14  # every legacy file migrated


def test_a_batch_sent_off_while_filling_gets_no_more_items(tmp_path: Path) -> None:
    """Regression: when few files reach the engine, the oldest pending file can sit in the batch still being filled;
    finishing it submits that batch, and later files must go to a new one (they were appended to the sent batch and
    their results were missing: IndexError with ``--jobs 2`` on a real tree)."""
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY if i % 10 == 0 else PLAIN)
    tasks = _tasks(tmp_path)
    inline = _records(run_tasks(tasks, write=False, jobs=1))
    runner = Runner(jobs=2, batch_size=8)
    runner.window = 5  # smaller than the gap between two engine files
    try:
        pooled = _records(runner.run(tasks, write=False))
    finally:
        runner.close()
    assert pooled == inline
    assert sum(1 for r in pooled if r[1] is not None) == 4


class _Recording:
    """An executor that runs batches here and records the order they were submitted in."""

    def __init__(self) -> None:
        self.order: list[list[str]] = []

    def submit(self, batch: list[tuple[bytes, str, object]]) -> object:
        self.order.append([shown for _, shown, _ in batch])
        return batch

    def result(self, handle: object) -> list[object]:
        from torchmigrate.run.executors import migrate_batch

        return migrate_batch(handle)  # type: ignore[arg-type]

    def close(self) -> None:
        pass


def test_work_starts_while_the_tree_is_still_being_listed(tmp_path: Path) -> None:
    """The look-ahead window fills a few tasks per task handed on: the first batch goes to a worker after a few dozen
    files are listed, not after the whole tree (listing torchvision's takes longer than its first batches), and a big
    file listed later still goes ahead of the small ones around it."""
    for i in range(200):
        (tmp_path / f"a{i:03d}.py").write_text(LEGACY + f"\nVALUE_{i} = {i}\n")
    (tmp_path / "m_big.py").write_text(LEGACY + "".join(f"\ndef helper_{k}(value):\n    return value + {k}\n" for k in range(400)))
    tasks = _tasks(tmp_path)
    listed: list[int] = []

    def listing() -> Iterator[Task]:
        for number, task in enumerate(tasks, 1):
            listed.append(number)
            yield task

    runner = Runner(jobs=2, batch_size=4)
    runner.big_file = (tmp_path / "m_big.py").stat().st_size
    recording = _Recording()
    pulled: list[int] = []
    submit = recording.submit

    def submitted(batch: list[tuple[bytes, str, object]]) -> object:
        pulled.append(len(listed))
        return submit(batch)

    recording.submit = submitted  # type: ignore[method-assign]
    runner._executor = recording  # type: ignore[assignment]
    try:
        assert _records(runner.run(listing(), write=False)) == _records(run_tasks(tasks, write=False, jobs=1))
    finally:
        runner.close()
    assert pulled[0] <= runner.lookahead_step * runner.batch_size < len(tasks)  # a batch of 4, 32 listed per task
    big = next(i for i, batch in enumerate(recording.order) if batch == [str(tmp_path / "m_big.py")])
    small_after = [i for i, batch in enumerate(recording.order) if any(p.endswith(("a199.py", "a150.py")) for p in batch)]
    assert all(big < i for i in small_after)


def test_big_files_are_sent_first_and_results_keep_task_order(tmp_path: Path) -> None:
    """A big file late in path order goes to a worker before the small ones around it, alone in its batch, so no
    worker is still on it when the others are done; the results still come in task order, as one process gives them."""
    for i in range(30):
        (tmp_path / f"a{i:02d}.py").write_text(LEGACY + f"\nVALUE_{i} = {i}\n")
    helpers = "".join(f"\ndef helper_{k}(value):\n    return value + {k}\n" for k in range(400))
    sizes = {"z_big1.py": 300, "z_big2.py": 400, "z_big3.py": 350}  # functions each: the second is the biggest
    for name, count in sizes.items():
        (tmp_path / name).write_text(LEGACY + helpers[: len(helpers) * count // 400])
    tasks = _tasks(tmp_path)
    expected = _records(run_tasks(tasks, write=False, jobs=1))
    runner = Runner(jobs=2, batch_size=4)
    runner.big_file = (tmp_path / "z_big1.py").stat().st_size
    runner.early_limit = 2  # at most two sent ahead of their turn at a time: the two biggest first
    runner.lookahead_step = len(tasks)  # the whole tree listed before the first file goes (see the next test)
    recording = _Recording()
    runner._executor = recording  # type: ignore[assignment]
    try:
        assert _records(runner.run(tasks, write=False)) == expected
    finally:
        runner.close()
    assert recording.order[:2] == [[str(tmp_path / "z_big2.py")], [str(tmp_path / "z_big3.py")]]
    assert sorted(p for batch in recording.order for p in batch) == sorted(str(t.path) for t in tasks)
    assert all(len(batch) <= 4 for batch in recording.order)
