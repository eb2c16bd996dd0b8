"""Suppression comments, proven through the real `migrate` command: `# migrate: ignore`, `# migrate: ignore[id, …]`
on any line of a (multi-line) statement, and `# migrate: skip-file`, for edits and for findings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.cli import run

from torchmigrate.api import migrate_source
from torchmigrate.python.suppress import suppressions

# file name → (source, expected text after `migrate --to 2.12`; None: unchanged)
CASES: dict[str, tuple[str, str | None]] = {
    "first_line.py": (
        "import torch\nep = torch.export.export_for_training(  # migrate: ignore\n    m, (x,),\n)\n",
        None,
    ),
    "middle_line.py": (
        "import torch\nep = torch.export.export_for_inference(\n    m,  # migrate: ignore\n    (x,),\n)\n",
        None,
    ),
    "last_line.py": (
        "import torch\nep = torch.export.export_for_training(\n    m, (x,),\n)  # migrate: ignore\n",
        None,
    ),
    "own_id.py": (
        "import torch\n"
        "a = torch.export.export_for_training(m, (x,))  # migrate: ignore[some-other-pass, export-for-training]\n"
        "b = torch.export.export_for_training(m, (y,))\n",
        "import torch\n"
        "a = torch.export.export_for_training(m, (x,))  # migrate: ignore[some-other-pass, export-for-training]\n"
        "b = torch.export.export(m, (y,))\n",
    ),
    "other_id.py": (
        "import torch\nep = torch.export.export_for_training(m, (x,))  # migrate: ignore[export-for-inference]\n",
        "import torch\nep = torch.export.export(m, (x,))  # migrate: ignore[export-for-inference]\n",
    ),
    "import_suppressed.py": (
        "from torch.export import export_for_training  # migrate: ignore\n\nep = export_for_training(m, (x,))\n",
        None,  # the uses keep the name the suppressed import binds: no NameError
    ),
    "use_suppressed.py": (
        "from torch.export import export_for_training\n\n"
        "a = export_for_training(m, (x,))  # migrate: ignore\n"
        "b = export_for_training(m, (y,))\n",
        "from torch.export import export as export_for_training\n\n"
        "a = export_for_training(m, (x,))  # migrate: ignore\n"
        "b = export_for_training(m, (y,))\n",
    ),
    "import_line_kept.py": (
        "from torch.export import export_for_inference  # migrate: ignore\n\nep = export_for_inference(m, (x,))\n",
        "from torch.export import export_for_inference  # migrate: ignore\nfrom torch.export import export\n\n"
        "ep = export(m, (x,), strict=True).run_decompositions()\n",
    ),
    "header.py": (
        "import torch\n"
        "with ctx(torch.export.export_for_training(m, (x,))):  # migrate: ignore\n"
        "    ep = torch.export.export_for_training(m, (x,))\n",
        "import torch\n"
        "with ctx(torch.export.export_for_training(m, (x,))):  # migrate: ignore\n"
        "    ep = torch.export.export(m, (x,))\n",
    ),
    "comment_in_string.py": (
        'import torch\nep = torch.export.export_for_training(m, ("# migrate: ignore",))\n',
        'import torch\nep = torch.export.export(m, ("# migrate: ignore",))\n',
    ),
    "skip_file.py": (
        '"""A module kept on the old API on purpose."""\n# migrate: skip-file\nimport torch\n'
        "ep = torch.export.export_for_training(m, (x,))\nep2 = torch.export.export_for_inference(m, a, **kw)\n",
        None,
    ),
    "skip_file_in_string.py": (
        'NOTE = """\n# migrate: skip-file\n"""\nimport torch\nep = torch.export.export_for_training(m, (x,))\n',
        'NOTE = """\n# migrate: skip-file\n"""\nimport torch\nep = torch.export.export(m, (x,))\n',
    ),
    "removal_suppressed.py": (  # a statement-removing pass (RemoveConfigOption), and its finding on a read
        "import torch\n\n"
        "torch._dynamo.config.inline_inbuilt_nn_modules = True  # migrate: ignore[dynamo-inline-nn-modules]\n"
        "torch._dynamo.config.inline_inbuilt_nn_modules = False\n"
        "if torch._dynamo.config.inline_inbuilt_nn_modules:  # migrate: ignore\n"
        "    pass\n",
        "import torch\n\n"
        "torch._dynamo.config.inline_inbuilt_nn_modules = True  # migrate: ignore[dynamo-inline-nn-modules]\n"
        "if torch._dynamo.config.inline_inbuilt_nn_modules:  # migrate: ignore\n"
        "    pass\n",
    ),
    # findings (export_for_inference with **kwargs cannot be rewritten)
    "finding_suppressed.py": (
        "import torch\nep = torch.export.export_for_inference(\n    m, a, **kw)  # migrate: ignore[export-for-inference]\n",
        None,
    ),
    "finding_reported.py": ("import torch\nep = torch.export.export_for_inference(m, a, **kw)\n", None),
}




