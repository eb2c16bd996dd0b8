"""The truth harness's logic (benchmarks/realcode.py), on small repositories built here: offline and fast.

The line map and the new-failure rule, blame, the linters' output, formatter detection, and whole truth runs with a
stand-in ``migrate`` that is not idempotent and breaks a file (so the second-run and parse checks can fail), plus one
run of the real ``migrate`` with ruff as the linter and formatter.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import lintdiff  # noqa: E402
import realcode  # noqa: E402
from lintdiff import Diagnostic, LineMap, nearest_pass, new_failures  # noqa: E402


def d(code: str, line: int, message: str = "m") -> Diagnostic:
    return Diagnostic("t", code, line, 1, message)


# --- the line map and what counts as new ---------------------------------------------------------------------


def test_line_map_follows_inserted_and_replaced_lines() -> None:
    old = "a\nb\nc\nd\n"
    new = "a\nimport x\nb\nC\nd\n"
    lines = LineMap(old, new)
    assert lines.origin(1) == (-1, 1)
    assert lines.origin(3) == (-1, 2)  # b moved down one line
    assert lines.origin(5) == (-1, 4)
    assert lines.changed(2) and lines.changed(4)
    assert lines.old_line_of(4) == 3  # C replaced c
    assert lines.old_line_of(2) == 2  # an insertion maps to the line it was inserted before


def test_the_line_after_a_deleted_line_is_unchanged() -> None:
    """A migration that deletes an import line leaves the next line as it was: its old diagnostics (a long line)
    are not new."""
    old = "import a\nfrom b import c, d  # a long line\nx = 1\n"
    new = "from b import c, d  # a long line\nx = 1\n"
    lines = LineMap(old, new)
    assert lines.origin(1) == (-1, 2) and not lines.changed(1)
    long_line = Diagnostic("ruff", "E501", 2, 80, "Line too long (95 > 88)")
    assert lintdiff.new_failures([long_line], [Diagnostic("ruff", "E501", 1, 80, "Line too long (95 > 88)")], lines) == []


def test_a_diagnostic_that_moved_with_its_line_is_not_new() -> None:
    old = "import os\nx = 1\nlong_line\n"
    new = "import os\nimport sys\nx = 1\nlong_line\n"
    found = new_failures([d("E501", 3)], [d("E501", 4), d("F401", 2, "'sys' imported but unused")], LineMap(old, new))
    assert found == [d("F401", 2, "'sys' imported but unused")]


def test_an_unchanged_line_that_gains_a_code_is_new() -> None:
    # the edit removed the last use of `os`: F401 fires on the untouched import line
    old = "import os\nos.getcwd()\n"
    new = "import os\npass\n"
    unused = d("F401", 1, "'os' imported but unused")
    assert new_failures([], [unused], LineMap(old, new)) == [unused]


def test_messages_must_match_on_unchanged_lines_but_numbers_do_not_matter() -> None:
    old = "from a import x, y\nuse(x)\n"
    new = "from a import x, y\npass\n"
    before = [d("F401", 1, "'a.y' imported but unused")]
    after = [d("F401", 1, "'a.x' imported but unused"), d("F401", 1, "'a.y' imported but unused")]
    assert new_failures(before, after, LineMap(old, new)) == [after[0]]
    moved = [d("F811", 1, "redefinition of unused 'x' from line 7")]
    assert new_failures([d("F811", 1, "redefinition of unused 'x' from line 3")], moved, LineMap(old, new)) == []


def test_in_a_changed_hunk_only_codes_beyond_the_originals_count() -> None:
    old = "f(aaaaaaaaaa)\ng(bbbbbbbbbb)\n"
    new = "f(aaaaaaaaaa, x=1)\ng(bbbbbbbbbb, y=2)\n"
    lines = LineMap(old, new)
    assert new_failures([d("E501", 1, "line too long (90 > 79)")], [d("E501", 1, "line too long (95 > 79)")], lines) == []
    extra = d("E501", 2, "line too long (96 > 79)")
    assert new_failures([d("E501", 1)], [d("E501", 1), extra], lines) == [extra]


def test_nearest_pass_blames_the_closest_edit_and_the_earlier_on_a_tie() -> None:
    edits = [{"line": 10, "pass_id": "a"}, {"line": 30, "pass_id": "b"}, {"line": 50, "pass_id": "c"}]
    assert nearest_pass(28, edits) == "b"
    assert nearest_pass(20, edits) == "a"
    assert nearest_pass(1, []) is None


# --- the tools' outputs --------------------------------------------------------------------------------------


def test_parse_flake8_and_ruff_outputs(tmp_path: Path) -> None:
    flake8 = "./pkg/a.py:3:80: E501 line too long (90 > 79 characters)\npkg/b.py:1:1: F401 'os' imported but unused\nnoise\n"
    parsed = lintdiff.parse_flake8(flake8)
    assert parsed["pkg/a.py"] == [Diagnostic("flake8", "E501", 3, 80, "line too long (90 > 79 characters)")]
    assert parsed["pkg/b.py"][0].code == "F401"
    ruff = json.dumps(
        [
            {
                "code": "I001",
                "filename": str(tmp_path / "pkg" / "a.py"),
                "location": {"row": 1, "column": 1},
                "message": "unsorted",
            },
            {"code": None, "filename": str(tmp_path / "c.py"), "location": {"row": 2, "column": 5}, "message": "SyntaxError"},
        ]
    )
    parsed = lintdiff.parse_ruff(ruff, tmp_path)
    assert parsed["pkg/a.py"] == [Diagnostic("ruff", "I001", 1, 1, "unsorted")]
    assert parsed["c.py"][0].code == "syntax-error"


def test_formatter_detection(tmp_path: Path) -> None:
    assert lintdiff.configured_formatters(tmp_path) == {}
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert lintdiff.configured_formatters(tmp_path) == {}  # ruff as a linter only: its formatter is not configured
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n\n[tool.ruff.format]\nquote-style = 'single'\n")
    assert set(lintdiff.configured_formatters(tmp_path)) == {"black", "ruff-format"}
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n"
    )
    assert lintdiff.configured_formatters(tmp_path) == {"black": "black hook in .pre-commit-config.yaml"}
    (tmp_path / ".pre-commit-config.yaml").unlink()
    (tmp_path / "ruff.toml").write_text("[format]\nquote-style = 'double'\n")
    assert lintdiff.configured_formatters(tmp_path) == {"ruff-format": "[format] in ruff.toml"}


def test_the_configured_line_length_is_the_projects_limit_for_flake8_without_its_own_config(tmp_path: Path) -> None:
    """A project that configures ruff/black at 100 columns and no flake8 does not run pycodestyle at 79: the harness
    gives flake8 the project's length; a ``[flake8]`` section of the project's own is read as it is."""
    assert lintdiff.configured_line_length(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n\n[tool.black]\nline-length = 100\n")
    assert lintdiff.configured_line_length(tmp_path) == 100
    assert not lintdiff.has_flake8_config(tmp_path)
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    assert not lintdiff.has_flake8_config(tmp_path)
    (tmp_path / "tox.ini").write_text("[tox]\n\n[flake8]\nmax-line-length = 79\n")
    assert lintdiff.has_flake8_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff.lint]\nignore = ['C408']\n\n[tool.yapf]\ncolumn_limit = 120\n")
    assert lintdiff.configured_line_length(tmp_path) == 120  # yapf's limit; ruff's table sets none


@pytest.mark.skipif(lintdiff.tool_path("flake8") is None, reason="flake8 is not installed (the truth extra)")
def test_flake8_runs_with_the_projects_line_length(tmp_path: Path) -> None:
    line = "value = [" + ", ".join(str(n) for n in range(30)) + "]\n"  # 118 columns
    (tmp_path / "a.py").write_text(line)
    assert [d.code for d in lintdiff.run_flake8(tmp_path, ["a.py"], [])["a.py"]] == ["E501"]
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    assert lintdiff.run_flake8(tmp_path, ["a.py"], []).get("a.py", []) == []
    (tmp_path / ".flake8").write_text("[flake8]\nmax-line-length = 100\n")  # its own configuration wins
    assert [d.code for d in lintdiff.run_flake8(tmp_path, ["a.py"], [])["a.py"]] == ["E501"]


def test_parses_knows_each_kind() -> None:
    assert realcode.parses("a.py", "x = 1\n") is True
    assert realcode.parses("a.py", "def f(:\n") is False
    assert realcode.parses("pyproject.toml", "[project\n") is False
    assert realcode.parses("setup.cfg", "[options]\ninstall_requires =\n    torch\n") is True
    assert realcode.parses("requirements.txt", "anything") is None
    notebook = {"cells": [{"cell_type": "code", "source": ["%matplotlib inline\n", "x = 1\n"]}]}
    broken = {"cells": [{"cell_type": "code", "source": ["%matplotlib inline\n", "x = (\n"]}]}
    assert realcode.notebook_cells_parse(json.dumps(notebook), json.dumps(broken)) == [1]
    assert realcode.notebook_cells_parse(json.dumps(notebook), json.dumps(notebook)) == []


def test_known_release_raises_an_old_pin_to_the_oldest_known_release() -> None:
    from torchmigrate.core.versions import OLDEST

    assert realcode.known_release("1.5") == str(OLDEST)
    assert realcode.known_release("2.7") == "2.7"
    assert realcode.known_release(None) == str(OLDEST)


# --- whole truth runs with a stand-in migrate ------------------------------------------------------------------

FAKE_MIGRATE = """
import json, os, sys
from pathlib import Path

