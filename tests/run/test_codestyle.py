"""The project's line length and formatter come from its own configuration files, and reach the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchmigrate.api import migrate_paths
from torchmigrate.core.registry import Layout
from torchmigrate.run.codestyle import detect_layout


def write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, Layout(79, None)),  # nothing configured: what flake8 checks by default
        ({"pyproject.toml": "[tool.black]\nline-length = 120\n"}, Layout(120, "black")),
        ({"pyproject.toml": "[tool.black]\n"}, Layout(88, "black")),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, Layout(100, None)),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.ruff.format]\nquote-style = 'single'\n"}, Layout(100, "ruff")),
        ({"ruff.toml": "line-length = 110\n[format]\n"}, Layout(110, "ruff")),
        ({"setup.cfg": "[flake8]\nmax-line-length = 120\nextend-ignore = E203\n"}, Layout(120, None)),
        ({"tox.ini": "[flake8]\nselect = E,F\n"}, Layout(79, None)),  # flake8's own default
        ({".flake8": "[flake8]\nmax-line-length = 99  # wide screens\n"}, Layout(99, None)),
        # each linter must stay quiet: the smallest limit wins
        ({"pyproject.toml": "[tool.black]\nline-length = 120\n", "setup.cfg": "[flake8]\nmax-line-length = 100\n"}, Layout(100, "black")),
        (
            {".pre-commit-config.yaml": "repos:\n- repo: https://github.com/psf/black\n  hooks:\n  - id: black\n    args: [--line-length=100]\n"},
            Layout(100, "black"),
        ),
        ({".pre-commit-config.yaml": "repos:\n- repo: r\n  hooks:\n  - id: ruff\n  - id: ruff-format\n"}, Layout(88, "ruff")),
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, Layout(79, None)),
    ],
)
def test_the_layout_comes_from_the_projects_configuration(tmp_path: Path, files: dict[str, str], expected: Layout) -> None:
    write(tmp_path, files)
    (tmp_path / "pkg").mkdir()
    assert detect_layout(tmp_path / "pkg") == expected
    assert detect_layout(tmp_path) == expected


def test_the_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 60\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    write(repo, {"setup.cfg": "[flake8]\nmax-line-length = 100\n"})
    assert detect_layout(repo) == Layout(100, None)


def test_migrate_paths_keeps_an_edited_line_within_the_projects_line_length(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.black]\nline-length = 79\n"})
    source = tmp_path / "train.py"
    source.write_text(
        "from torch.utils.checkpoint import checkpoint\n\n\n"
        "def forward(self, hidden_states, attention_mask):\n"
        "    return checkpoint(self.block, hidden_states, attention_mask)\n"
    )
    report = migrate_paths([tmp_path], to="2.13", select=["checkpoint-reentrant"], write=True)
    assert report.summary.changed == 1
    assert source.read_text().endswith(
        "    return checkpoint(\n        self.block, hidden_states, attention_mask, use_reentrant=True\n    )\n"
    )
