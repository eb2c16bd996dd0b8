"""The jit-to-export pass beyond its documented examples: the pairing rule, input kinds, uses, findings, CLI."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest
from support.cli import MIGRATE

from torchmigrate import migrate_source
from torchmigrate.cli import render_explain
from torchmigrate.core.registry import get_pass
from torchmigrate.core.results import FileResult

ROOT = Path(__file__).resolve().parents[2]


def run(code: str, to: str = "2.10") -> FileResult:
    result = migrate_source(textwrap.dedent(code), to=to, select=["jit-to-export"])
    assert result.error is None
    return result


def changed(code: str) -> str:
    result = run(code)
    assert result.code != textwrap.dedent(code)
    assert result.edits and all(e.pass_id == "jit-to-export" and e.safety == "review" for e in result.edits)
    return result.code


def unchanged(code: str, findings: int) -> list[str]:
    result = run(code)
    assert result.code == textwrap.dedent(code)
    assert not result.edits
    assert len(result.findings) == findings, [f.message for f in result.findings]
    return [f.message for f in result.findings]


# --- save / load pairing -------------------------------------------------------------------------------------


def test_load_pairs_by_path_expression_ignoring_quotes_and_spacing() -> None:
    code = changed(
        """
        import torch
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "model.pt")
        a = torch.jit.load('model.pt')
        b = torch.jit.load( "model.pt" )
        """
    )
    assert 'torch.export.save(t, "model.pt")' in code
    assert "a = torch.export.load('model.pt').module()" in code
    assert 'b = torch.export.load( "model.pt" ).module()' in code


def test_load_of_another_path_is_a_finding_and_the_save_still_migrates() -> None:
    result = run(
        """
        import torch
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "new.pt")
        old = torch.jit.load("old.pt")
        """
    )
    assert 'torch.export.save(t, "new.pt")' in result.code
    assert 'old = torch.jit.load("old.pt")' in result.code
    assert len(result.findings) == 1 and "TorchScript archive" in result.findings[0].message
    assert result.findings[0].line == 5


def test_paired_load_that_cannot_migrate_keeps_the_whole_chain() -> None:
    messages = unchanged(
        """
        import torch
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "m.pt")
        loaded = torch.jit.load("m.pt", map_location="cpu")
        """,
        findings=2,
    )
    assert any("map_location" in m and m.startswith("torch.jit.load not migrated") for m in messages)
    assert any(m.startswith("torch.jit.trace not migrated") and "line 5" in m for m in messages)


def test_loaded_module_put_in_eval_mode_blocks_the_chain() -> None:
    messages = unchanged(
        """
        import torch
        def save(m, x: torch.Tensor, path):
            torch.jit.trace(m, x).save(path)
        def load(path):
            model = torch.jit.load(path)
            model.eval()
            return model
        """,
        findings=2,
    )
    assert any("model.eval" in m and "NotImplementedError" in m for m in messages)


def test_a_path_also_written_as_torchscript_is_not_paired() -> None:
    unchanged(
        """
        import torch
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "m.pt")
        torch.jit.save(other_module, "m.pt")
        loaded = torch.jit.load("m.pt")
        """,
        findings=3,
    )


def test_inline_trace_saved_and_inline_trace_called() -> None:
    code = changed(
        """
        import torch
        torch.jit.save(torch.jit.trace(m, torch.zeros(1, 3)), path)
        y = torch.jit.trace(m.forward, torch.zeros(1, 3))(z)
        """
    )
    assert "torch.export.save(torch.export.export(m, (torch.zeros(1, 3),)), path)" in code
    assert "y = torch.export.export(m, (torch.zeros(1, 3),)).module()(z)" in code


def test_saved_program_calls_become_module_calls_in_nested_functions() -> None:
    code = changed(
        """
        import torch
        model = torch.jit.trace(model, (x,))
        def infer(batch):
            return model(batch)
        model.save("m.pt")
        """
    )
    assert "model = torch.export.export(model, (x,))" in code
    assert "return model.module()(batch)" in code
    assert 'torch.export.save(model, "m.pt")' in code


# --- example inputs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("inputs = (a, b)", "export(m, inputs)"),
        ("inputs = torch.randn(2, 3)", "export(m, (inputs,))"),
        ("inputs = torch.ones(2).to('cpu').float()", "export(m, (inputs,))"),
        ("inputs = [a, b]", "export(m, tuple(inputs))"),
        ("inputs: torch.Tensor = make()", "export(m, (inputs,))"),
        ("inputs = {'x': a}", "export(m, (inputs,))"),
    ],
)
def test_input_kind_from_one_visible_assignment(setup: str, expected: str) -> None:
    code = changed(f"import torch\n{setup}\nt = torch.jit.trace(m, inputs)\n")
    assert f"t = torch.export.{expected}.module()" in code


@pytest.mark.parametrize(
    "setup",
    [
        "inputs = make()",  # a call we cannot see into
        "inputs = torch.randn(2)\ninputs = (inputs,)",  # two assignments
        "for inputs in batches: pass",
        "inputs = batch[0]",
    ],
)
def test_input_kind_that_cannot_be_seen_is_a_finding(setup: str) -> None:
    messages = unchanged(f"import torch\n{setup}\nt = torch.jit.trace(m, inputs)\n", findings=1)
    assert "cannot tell whether `inputs` is one input or a tuple" in messages[0]


def test_parameters_resolve_through_annotations_only() -> None:
    code = changed(
        """
        import torch
        from typing import Tuple
        def a(m, x: torch.Tensor):
            return torch.jit.trace(m, x)(x)
        def b(m, xs: Tuple[torch.Tensor, torch.Tensor]):
            return torch.jit.trace(m, xs)(*xs)
        """
    )
    assert "torch.export.export(m, (x,)).module()(x)" in code
    assert "torch.export.export(m, xs).module()(*xs)" in code
    unchanged("import torch\ndef c(m, x):\n    return torch.jit.trace(m, x)(x)\n", findings=1)


# --- uses the pass cannot follow -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("use", "shown"),
    [
        ("return t", "returned"),
        ("register(t)", "passed to `register(...)`"),
        ("print(t.code)", "`t.code`"),
        ("t.eval()", "`t.eval`"),
        ("t = 3", "assigned again"),
    ],
)
def test_uses_that_cannot_be_followed(use: str, shown: str) -> None:
    code = f"import torch\ndef f(m):\n    t = torch.jit.trace(m, (x,))\n    t(x)\n    {use}\n"
    messages = unchanged(code, findings=1)
    assert shown in messages[0] and "torch.export.export" in messages[0]


def test_tracing_a_function_is_a_finding() -> None:
    messages = unchanged("import torch\ndef f(a):\n    return a\nt = torch.jit.trace(f, (x,))\n", findings=1)
    assert "takes only an nn.Module" in messages[0]


def test_dropped_arguments_are_named_in_the_edit() -> None:
    result = run("import torch\nt = torch.jit.trace(m, (x,), None, False, check_inputs=[(x,)], strict=False)\n")
    assert "t = torch.export.export(m, (x,)).module()" in result.code
    assert "dropped optimize, check_trace, check_inputs, strict" in result.edits[0].message


def test_private_trace_arguments_are_a_finding() -> None:
    unchanged("import torch\nt = torch.jit.trace(m, (x,), _force_outplace=True)\n", findings=1)
    unchanged("import torch\nt = torch.jit.trace(m, *args)\n", findings=1)


# --- data-dependent control flow -----------------------------------------------------------------------------

FORWARD = """
import torch
class Net(torch.nn.Module):
    def forward(self, x, mask=None, flag: bool = False):
        {body}
        return x
