"""`[tool.torchmigrate]` in pyproject.toml: discovery, precedence of the command line, per-file-ignores, excludes,
clear errors; and the pre-commit hooks, whose entries are run as real commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path, PurePath

import pytest
import yaml
from support.cli import invoke, run

from torchmigrate.project.pins import project_kind
from torchmigrate.run.config import ConfigError, Overrides, load_config, plan, tasks
from torchmigrate.run.files import SOURCE_SUFFIXES

ROOT = Path(__file__).resolve().parents[2]

TRAINING = "import torch\nep = torch.export.export_for_training(m, (x,))\n"  # export-for-training, 2.11
INFERENCE = "import torch\nep = torch.export.export_for_inference(m, (x,))\n"  # export-for-inference, 2.8
CONFIG = """\
[project]
name = "demo"

[tool.torchmigrate]
to = "2.12"
extend-exclude = ["vendored/"]
per-file-ignores = { "tests/**" = ["export-for-training"], "legacy_*.py" = ["export-for-training"] }
"""






def changed_files(diff: bytes) -> set[str]:
    return {line[len("--- a/") :] for line in diff.decode().splitlines() if line.startswith("--- a/")}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    for name in ("src/pkg/model.py", "tests/test_model.py", "vendored/lib.py", "src/pkg/legacy_api.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(TRAINING)
    (root / "pyproject.toml").write_text(CONFIG)
    return root


def test_the_closest_config_applies_and_the_command_line_overrides_it(project: Path) -> None:
    # From the project root, without --to: `to`, extend-exclude and per-file-ignores come from pyproject.toml.
    proc = run("--diff", ".", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert changed_files(proc.stdout) == {"src/pkg/model.py"}
    # Found by walking up from the PATH, from another working directory; a nearer pyproject.toml without the table
    # is passed over.
    (project / "src" / "pyproject.toml").write_text("[project]\nname = 'inner'\n")
    proc = run("--diff", str(project / "src"), cwd=project.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(b"+++ b/") == 1 and b"legacy_api" not in proc.stdout
    # The command line wins: --to below the pass's release.
    proc = run("--to", "2.10", "--check", ".", cwd=project)
    assert proc.returncode == 0, proc.stderr


def test_isolated_ignores_the_config(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = invoke(monkeypatch, project, "--isolated", "--check", ".")
    assert code == 2 and "missing --to" in err
    assert invoke(monkeypatch, project, "--isolated", "--to", "2.12", "--check", "vendored")[0] == 1


def test_cli_select_and_ignore_replace_the_configs(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(CONFIG.replace('to = "2.12"', 'to = "2.12"\nignore = ["export-for-training"]'))
    assert invoke(monkeypatch, project, "--check", ".")[0] == 0
    code, _, _ = invoke(monkeypatch, project, "--check", "--ignore", "export-for-inference", ".")
    assert code == 1  # the command line's --ignore replaces the file's


def test_exclude_patterns_are_relative_to_the_config_and_drop_named_files(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pre-commit names files one by one: an excluded file named directly is still skipped (ruff's force-exclude).
    proc = run("--check", "vendored/lib.py", "src/pkg/model.py", cwd=project)
    assert proc.returncode == 1
    assert b"1 file scanned" in proc.stderr
    code, _, err = invoke(monkeypatch, project.parent, "--check", "--exclude", "src/", str(project / "src" / "pkg" / "model.py"))
    assert code == 0 and "0 files scanned" in err
    code, _, err = invoke(monkeypatch, project, "--check", "--extend-exclude", "tests,legacy_*", ".")
    # src/pkg/model.py and pyproject.toml (a project file); vendored/ stays excluded by the config
    assert code == 1 and "2 files scanned" in err


def test_config_file_option(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "torchmigrate.toml"
    other.write_text('to = "2.10"\n')  # a file not named pyproject.toml may hold the keys at top level
    assert invoke(monkeypatch, project, "--config", str(other), "--check", ".")[0] == 0
    assert invoke(monkeypatch, project, "--config", str(project / "pyproject.toml"), "--check", ".")[0] == 1


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('to = "2.12"\nslect = ["x"]\n', "unknown key 'slect'"),
        ("to = 2.12\n", "`to` must be a string"),
        ('to = "2.12"\nselect = "export-for-training"\n', "`select` must be a list of strings"),
        ('to = "2.12"\nper-file-ignores = { "tests/**" = ["no-such-pass"] }\n', "unknown pass id(s): no-such-pass"),
        ('to = "2.12"\nper-file-ignores = ["tests/**"]\n', "`per-file-ignores` must be a table"),
        ('to = "9.9"\n', "unknown PyTorch release"),
        ('to = "2.12\n', "not valid TOML"),
    ],
)
def test_bad_config_is_a_one_line_error(tmp_path: Path, table: str, message: str) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.torchmigrate]\n" + table)
    with pytest.raises(ConfigError) as info:
        load_config(pyproject)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert "pyproject.toml" in str(info.value)


def test_bad_config_exits_2_through_the_command(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.torchmigrate]\nto = "2.12"\nexclude = "vendored/"\n')
    before = (project / "src" / "pkg" / "model.py").read_bytes()
    proc = run(".", cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (
        "migrate: error: pyproject.toml [tool.torchmigrate]: `exclude` must be a list of strings, got a string"
    )
    assert (project / "src" / "pkg" / "model.py").read_bytes() == before


def test_per_file_ignores_reach_each_task(project: Path) -> None:
    plans = plan([project], Overrides())
    by_file = {task.path.relative_to(project).as_posix(): task.options for task in tasks(plans)}
    assert set(by_file) == {"src/pkg/model.py", "src/pkg/legacy_api.py", "tests/test_model.py", "pyproject.toml"}
    assert "export-for-training" not in by_file["src/pkg/model.py"].ignore
    assert "export-for-training" in by_file["tests/test_model.py"].ignore
    assert "export-for-training" in by_file["src/pkg/legacy_api.py"].ignore  # a pattern without / matches any folder


# --- pre-commit ---------------------------------------------------------------------------------------------------


def hooks() -> dict[str, dict[str, object]]:
    data = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(data, list)
    return {hook["id"]: hook for hook in data}


HANDLED = (
    "a/model.py", "setup.py", "nb/explore.ipynb", "requirements-dev.txt", "requirements/base.txt", "constraints.txt",
    "docs/requirements.txt", "uv.lock", "poetry.lock", "Pipfile.lock", "pdm.lock", "pixi.lock", "conda-lock.yml",
    "env.conda-lock.yaml", "environment.yml", "envs/environment-gpu.yaml", "pyproject.toml", "setup.cfg",
    "docker/Dockerfile", "Dockerfile.gpu", "Containerfile", "x/train.dockerfile", ".github/workflows/ci.yml",
    ".gitlab-ci.yml", "azure-pipelines.yml", ".travis.yml", "bitbucket-pipelines.yml", "cloudbuild.yaml",
    ".circleci/config.yml", "PYPROJECT.TOML",
)
NOT_HANDLED = ("README.md", "notes.txt", "data.json", "Dockerfile-dev", "config.yml", "workflows/ci.yml", "docs/requirements.md")


def test_pre_commit_hooks_parse() -> None:
    found = hooks()
    assert set(found) == {"torchmigrate-check", "torchmigrate"}
    for hook in found.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python" and hook["types"] == ["file"]
        pattern = re.compile(str(hook["files"]))
        for name in HANDLED + NOT_HANDLED:  # the hook takes exactly the files the command reads
            handled = name.endswith(SOURCE_SUFFIXES) or project_kind(PurePath(name)) is not None
            assert bool(pattern.search(name)) == handled == (name in HANDLED), name
        assert hook["require_serial"] is True  # one run (and one summary) for all the files
        assert str(hook["entry"]).split()[0] == "migrate"


def test_pre_commit_entries_are_real_commands(project: Path) -> None:
    """Run each hook's entry as pre-commit would: entry + args + the staged file names."""
    found = hooks()
    files = ["src/pkg/model.py", "vendored/lib.py"]
    check = [*shlex.split(str(found["torchmigrate-check"]["entry"])), *map(str, found["torchmigrate-check"].get("args", []))]
    fix = [*shlex.split(str(found["torchmigrate"]["entry"])), *map(str, found["torchmigrate"].get("args", []))]
    # `to` from the project's configuration ...
    proc = run(*check[1:], *files, cwd=project)
    assert proc.returncode == 1 and proc.stdout == b""
    # ... or from the hook's `args: [--to, "2.12"]` in .pre-commit-config.yaml.
    (project / "pyproject.toml").unlink()
    proc = run(*check[1:], "--to", "2.12", *files, cwd=project)
    assert proc.returncode == 1
    proc = run(*fix[1:], "--to", "2.12", *files, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "src/pkg/model.py").read_text() == TRAINING.replace("export_for_training", "export")
    assert run(*check[1:], "--to", "2.12", "src/pkg/model.py", cwd=project).returncode == 0


def test_missing_config_file_and_table(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = invoke(monkeypatch, project, "--config", "nope.toml", "--check", ".")
    assert code == 2 and err.startswith("migrate: error: nope.toml: cannot read")
    (project / "other").mkdir()
    (project / "other" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    code, _, err = invoke(monkeypatch, project, "--config", "other/pyproject.toml", "--check", ".")
    assert code == 2 and "no [tool.torchmigrate] table" in err


def test_the_readme_example_is_a_valid_config(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n[tool.torchmigrate]\n", 1)[1].split("```", 1)[0]
    (tmp_path / "pyproject.toml").write_text("[tool.torchmigrate]\n" + block)
    config = load_config(tmp_path / "pyproject.toml")
    assert config.to == "2.12" and config.per_file_ignores
