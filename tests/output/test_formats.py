"""`--format json | sarif | github` and `--output-file`, through the real command: the SARIF validates against the
SARIF 2.1.0 schema and its fixes rebuild exactly what write mode writes; the JSON follows its versioned schema; the
GitHub workflow commands are escaped; and the example GitHub workflow runs a real invocation."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from support.cli import run
from typer.testing import CliRunner

from torchmigrate.api import migrate_source
from torchmigrate.cli import app
from torchmigrate.core.registry import all_passes
from torchmigrate.output.formats import JSON_SCHEMA, JSON_SCHEMA_VERSION, escape_data, escape_property, hunks

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())

LEGACY = (
    "import torch\n"
    "from torch.export import export_for_inference as efi\n"
    "\n"
    "def export(model, x, table):\n"
    "    a = torch.export.export_for_inference(model, (x,), decomp_table=table)\n"
    "    return a, efi(model, (x,))\n"
    "\n"
    "ep = torch.export.export_for_training(model, (x,))"  # no final newline: the last hunk reaches the end of file
)
FINDING = "import torch\nep = torch.export.export_for_inference(m, a, **kw)\n"
MODERN = "import torch\nep = torch.export.export(m, (x,))\n"




@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_text(LEGACY)
    (tmp_path / "pkg" / "crlf.py").write_bytes(LEGACY.replace("\n", "\r\n").encode())
    (tmp_path / "pkg" / "kw.py").write_text(FINDING)
    (tmp_path / "pkg" / "modern.py").write_text(MODERN)
    return tmp_path


def apply_by_offsets(text: str, replacements: list[dict[str, Any]]) -> str:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        region = r["deletedRegion"]
        start, length = region["charOffset"], region["charLength"]
        text = text[:start] + r["insertedContent"]["text"] + text[start + length :]
    return text


def apply_by_lines(text: str, replacements: list[dict[str, Any]]) -> str:
    """Apply replacements using only their line/column regions, as an editor would."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col - 1

    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["startLine"], reverse=True):
        region = r["deletedRegion"]
        start = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        text = text[:start] + r["insertedContent"]["text"] + text[end:]
    return text