t = torch.jit.trace(Net().eval(), torch.ones(2))
"""


@pytest.mark.parametrize(
    "body",
    [
        "if x.shape[0] > 1: x = x * 2",
        "if x.size(0) > 1 and x.dim() == 2: x = x * 2",
        "if mask is not None: x = x * mask",
        "if flag: x = -x",
        "if self.training: x = -x",
        "y = [x for _ in range(2)]",
    ],
)
def test_static_branches_do_not_block(body: str) -> None:
    changed(FORWARD.format(body=body))


@pytest.mark.parametrize(
    "body",
    ["if x.sum() > 0: x = -x", "while x.max() > 1: x = x / 2", "x = x if x[0] > 0 else -x", "if x: x = -x"],
)
def test_data_dependent_branches_are_findings(body: str) -> None:
    messages = unchanged(FORWARD.format(body=body), findings=1)
    assert "`Net.forward` branches on tensor data" in messages[0]
    assert "torch.cond" in messages[0] and "dynamic_shapes" in messages[0] and "ExecuTorch" in messages[0]


# --- script -------------------------------------------------------------------------------------------------


def test_script_module_subclass_is_one_finding_and_blocks_other_scripting() -> None:
    messages = unchanged(
        """
        import torch
        class Old(torch.jit.ScriptModule):
            @torch.jit.script_method
            def forward(self, x):
                return helper(x)
            @torch.jit.script_method
            def other(self, x):
                return x
        @torch.jit.script
        def helper(x):
            return x
        """,
        findings=2,
    )
    assert "subclasses torch.jit.ScriptModule" in messages[0] and "AOTInductor" in messages[0]
    assert "keeps TorchScript" in messages[1]


def test_script_with_optimize_and_obj_keyword() -> None:
    result = run("import torch\ns = torch.jit.script(obj=m, optimize=True)\ns(x)\n")
    assert "s = torch.compile(m)\n" in result.code
    assert "dropped optimize" in result.edits[0].message


def test_script_of_a_class_is_a_finding() -> None:
    unchanged("import torch\nclass Pair:\n    pass\nP = torch.jit.script(Pair)\nP()\n", findings=1)


def test_torchscript_only_decorators_count_only_where_the_file_scripts() -> None:
    decorated = (
        "import torch\n"
        "class A(torch.nn.Module):\n"
        "    @torch.jit.export\n    def a(self): pass\n"
        "    @torch.jit.ignore(drop=True)\n    def b(self): pass\n"
        "@torch.jit.unused\ndef c(): pass\n"
    )
    unchanged(decorated, findings=0)
    result = run(decorated + "s = torch.jit.script(A())\ns()\n")
    ignore_findings = [f for f in result.findings if "steers torch.jit.script" in f.message]
    assert len(ignore_findings) == 2  # one for class A, one for the function c
    assert "s = torch.compile(A())" in result.code


# --- names, aliases, guards, suppressions --------------------------------------------------------------------


def test_compile_is_never_imported_bare() -> None:
    code = changed("from torch.jit import script\ns = script(m)\ns(x)\n")
    assert "import torch\n" in code and "torch.compile(m)" in code
    assert "from torch import compile" not in code


def test_version_guarded_and_suppressed_code_is_left_alone() -> None:
    unchanged(
        """
        import torch
        if torch.__version__ < "2.10":
            t = torch.jit.trace(m, (x,))
            torch.jit.save(t, "a.pt")
        u = torch.jit.trace(m, (x,))  # migrate: ignore[jit-to-export]
        torch.jit.save(u, "b.pt")
        v = torch.jit.load("b.pt")  # migrate: ignore
        """,
        findings=0,
    )


def test_suppressed_save_keeps_its_trace() -> None:
    unchanged(
        """
        import torch
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "a.pt")  # migrate: ignore[jit-to-export]
        """,
        findings=0,
    )


def test_below_the_release_and_chained_with_later_passes() -> None:
    code = "import torch\nt = torch.jit.trace(m, (x,))\n"
    assert migrate_source(code, to="2.9").code == code
    assert migrate_source(code, to="2.12").code == "import torch\nt = torch.export.export(m, (x,)).module()\n"


def test_call_of_a_call_is_not_the_callee(tmp_path: Path) -> None:
    """Engine fix: libcst names the outer call of ``efi(m, a)(y)`` after ``efi``; only the inner call is rewritten."""
    code = "from torch.export import export_for_inference as efi\nout = efi(m, (x,))(y)\n"
    result = migrate_source(code, to="2.8")
    assert result.code == (
        "from torch.export import export_for_training\nout = export_for_training(m, (x,), strict=True).run_decompositions()(y)\n"
    )
    assert len(result.edits) == 1


# --- documentation and the example project ---------------------------------------------------------------------


def test_explain_reads_well() -> None:
    text = render_explain(get_pass("jit-to-export"))
    for needle in (
        "jit-to-export: torch.jit.trace/save/load → torch.export",
        "release: 2.10    kind: deprecation    safety: review",
        "## What it does",
        "## Why",
        "## Fix safety",
        "## What to review",
        "dynamic_shapes=({0: torch.export.Dim.AUTO},)",
        ".module().train()",
        "only an `nn.Module`",
        "pairs",
        "### Example 1",
    ):
        assert needle in text, needle


def test_example_project_diff_shows_the_torchscript_file() -> None:
    proc = subprocess.run(
        [str(MIGRATE), "--to", "2.12", "--diff", "examples/legacy_project"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    diff = proc.stdout.decode()
    assert "+++ b/examples/legacy_project/src/legacy_app/torchscript.py" in diff
    assert "+    traced = torch.export.export(model.eval(), (example,))" in diff
    assert "+    return torch.export.load(path).module()" in diff
    assert "+@torch.compile" in diff
    # The example migrates without findings (the per-pass table names the pass with 0 of them).
    assert b": jit-to-export " not in proc.stderr
    row = next(line for line in proc.stderr.decode().splitlines() if line.startswith("jit-to-export "))
    assert row.split()[-1] == "0"


def test_multi_line_calls_keep_comments_and_layout() -> None:
    code = changed(
        """
        import torch
        example = torch.randn(1, 3)
        traced = torch.jit.trace(
            model,  # the model
            example,  # one tensor
            check_trace=False,
        )
        traced(example)
        """
    )
    assert code.endswith(
        "traced = torch.export.export(\n    model,  # the model\n    (example,),  # one tensor\n).module()\ntraced(example)\n"
    )


def test_annotated_assignment_is_a_finding() -> None:
    messages = unchanged("import torch\nt: torch.jit.ScriptModule = torch.jit.trace(m, (x,))\n", findings=1)
    assert "type annotation" in messages[0]


def test_script_module_hierarchy_is_one_finding_per_root_class() -> None:
    messages = unchanged(
        """
        import torch
        class Base(torch.jit.ScriptModule):
            @torch.jit.script_method
            def forward(self, x):
                return x
        class Child(Base):
            @torch.jit.script_method
            def forward(self, x):
                return x + 1
        """,
        findings=1,
    )
    assert "`Base` subclasses torch.jit.ScriptModule" in messages[0]


def test_script_methods_of_an_invisible_script_module_are_one_finding_per_class() -> None:
    messages = unchanged(
        """
        import torch
        from lib import Base
        class A(Base):
            @torch.jit.script_method
            def f(self, x):
                return x
            @torch.jit.script_method
            def g(self, x):
                return x
        """,
        findings=1,
    )
    assert "@torch.jit.script_method in `A`" in messages[0] and "ExecuTorch" in messages[0]