args = sys.argv[1:]
report = Path(args[args.index("--report") + 1])
diff = "--diff" in args
files = []
for path in sorted(Path(".").rglob("*.py")):
    text = path.read_text()
    new = text + "counter = 1\\n"  # every run adds a line: never a fixed point
    if path.name == "bad.py":
        new = text + "def broken(:\\n"
    if not diff:
        path.write_text(new)
    line = text.count("\\n") + 1
    files.append({"path": path.as_posix(), "changed": True, "written": not diff, "passes_applied": ["fake-pass"],
                  "edits": [{"line": line, "col": 1, "pass_id": "fake-pass", "message": "adds a line", "safety": "safe"}],
                  "findings": [{"line": 1, "col": 1, "pass_id": "fake-finder", "message": "look here"}], "error": None})
report.write_text(json.dumps({"files": files, "repos": [{"from": "2.0"}]}))
"""


def _fake_config(tmp_path: Path, **overrides: object) -> realcode.Config:
    script = tmp_path / "fake_migrate.py"
    script.write_text(FAKE_MIGRATE)
    work = tmp_path / "work"
    work.mkdir()
    settings: dict[str, object] = {"work": work, "lint": False, "resolve": False, "migrate": [sys.executable, str(script)]}
    settings.update(overrides)
    return realcode.Config(**settings)  # type: ignore[arg-type]


def _repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root


def test_second_runs_that_still_change_files_and_outputs_that_do_not_parse_are_reported(tmp_path: Path) -> None:
    src = _repo(tmp_path / "src", {"good.py": "x = 1\n", "bad.py": "y = 2\n"})
    cfg = _fake_config(tmp_path)
    copy = realcode.copy_tree(src, tmp_path / "copy")
    run = realcode.truth_run("repo", src, copy, cfg, unsafe=False)
    assert run["changed"] == 2 and run["edits"] == 2 and run["findings"] == 2
    classes = sorted((f["class"], f["file"]) for f in run["failures"])
    assert classes == [("second-run", "bad.py"), ("second-run", "good.py"), ("unparsable", "bad.py")]
    assert run["per_pass"]["fake-pass"] == {"edits": 2, "second-run": 2, "unparsable": 1}
    assert run["per_pass"]["fake-finder"] == {"findings": 2}
    assert (src / "good.py").read_text() == "x = 1\n"  # the source tree is never written


def test_a_run_that_takes_too_long_gives_no_figures(tmp_path: Path) -> None:
    src = _repo(tmp_path / "src", {"a.py": "import torch\n"})
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(30)\n")
    cfg = _fake_config(tmp_path, migrate=[sys.executable, str(slow)], timeout=0.5)
    result = realcode.study("slow", src, cfg)
    assert result["bench"] is None and result["runs"] == {}
    assert len(cfg.notes) == 1 and "slow: the cold run did not finish within" in cfg.notes[0]
    assert result["seconds"] < 20


def test_lint_regressions_are_blamed_on_the_nearest_edit(tmp_path: Path) -> None:
    pristine = _repo(
        tmp_path / "p", {"pyproject.toml": "[tool.ruff]\nline-length = 40\n", "m.py": "import os\n\nprint(os.sep)\n\n\nz = 3\n"}
    )
    migrated = _repo(
        tmp_path / "m",
        {
            "pyproject.toml": "[tool.ruff]\nline-length = 40\n",
            "m.py": "import os\n\nprint('x')\n\n\nz = 3  # an edit made this line far too long\n",
        },
    )
    edits = {"m.py": [{"line": 3, "pass_id": "print-pass"}, {"line": 6, "pass_id": "z-pass"}]}
    notes: list[str] = []
    found, checked = realcode.lint_regressions(pristine, migrated, ["m.py"], edits, notes)
    assert "ruff" in checked["tools"]
    ruff = sorted((f["code"], f["line"], f["pass"]) for f in found if f["tool"] == "ruff")
    assert ruff == [("E501", 6, "z-pass"), ("F401", 1, "print-pass")]
    assert all(f["passes"] == ["print-pass", "z-pass"] for f in found)


@pytest.mark.skipif(lintdiff.tool_path("black") is None, reason="black is not installed (the truth extra)")
def test_black_regressions_name_the_first_line_black_would_change(tmp_path: Path) -> None:
    config = {"pyproject.toml": "[tool.black]\nline-length = 60\n"}
    pristine = _repo(tmp_path / "p", {**config, "a.py": "x = 1\ny = f(1, 2)\n", "b.py": "z = 1\n", "c.py": "w  =  1\n"})
    migrated = _repo(
        tmp_path / "m",
        {
            **config,
            "a.py": "x = 1\ny = f(1, 2, a_rather_long_keyword=1, another_keyword=2, third=3)\n",
            "b.py": "z = 2\n",
            "c.py": "w  =  2\n",
        },
    )
    edits = {
        "a.py": [{"line": 2, "pass_id": "kw-pass"}],
        "b.py": [{"line": 1, "pass_id": "b-pass"}],
        "c.py": [{"line": 1, "pass_id": "c-pass"}],
    }
    found, checked = realcode.lint_regressions(pristine, migrated, ["a.py", "b.py", "c.py"], edits, [])
    assert checked["formatters"] == {"black": "[tool.black] in pyproject.toml"}
    assert checked["formatted_originals"] == {"black": 2}  # c.py was not black-clean before: not checked
    formats = [(f["file"], f["line"], f["pass"]) for f in found if f["class"] == "format"]
    assert formats == [("a.py", 2, "kw-pass")]


# --- the real migrate, end to end -----------------------------------------------------------------------------


@pytest.mark.skipif(realcode.tool_path("migrate") is None, reason="the migrate command is not installed")
def test_real_migrate_on_a_small_repository(tmp_path: Path) -> None:
    """An ``assert_allclose`` line that the rewrite makes longer than flake8's default line length (which the tool
    keeps to when a project configures none), and that the tool cannot wrap (a trailing comment: black would move it):
    a lint regression, blamed on assert-allclose. (A line it can wrap is wrapped: ``test_a_configured_line_length_is_kept``.)"""
    src = _repo(
        tmp_path / "proj",
        {
            "pyproject.toml": """\
                [project]
                name = "proj"
                version = "0"
                dependencies = ["torch==2.7.1", "numpy"]
                """,
            "check.py": """\
                import torch


                def check(a, b):
                    torch.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)  # tolerances
                """,
            "other.py": "x = 1\n",
        },
    )
    calls: list[list[str]] = []

    def fake_pip(command: list[str], timeout: float) -> tuple[int, str, str]:
        calls.append(command)
        requested = Path(command[-1]).read_text()
        if "torch==2.7.1" in requested:
            return 0, json.dumps({"install": [{"metadata": {"name": "torch", "version": "2.7.1"}}]}), ""
        return 1, "", "ERROR: ResolutionImpossible: torch and numpy conflict"

    cfg = realcode.Config(work=tmp_path / "work", pip_runner=fake_pip, unsafe=True)
    cfg.work.mkdir()
    result = realcode.study("proj", src, cfg)
    default, unsafe = result["runs"]["default"], result["runs"]["unsafe"]
    # assert-allclose is a review pass: by default a finding that carries the change, with --unsafe-fixes an edit
    assert default["per_pass"]["assert-allclose"].get("edits", 0) == 0
    assert sorted(default["changed_files"]) == ["pyproject.toml"]
    assert unsafe["per_pass"]["assert-allclose"]["edits"] == 1
    assert sorted(unsafe["changed_files"]) == ["check.py", "pyproject.toml"]
    lint = [f for f in unsafe["failures"] if f["class"] == "lint" and f["code"] == "E501"]
    assert lint and lint[0]["pass"] == "assert-allclose" and lint[0]["file"] == "check.py"
    assert not [f for f in unsafe["failures"] if f["class"] == "format"]  # no formatter configured
    run = default
    assert not [f for f in run["failures"] if f["class"] in ("second-run", "unparsable")]
    assert not [n for n in cfg.notes if "second run" in n]  # the second run ran (and changed nothing)
    # the pin moved: the set resolved before and (says the stand-in index) not after
    resolution = run["resolution"]
    assert resolution["sets_changed"] == 1 and resolution["regressions"] == 1
    assert [f["pass"] for f in run["failures"] if f["class"] == "no-longer-resolves"] == ["torch-pin"]
    assert len(calls) == 2
    bench = result["bench"]
    assert bench["funnel"] == {
        "py_files": 2,
        "trigger_word": 1,
        "precheck_keeps": 1,
        "edited": 0,
    }  # default run: review edit held
    assert bench["cold_s"] > 0 and bench["warm_s"] > 0 and bench["peak_rss_mb"] > 0
    table = realcode.markdown(
        {
            "trees": [result],
            "date": "d",
            "machine": {"cpus": 2, "python": "3"},
            "to": "2.12",
            "jobs": 2,
            "command": "c",
            "unsafe_fixes_available": cfg.unsafe,
            "notes": [],
            "load": [0.0, 0.0],
        }
    )
    assert "| proj | 2 |" in table and "`assert-allclose` | 0 | 1 | 1 |" in table  # default: 0 edits, 1 finding; unsafe: 1 edit
    assert not (src / ".torchmigrate_cache").exists()
    shutil.rmtree(cfg.work)


@pytest.mark.skipif(realcode.tool_path("migrate") is None, reason="the migrate command is not installed")
@pytest.mark.skipif(lintdiff.tool_path("ruff") is None, reason="ruff is not installed")
def test_a_configured_line_length_is_kept(tmp_path: Path) -> None:
    """The same edit in a project that sets ruff's line length and formatter: the harness finds no lint or format
    regression, because the edited call is wrapped the way the formatter wraps it."""
    src = _repo(
        tmp_path / "proj",
        {
            "pyproject.toml": """\
                [project]
                name = "proj"
                version = "0"

                [tool.ruff]
                line-length = 80

                [tool.ruff.format]
                quote-style = "double"
                """,
            "check.py": """\
                import torch


                def check(a, b):
                    torch.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)
                """,
        },
    )
    cfg = realcode.Config(work=tmp_path / "work", pip_runner=lambda command, timeout: (0, "{}", ""), unsafe=True)
    cfg.work.mkdir()
    unsafe = realcode.study("proj", src, cfg)["runs"]["unsafe"]
    assert unsafe["per_pass"]["assert-allclose"]["edits"] == 1
    assert not [f for f in unsafe["failures"] if f["class"] in ("lint", "format", "second-run", "unparsable")]


def test_the_ast_parse_baseline_is_timed_in_a_fresh_process(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text("x = 1\n" * 50)
    (tmp_path / "bad.py").write_text("def f(:\n")
    seconds, cpu, unparsable = realcode._time_ast_parse(sorted(tmp_path.glob("*.py")))
    assert unparsable == 1
    assert 0 < seconds < 10 and 0 < cpu < 10


def test_peak_rss_is_the_commands_own_not_the_harness(tmp_path: Path) -> None:
    # Linux counts the memory a process had before exec in its peak RSS: a harness that has grown must not show
    # up in the figures of the small commands it runs after
    grown = bytearray(250 * 2**20)
    for offset in range(0, len(grown), 4096):
        grown[offset] = 1
    small = realcode.run_timed([sys.executable, "-c", "print('small')"], tmp_path)
    large = realcode.run_timed(
        [sys.executable, "-c", "b = bytearray(150 * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1"], tmp_path
    )
    del grown
    assert small.returncode == 0 and small.stdout == b"small\n"
    assert small.max_rss_mb < 100
    assert 150 < large.max_rss_mb < 250
    assert 0 < small.seconds < 10 and 0 < small.cpu_s < 10


def test_the_exit_code_of_the_command_comes_through(tmp_path: Path) -> None:
    done = realcode.run_timed([sys.executable, "-c", "import sys; sys.stderr.write('e'); sys.exit(3)"], tmp_path)
    assert done.returncode == 3 and done.stderr == b"e" and not done.timed_out


def test_a_timed_run_adds_no_entry_to_the_temporary_folder(tmp_path: Path) -> None:
    # the trees the harness studies lie under it: a new entry there while the tool runs changes their project
    # signature, and the tool reads the project again on a warm run, which the warm figure must not include
    import tempfile

    folder = Path(tempfile.gettempdir())
    before = sorted(p.name for p in folder.iterdir())
    lister = "import json, os, tempfile; print(json.dumps(sorted(os.listdir(tempfile.gettempdir()))))"
    seen = realcode.run_timed([sys.executable, "-c", lister], tmp_path)
    assert seen.returncode == 0
    assert json.loads(seen.stdout) == before
