"""Fix safety and the support floor through the real `migrate` command (README: Fix safety).

Review-level edits are made only with `--unsafe-fixes` (or `unsafe-fixes = true`): otherwise each is a finding that
carries its suggested change, in every mode and format. No edit is made whose new form needs a newer torch than the
support floor (`--min-torch`, else the project's torch requirement after the migration, else `--to`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support.cli import run, write_tree

from torchmigrate.output.formats import JSON_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())

# One review-level edit (onnx-dynamo-default adds dynamo=False) next to a safe one (export-for-training).
APP = (
    "import torch\n"
    "\n"
    "torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)\n"
    "ep = torch.export.export_for_training(model, (x,))\n"
)
SAFE_ONLY = APP.replace("export_for_training", "export")
ALL = SAFE_ONLY.replace("dynamic_axes=axes)", "dynamic_axes=axes, dynamo=False)")
REVIEW_ONLY = "import torch\n\ntorch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {".git/HEAD": "", "app.py": APP, "review.py": REVIEW_ONLY})


def test_text_mode_reports_the_review_edit_with_its_suggested_code(project: Path) -> None:
    proc = run("--to", "2.12", "--diff", "app.py", cwd=project, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "+ep = torch.export.export(model, (x,))" in proc.stdout  # the safe edit is in the diff...
    assert "dynamo=False" not in proc.stdout  # ...the review one is not
    lines = proc.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("app.py:3:1: onnx-dynamo-default "))
    assert "[review fix, not applied: --unsafe-fixes applies it]" in lines[at]
    assert lines[at + 1 : at + 3] == [
        "    -torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)",
        "    +torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes, dynamo=False)",
    ]
    assert lines[-1] == "torchmigrate: 1 file scanned, 1 would change, 1 finding, 0 errors (1 more fix with --unsafe-fixes)"


def test_write_mode_and_check_follow_the_same_rule(project: Path) -> None:
    check = run("--to", "2.12", "--check", "review.py", cwd=project)
    assert check.returncode == 1  # the held-back edit is a finding
    assert run("--to", "2.12", "app.py", cwd=project).returncode == 0
    assert (project / "app.py").read_text() == SAFE_ONLY
    assert run("--to", "2.12", "--check", "--unsafe-fixes", "review.py", cwd=project).returncode == 1  # would change
    applied = run("--to", "2.12", "--unsafe-fixes", "app.py", cwd=project, text=True)
    assert applied.returncode == 0
    assert (project / "app.py").read_text() == ALL
    # The applied review edit still says what to check, in text mode too.
    assert applied.stderr.splitlines()[0] == (
        "app.py:3:1: onnx-dynamo-default [review] torch.onnx.export: dynamo=False keeps the TorchScript exporter "
        "(dynamic_axes) — check: dynamo=False keeps the 2.8 exporter, which torch 2.13 flags as deprecated: plan the "
        "move to dynamic_shapes"
    )
    assert "--unsafe-fixes" not in applied.stderr.splitlines()[-1]


def test_configuration_sets_unsafe_fixes_and_the_command_line_overrides_it(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.torchmigrate]\nto = "2.12"\nunsafe-fixes = true\n')
    assert b"dynamo=False" in run("--diff", "app.py", cwd=project).stdout
    assert b"dynamo=False" not in run("--diff", "--no-unsafe-fixes", "app.py", cwd=project).stdout
    (project / "pyproject.toml").write_text('[tool.torchmigrate]\nto = "2.12"\nunsafe-fixes = "yes"\n')
    bad = run("app.py", cwd=project, text=True)
    assert bad.returncode == 2
    assert bad.stderr == (
        "migrate: error: pyproject.toml [tool.torchmigrate]: `unsafe-fixes` must be true or false, got a string\n"
    )


def test_json_marks_the_fix_and_carries_the_change(project: Path) -> None:
    proc = run("--to", "2.12", "--check", "--format", "json", ".", cwd=project)
    report = json.loads(proc.stdout)
    jsonschema.Draft7Validator(JSON_SCHEMA).validate(report)
    files = {f["path"]: f for f in report["files"]}
    [finding] = files["review.py"]["findings"]
    assert finding["fix_available"] == "unsafe"
    assert finding["fix"] == {
        "applicability": "unsafe",
        "message": "onnx-dynamo-default: torch.onnx.export: dynamo=False keeps the TorchScript exporter (dynamic_axes)",
        "replacements": [
            {
                "line": 3,
                "end_line": 4,
                "old": "torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)\n",
                "new": "torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes, dynamo=False)\n",
            }
        ],
    }
    assert report["summary"]["unsafe_fixes"] == 2 and not files["review.py"]["changed"]
    unsafe = json.loads(run("--to", "2.12", "--check", "--unsafe-fixes", "--format", "json", ".", cwd=project).stdout)
    assert unsafe["summary"]["unsafe_fixes"] == 0
    [edit] = next(f for f in unsafe["files"] if f["path"] == "review.py")["edits"]
    assert edit["safety"] == "review" and edit["note"].startswith("dynamo=False keeps the 2.8 exporter")


def _apply(text: str, replacements: list[dict[str, Any]]) -> str:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        start, length = r["deletedRegion"]["charOffset"], r["deletedRegion"]["charLength"]
        text = text[:start] + r["insertedContent"]["text"] + text[start + length :]
    return text


@pytest.mark.parametrize("mode", ["--check", "write"])
def test_sarif_keeps_the_suggestion_as_a_fix_of_the_file_on_disk(project: Path, mode: str) -> None:
    """The suggested change is a SARIF fix of the file as it is after the run: applied to it, it gives exactly what
    `--unsafe-fixes` writes (in check mode the file is the original; in write mode the safe edits are already in)."""
    args = ["--to", "2.12", "--format", "sarif", "app.py"]
    proc = run(*args, *([mode] if mode != "write" else []), cwd=project)
    log = json.loads(proc.stdout)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    [held] = [r for r in log["runs"][0]["results"] if r["properties"]["kind"] == "finding"]
    assert held["ruleId"] == "onnx-dynamo-default" and held["properties"]["fix_available"] == "unsafe"
    [fix] = held["fixes"]
    [change] = fix["artifactChanges"]
    on_disk = (project / "app.py").read_text()
    assert on_disk == (APP if mode == "--check" else SAFE_ONLY)
    expected = SAFE_ONLY.replace("dynamic_axes=axes)", "dynamic_axes=axes, dynamo=False)")
    assert _apply(on_disk, change["replacements"]) == (expected if mode == "write" else APP.replace("axes)", "axes, dynamo=False)"))


def test_github_annotation_ends_with_the_suggested_change(project: Path) -> None:
    proc = run("--to", "2.12", "--check", "--format", "github", "review.py", cwd=project, text=True)
    [line] = proc.stdout.splitlines()
    assert line.startswith(
        "::warning file=review.py,line=3,col=1,title=torchmigrate onnx-dynamo-default (review fix%3A --unsafe-fixes applies it)::"
    )
    assert line.endswith(
        "%0A%0ASuggested change:%0A-torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)%0A"
        "+torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes, dynamo=False)"
    )


def test_cached_runs_keep_suggestions_and_tell_unsafe_from_safe(project: Path) -> None:
    first = run("--to", "2.12", "--check", "--format", "json", "review.py", cwd=project)
    warm = run("--to", "2.12", "--check", "--format", "json", "review.py", cwd=project)
    assert json.loads(warm.stdout)["files"] == json.loads(first.stdout)["files"]
    assert (project / ".torchmigrate_cache").is_dir()
    unsafe = run("--to", "2.12", "--diff", "--unsafe-fixes", "review.py", cwd=project)
    assert b"+torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes, dynamo=False)" in unsafe.stdout


def test_notebook_review_edits_are_suggested_not_made(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "execution_count": 1, "id": "a", "metadata": {}, "outputs": [], "source": [
        "import torch\n", "torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes)"
    ]}
    raw = json.dumps({"cells": [cell], "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path / "nb.ipynb").write_text(raw)
    proc = run("--to", "2.12", "--format", "json", "nb.ipynb", cwd=tmp_path)
    assert (tmp_path / "nb.ipynb").read_text() == raw  # write mode, and nothing written
    [finding] = json.loads(proc.stdout)["files"][0]["findings"]
    assert finding["fix_available"] == "unsafe" and finding["message"].startswith("cell 1, line 2: torch.onnx.export")
    [rep] = finding["fix"]["replacements"]
    assert rep["new"] == "torch.onnx.export(model, x, 'm.onnx', dynamic_axes=axes, dynamo=False)"
    assert run("--to", "2.12", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert "dynamo=False" in (tmp_path / "nb.ipynb").read_text()


# --- the support floor ---------------------------------------------------------------------------------------------

TRAINING = "import torch\n\nep = torch.export.export_for_training(model, (x,))\n"  # export() = export_for_training from 2.6


def test_an_edit_newer_than_the_requirement_is_a_finding_that_says_how_to_lift_it(tmp_path: Path) -> None:
    """The issue's case: a project declaring torch>=2.5 must not get an API that behaves differently on 2.5."""
    write_tree(tmp_path, {".git/HEAD": "", "requirements.txt": "torch>=2.5\n", "train.py": TRAINING})
    proc = run("--to", "2.12", "--diff", ".", cwd=tmp_path, text=True)
    assert proc.returncode == 0 and proc.stdout == ""  # torch>=2.5 admits 2.12: nothing moves, nothing is edited
    assert proc.stderr.splitlines()[0] == (
        "train.py:3:6: export-for-training torch.export.export_for_training → torch.export.export — not applied: the new "
        "form needs torch >= 2.6, but the code must still run on torch 2.5 (set by requirements.txt: torch>=2.5); to "
        "apply it, raise that requirement's lower bound to 2.6 (or pass --min-torch 2.6)"
    )
    lifted = run("--to", "2.12", "--diff", "--min-torch", "2.6", ".", cwd=tmp_path, text=True)
    assert "+ep = torch.export.export(model, (x,))" in lifted.stdout
    (tmp_path / "requirements.txt").write_text("torch>=2.6\n")
    assert "+ep = torch.export.export(model, (x,))" in run("--to", "2.12", "--diff", ".", cwd=tmp_path, text=True).stdout