@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, (source, _) in CASES.items():
        (tmp_path / name).write_text(source)
    return tmp_path


def test_suppressions_through_the_command(project: Path) -> None:
    diff = run("--to", "2.12", "--diff", ".", cwd=project)
    assert diff.returncode == 0, diff.stderr
    in_diff = {line[len("--- a/") :] for line in diff.stdout.decode().splitlines() if line.startswith("--- a/")}
    assert in_diff == {name for name, (_, after) in CASES.items() if after is not None}
    # Findings: the suppressed one and the one in a skip-file are silent, the control is reported.
    stderr = diff.stderr.decode()
    assert "finding_reported.py:2:6: export-for-inference" in stderr
    assert "finding_suppressed.py" not in stderr and "skip_file.py" not in stderr and "removal_suppressed" not in stderr

    written = run("--to", "2.12", ".", cwd=project)
    assert written.returncode == 0, written.stderr
    for name, (source, after) in CASES.items():
        text = (project / name).read_text()
        assert text == (source if after is None else after), name
        compile(text, name, "exec")


def test_check_honours_suppressed_findings(project: Path) -> None:
    assert run("--to", "2.12", "--check", "finding_suppressed.py", "skip_file.py", cwd=project).returncode == 0
    reported = run("--to", "2.12", "--check", "finding_reported.py", cwd=project)
    assert reported.returncode == 1 and b"finding_reported.py:2:6" in reported.stderr


def test_a_suppressed_use_keeps_every_name_bound() -> None:
    source, after = CASES["use_suppressed.py"]
    result = migrate_source(source, to="2.12")
    assert result.code == after
    tree = ast.parse(result.code)
    bound = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert used - {"m", "x", "y"} <= bound


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a = f(  # migrate: ignore\n    1,\n    2)\nb = 1\n", {1: None, 2: None, 3: None}),
        ("a = f(\n    1,\n    2)  # migrate: ignore[x, y]\n", {1: {"x", "y"}, 2: {"x", "y"}, 3: {"x", "y"}}),
        ("a = 1  # migrate: ignore[x]\nb = 2  # migrate:ignore\n", {1: {"x"}, 2: None}),
        ("a = 1  # migrate: ignore [x]  -- why\nb = 2  # migrate: ignored\n", {1: {"x"}}),
        ("# migrate: ignore\na = 1\n", {}),  # a comment on its own line covers no statement
        ('s = """\n# migrate: ignore\n"""\n', {}),  # text in a string is not a comment
        ("if x:  # migrate: ignore\n    y = 1\n", {1: None}),  # a compound header: the body is not covered
    ],
)
def test_suppressions_cover_logical_lines(text: str, expected: dict[int, set[str] | None]) -> None:
    found = suppressions(text)
    assert {k: (None if v is None else set(v)) for k, v in found.items()} == expected


def test_a_transformer_that_forgets_to_ask_is_still_suppressed() -> None:
    import libcst as cst

    from torchmigrate.core.passes import SAFE, Pass
    from torchmigrate.core.results import Finding
    from torchmigrate.python.engine import migrate_text
    from torchmigrate.python.transform import PassTransformer

    careless = Pass(id="careless", release="2.5", safety=SAFE, title="t", evidence="test", triggers=("old_fn",), doc="d")

    @careless.uses
    class Careless(PassTransformer):
        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
            if original_node.value != "old_fn":
                return updated_node
            self.edited(original_node, "renamed")  # no self.allowed() check on purpose
            return updated_node.with_changes(value="new_fn")

        def visit_Integer(self, node: cst.Integer) -> None:  # a finding recorded without self.finding()
            line, col = self.position(node)
            self.sink.findings.append(Finding(line, col, "careless", "look here"))

    code = "old_fn(1)  # migrate: ignore[careless]\nold_fn(\n    2,  # migrate: ignore\n)\nold_fn(3)\n"
    result = migrate_text(code, [careless])
    assert result.code == code.replace("old_fn(3)", "new_fn(3)")
    assert [e.line for e in result.edits] == [5]
    assert [f.line for f in result.findings] == [5]