def test_sarif_validates_and_its_fixes_rebuild_write_mode(project: Path) -> None:
    proc = run("--to", "2.12", "--check", "--format", "sarif", "--output-file", "out.sarif", "pkg", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == b""
    log = json.loads((project / "out.sarif").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)

    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [p.id for p in all_passes()]
    by_id = {p.id: p for p in all_passes()}
    for rule in rules:
        assert rule["shortDescription"]["text"] == by_id[rule["id"]].title
        assert by_id[rule["id"]].doc in rule["help"]["text"]
    results = run_["results"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    edits = [r for r in results if r["properties"]["kind"] == "edit"]
    findings = [r for r in results if r["properties"]["kind"] == "finding"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in edits} == {"pkg/legacy.py", "pkg/crlf.py"}
    assert all(r["level"] == "note" for r in edits)  # both passes are safe
    assert [(f["ruleId"], f["level"], f["locations"][0]["physicalLocation"]["region"]) for f in findings] == [
        ("export-for-inference", "warning", {"startLine": 2, "startColumn": 6})
    ]

    # Collect each file's replacements (spread over its edits' results) and apply them to the original text.
    replacements: dict[str, list[dict[str, Any]]] = {}
    for result in edits:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                replacements.setdefault(change["artifactLocation"]["uri"], []).extend(change["replacements"])
    originals = {name: (project / name).read_bytes().decode() for name in replacements}
    assert run("--to", "2.12", "pkg", cwd=project).returncode == 0
    for name, found in replacements.items():
        written = (project / name).read_bytes().decode()
        assert apply_by_offsets(originals[name], found) == written, name
        assert apply_by_lines(originals[name], found) == written, name


def test_sarif_in_write_mode_reports_applied_edits_and_errors(project: Path) -> None:
    (project / "pkg" / "broken.py").write_text("import torch\nep = torch.export.export_for_training(m\n")
    proc = run("--to", "2.12", "--format", "sarif", "pkg", cwd=project)
    assert proc.returncode == 2  # a file could not be processed
    log = json.loads(proc.stdout)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    run_ = log["runs"][0]
    assert all("fixes" not in r for r in run_["results"])  # already applied: nothing to propose
    assert {r["properties"]["applied"] for r in run_["results"] if r["properties"]["kind"] == "edit"} == {True}
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error" and "pkg/broken.py" in notification["message"]["text"]
    assert b"pkg/broken.py: error: cannot parse" in proc.stderr


def test_json_follows_its_versioned_schema(project: Path) -> None:
    proc = run("--to", "2.12", "--check", "--format", "json", "pkg", cwd=project)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    jsonschema.Draft7Validator.check_schema(JSON_SCHEMA)
    jsonschema.Draft7Validator(JSON_SCHEMA).validate(report)
    assert report["schema_version"] == JSON_SCHEMA_VERSION and report["mode"] == "check"
    per_file = len(migrate_source(LEGACY, to="2.12").edits)
    assert report["summary"] == {
        "scanned": 4, "changed": 2, "edits": 2 * per_file, "findings": 1, "errors": 0, "unsafe_fixes": 0
    }
    files = {f["path"]: f for f in report["files"]}
    assert set(files) == {"pkg/legacy.py", "pkg/crlf.py", "pkg/kw.py"}  # modern.py has nothing to report
    assert files["pkg/legacy.py"]["passes_applied"] == ["export-for-inference", "export-for-training"]
    assert files["pkg/kw.py"]["findings"][0]["pass_id"] == "export-for-inference"
    assert not any(f["written"] for f in files.values())
    assert b"kw.py:2:6" not in proc.stderr  # the report carries the findings; stderr keeps the summary
    assert b"4 files scanned, 2 would change, 1 finding, 0 errors" in proc.stderr


def test_github_annotations_are_escaped(project: Path) -> None:
    odd = project / "pkg" / "a,b:c%.py"
    odd.write_text(FINDING)
    proc = run("--to", "2.12", "--check", "--format", "github", "pkg", cwd=project)
    assert proc.returncode == 1
    lines = proc.stdout.decode().splitlines()
    assert all(line.startswith("::warning file=pkg/") for line in lines), lines
    assert (
        "::warning file=pkg/a%2Cb%3Ac%25.py,line=2,col=6,title=torchmigrate export-for-inference (needs a manual change)::"
        in ("\n".join(lines))
    )
    expected = [e for e in migrate_source(LEGACY, to="2.12").edits if e.pass_id == "export-for-training"]
    assert sum("title=torchmigrate export-for-training (would change)" in line for line in lines) == 2 * len(expected)
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c\n") == "a%3Ab%2Cc%0A"


def test_format_and_mode_combinations(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = CliRunner().invoke(app, ["--to", "2.12", "--diff", "--format", "json", "pkg"])
    assert result.exit_code == 2 and b"--diff cannot be combined with --format json" in result.stderr_bytes
    # --output-file takes what stdout would carry: with --diff, the plain patch.
    result = CliRunner().invoke(app, ["--to", "2.12", "--diff", "--output-file", "m.patch", "--color", "always", "pkg"])
    assert result.exit_code == 0 and result.stdout_bytes == b""
    patch = (project / "m.patch").read_bytes()
    assert patch.startswith(b"--- a/pkg/") and b"\x1b[" not in patch
    # write mode with a report: the files are written and the report says so.
    result = CliRunner().invoke(app, ["--to", "2.12", "--format", "json", "--output-file", "r.json", "pkg"])
    assert result.exit_code == 0
    report = json.loads((project / "r.json").read_text())
    assert report["mode"] == "write" and {f["path"] for f in report["files"] if f["written"]} == {"pkg/legacy.py", "pkg/crlf.py"}


def test_positions_refer_to_the_file_as_it_was() -> None:
    """A pass that runs after another one changed the file reports lines of the original file (annotations land on
    the right line of the pull request)."""
    lines = LEGACY.split("\n")
    edits = migrate_source(LEGACY, to="2.12").edits
    assert len({e.pass_id for e in edits}) == 2
    assert all("export_for" in lines[e.line - 1] or "efi(" in lines[e.line - 1] for e in edits), edits
    assert max(e.line for e in edits if e.pass_id == "export-for-training") == 8
    assert migrate_source(LEGACY + "\nep2 = torch.export.export_for_inference(m, a, **kw)\n", to="2.12").findings[0].line == 9


def test_hunks_cover_insertions_deletions_and_the_end_of_file() -> None:
    old, new = "a\nb\nc", "a\nx\ny\nc\nd\n"
    found = hunks(old, new)
    lines = old.split("\n")
    rebuilt = apply_by_offsets(old, [h.replacement([f"{line}\n" for line in lines[:-1]] + [lines[-1]]) for h in found])
    assert rebuilt == new


def test_example_github_workflow_runs_a_real_invocation(project: Path) -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "github-workflow.yml").read_text())
    assert workflow[True]["pull_request"] is not None or "pull_request" in workflow[True]  # YAML reads `on:` as True
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    [command] = [s["run"] for s in steps if "run" in s and "--format github" in s["run"]]
    argv = shlex.split(command)
    assert argv[:4] == ["migrate", "--check", "--format", "github"]
    proc = run(*argv[1:], cwd=project)
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("::warning file=pkg/")


def test_unwritable_output_file_is_a_command_line_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = CliRunner().invoke(app, ["--to", "2.12", "--format", "json", "--output-file", "no/such/dir/r.json", "pkg"])
    assert result.exit_code == 2 and b"cannot write --output-file" in result.stderr_bytes
    assert (project / "pkg" / "legacy.py").read_text() == LEGACY  # nothing was written