def test_a_pin_the_migration_moves_sets_the_floor_it_moves_to(tmp_path: Path) -> None:
    write_tree(tmp_path, {".git/HEAD": "", "requirements.txt": "torch==2.5.1\n", "train.py": TRAINING})
    proc = run("--to", "2.12", "--diff", ".", cwd=tmp_path, text=True)
    assert "+torch==2.12.1" in proc.stdout and "+ep = torch.export.export(model, (x,))" in proc.stdout


def test_unsafe_fixes_never_lift_the_floor(tmp_path: Path) -> None:
    """dist-nn-functional (review) emits functional collectives, whose gradients exist from 2.11 only."""
    code = "import torch.distributed.nn.functional as F\n\ny = F.all_reduce(x)\n"
    write_tree(tmp_path, {".git/HEAD": "", "pyproject.toml": '[project]\ndependencies = ["torch>=2.6"]\n', "d.py": code})
    proc = run("--to", "2.12", "--diff", "--unsafe-fixes", ".", cwd=tmp_path, text=True)
    assert proc.stdout == ""
    assert "needs torch >= 2.11, but the code must still run on torch 2.6 (set by pyproject.toml: torch>=2.6)" in proc.stderr


def test_min_torch_in_the_configuration_and_its_errors(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.torchmigrate]\nto = "2.12"\nmin-torch = "2.5"\n', "train.py": TRAINING})
    proc = run("--check", "train.py", cwd=tmp_path, text=True)
    assert proc.returncode == 1
    assert '(set by pyproject.toml [tool.torchmigrate]: min-torch = "2.5"); to apply it, pass --min-torch 2.6 or later' in (
        proc.stderr
    )
    above = run("--to", "2.8", "--min-torch", "2.10", "train.py", cwd=tmp_path, text=True)
    assert above.returncode == 2
    assert above.stderr == "migrate: error: --min-torch 2.10 is above --to 2.8: the migrated code targets torch 2.8\n"
    bad = run("--to", "2.12", "--min-torch", "two", "train.py", cwd=tmp_path, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("migrate: error: --min-torch: malformed version 'two'")


def test_list_explain_and_the_pass_table_say_which_passes_are_review_level() -> None:
    explain = run("--explain", "onnx-dynamo-default", cwd=ROOT, text=True).stdout
    assert "fix safety: review: applied only with --unsafe-fixes; without it each edit is reported with the suggested" in explain
    assert "the new form needs torch >= 2.7" in explain
    assert "fix safety: safe: applied by default" in run("--explain", "lr-verbose", cwd=ROOT, text=True).stdout
    listing = run("--list", cwd=ROOT, text=True).stdout.splitlines()
    assert any(line.split()[:3] == ["onnx-dynamo-default", "2.9", "review"] for line in listing)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `onnx-dynamo-default` | 2.9 | behaviour | 2.7 | review (--unsafe-fixes) |" in readme
