"""The jit-to-export pass beyond its documented examples: where TorchScript is the contract (silence), what blocks a
rewrite (findings), what is rewritten and how, the plan on its own, and the CLI on the bundled example."""

from __future__ import annotations

import ast
import subprocess
import textwrap
from pathlib import Path

import pytest
from support.cli import MIGRATE

from torchmigrate import migrate_source
from torchmigrate.cli import render_explain
from torchmigrate.codemods.v2_10.jit_to_export.analysis import Plan, analyse
from torchmigrate.core.registry import get_pass
from torchmigrate.core.results import FileResult
from torchmigrate.python import engine

ROOT = Path(__file__).resolve().parents[2]
MODULE = "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"


def source(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def run(code: str, to: str = "2.10") -> FileResult:
    result = migrate_source(source(code), to=to, select=["jit-to-export"], unsafe_fixes=True)
    assert result.error is None
    return result


def changed(code: str) -> str:
    result = run(code)
    assert result.code != source(code)
    assert result.edits and all(e.pass_id == "jit-to-export" and e.safety == "review" for e in result.edits)
    assert not result.findings, result.findings
    return result.code


def unchanged(code: str, findings: int = 0) -> list[str]:
    result = run(code)
    assert result.code == source(code)
    assert not result.edits
    assert len(result.findings) == findings, [f.message for f in result.findings]
    return [f.message for f in result.findings]


def plan(code: str) -> Plan:
    code = source(code)
    return analyse(code, ast.parse(code))


# --- TorchScript is the contract: no edit, no finding ----------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        # an archive for readers outside the file (C++ torch::jit::load, a serving stack)
        "import torch\nm = torch.nn.Linear(2, 2)\nx = torch.ones(2)\nt = torch.jit.trace(m, x)\ntorch.jit.save(t, 'm.pt')\n",
        "import torch\ndef export(m: torch.nn.Module, x: torch.Tensor, f):\n    torch.jit.trace(m, x).save(f, _extra_files={})\n",
        # an archive read from elsewhere
        "import torch\nmodel = torch.jit.load(weights, map_location='cpu')\n",
        # results that escape: returned, passed on, TorchScript API used, stored, discarded
        "import torch\ndef build(m: torch.nn.Module, x: torch.Tensor):\n    return torch.jit.trace(m, x)\n",
        "import torch\nm = torch.nn.Linear(2, 2)\nwriter.add_graph(torch.jit.trace(m, torch.ones(2)), [])\n",
        "import torch\nm = torch.nn.Linear(2, 2)\nt = torch.jit.trace(m, torch.ones(2))\nprint(t.graph)\n",
        "import torch\nclass A:\n    def __init__(self, m: torch.nn.Module):\n        self.fast = torch.jit.script(m)\n",
        "import torch\nm = torch.nn.Linear(2, 2)\ns = torch.jit.script(m)\ns.eval()\n",
        "import torch\ntorch.jit.script(torch.nn.Linear(2, 2))\n",
        # private arguments are TorchScript's own
        "import torch\nm = torch.nn.Linear(2, 2)\nt = torch.jit.trace(m, (x,), _force_outplace=True)\nt(x)\n",
        # a scripted function whose TorchScript API is used
        "import torch\n@torch.jit.script\ndef f(x):\n    return x\nprint(f.graph)\n",
    ],
)
def test_torchscript_as_the_contract_is_left_alone_silently(code: str) -> None:
    unchanged(code)


@pytest.mark.parametrize(
    "extra",
    [
        "def test_traced():\n    assert t(x) is not None\n",  # a test module
        "class TestJit:\n    def test_it(self):\n        pass\n",
        "class RpcTest(RpcAgentTestFixture):\n    def test_remote(self):\n        pass\n",
        "import unittest\nclass Case(unittest.TestCase):\n    pass\n",
        "import pytest\n@pytest.fixture\ndef model():\n    return Net()\n",
        "torch._C._jit_override_can_fuse_on_cpu(True)\n",  # tunes TorchScript's fuser
        "from torch.jit import _get_trace_graph\n",  # TorchScript internals
        "torch.jit.Tracer = object\n",  # patches TorchScript
        "ok = isinstance(t, torch.jit.ScriptModule)\n",  # handles TorchScript objects
        "import warnings\nwarnings.filterwarnings('ignore', message='.*torch.jit.trace.*')\n",
        "import warnings\nwarnings.simplefilter('ignore', torch.jit.TracerWarning)\n",
    ],
)
def test_files_that_keep_torchscript_on_purpose_are_left_alone(extra: str) -> None:
    code = MODULE + "@torch.jit.script\ndef f(x):\n    return x\nx = torch.ones(2)\nt = torch.jit.trace(Net(), x)\nt(x)\n"
    assert changed(code)  # migrates on its own
    unchanged(code + extra)
    assert plan(code + extra) == Plan()


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        ("# speeds up training 1.4x\n@torch.jit.script\ndef f(x):\n    return x\n", True),
        ("@torch.jit.script  # fuse these pointwise ops\ndef f(x):\n    return x\n", True),
        ("@torch.jit.script\ndef jit_swish(x):\n    return x\n", True),
        ("# speeds up training 1.4x\n\n@torch.jit.script\ndef f(x):\n    return x\n", False),  # not attached
        ("# the activation\n@torch.jit.script\ndef f(x):\n    return x\n", False),
    ],
)
def test_functions_scripted_on_purpose_keep_their_decorator(code: str, kept: bool) -> None:
    if kept:
        unchanged("import torch\n" + code)
    else:
        assert "@torch.jit.script" not in changed("import torch\n" + code)


def test_a_file_that_keeps_some_torchscript_keeps_all_of_it() -> None:
    """No file mixes eager or exported code with TorchScript tracing of it: a scripted helper that a traced model calls
    records its branches in the trace; a plain function would not (see test_semantic_jit.py)."""
    code = MODULE.replace("x + 1", "helper(x)") + (
        "@torch.jit.script\ndef helper(x):\n    return x if bool(x.sum() > 0) else -x\n"
        "m = Net()\nx = torch.ones(2)\ntorch.jit.trace(m, x).save('for_cpp.pt')\n"
    )
    unchanged(code)
    assert "keeps" not in plan(code).kept and "readers elsewhere" in plan(code).kept


def test_a_suppressed_site_keeps_the_file_together() -> None:
    code = "import torch\n@torch.jit.script\ndef f(x):\n    return x\ng = torch.jit.script(h)  # migrate: ignore[jit-to-export]\ng(1)\n"
    unchanged(code)
    unchanged("import torch\n@torch.jit.script  # migrate: ignore\ndef f(x):\n    return x\n")


def test_a_suppressed_load_keeps_the_trace_that_writes_its_archive() -> None:
    unchanged(
        "import torch\nm = torch.nn.Linear(2, 2)\nt = torch.jit.trace(m, (x,))\ntorch.jit.save(t, 'm.pt')\n"
        "r = torch.jit.load('m.pt')  # migrate: ignore\n"
    )


def test_version_guarded_code_is_left_alone() -> None:
    code = "import torch\nif torch.__version__ < '2.10':\n    @torch.jit.script\n    def f(x):\n        return x\n"
    unchanged(code)
    code = "import torch\ntry:\n    from torch.jit import script\nexcept ImportError:\n    script = None\n"
    unchanged(code)


# --- findings: what blocks a rewrite, and what to do ---------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "model", "shown"),
    [
        ("def f(a):\n    return a\n", "f", "the function `f`"),
        ("", "lambda a: a", "the function `lambda a: a`"),
        ("m = torch.nn.Linear(2, 2)\n", "m.extra", "`m.extra`, an attribute (a bound method"),
        ("", "obj.encoder", "`obj.encoder`, an attribute"),
        ("def g(model, x):\n    pass\n", "model", "not visibly an nn.Module instance"),
        ("m = make_model()\n", "m", "not visibly an nn.Module instance"),
    ],
)
def test_tracing_what_is_not_visibly_a_module_is_a_finding_that_says_wrap_it(setup: str, model: str, shown: str) -> None:
    code = f"import torch\n{setup}x = torch.ones(2)\nt = torch.jit.trace({model}, (x,))\nt(x)\n"
    messages = unchanged(code, findings=1)
    assert shown in messages[0] and "wrap it in a small nn.Module" in messages[0], messages[0]


@pytest.mark.parametrize(
    ("model", "setup"),
    [
        ("Net()", ""),
        ("Net().eval().to('cpu')", ""),
        ("m", "m = Net()\n"),
        ("m.forward", "m = Net()\n"),
        ("torch.nn.Linear(2, 2)", ""),
        ("nn.Sequential(Net())", "from torch import nn\n"),
        ("Child()", "class Child(Net):\n    pass\n"),
    ],
)
def test_visible_modules_are_migrated(model: str, setup: str) -> None:
    code = changed(f"{MODULE}{setup}x = torch.ones(2)\nt = torch.jit.trace({model}, x)\nt(x)\n")
    exported = model.removesuffix(".forward")
    assert f"t = torch.export.export({exported}, (x,)).module()" in code


def test_an_annotated_parameter_is_a_visible_module() -> None:
    code = changed("import torch\ndef f(m: torch.nn.Module, x: torch.Tensor):\n    return torch.jit.trace(m, x)(x)\n")
    assert "return torch.export.export(m, (x,)).module()(x)" in code


@pytest.mark.parametrize(
    "call",
    [
        "t(other)",  # another tensor
        "t(torch.ones(3))",  # another shape
        "t(torch.ones(2, dtype=torch.int64))",  # another dtype
        "t(x, x)",  # another signature
        "t(x.unsqueeze(0))",
        "[t(b) for b in batches]",
    ],
)
def test_calls_with_other_shapes_are_a_finding_naming_dynamic_shapes(call: str) -> None:
    messages = unchanged(f"{MODULE}x = torch.ones(2)\nt = torch.jit.trace(Net(), x)\n{call}\n", findings=1)
    assert "dynamic_shapes=" in messages[0] and "not visibly the example's" in messages[0]


@pytest.mark.parametrize(
    ("example", "call"),
    [
        ("x", "t(x)"),
        ("x", "t(torch.ones(2))"),  # the same factory and size
        ("x", "t(torch.zeros(2).to('cpu'))"),
        ("(x, y)", "t(x, y)"),
        ("inputs", "t(*inputs)"),
        ("[x, y]", "t(x, y)"),
    ],
)
def test_calls_with_the_example_shapes_are_migrated(example: str, call: str) -> None:
    code = f"{MODULE}x = torch.ones(2)\ny = torch.ones(2)\ninputs = (x, y)\nt = torch.jit.trace(Net(), {example})\n{call}\n"
    changed(code)


def test_the_example_kind_that_cannot_be_seen_is_a_finding() -> None:
    messages = unchanged("import torch\ndef f(m: torch.nn.Module, e):\n    t = torch.jit.trace(m, e)\n    t(e)\n", findings=1)
    assert "cannot tell whether `e` is one input or a tuple" in messages[0]


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
    call = "t(*inputs)" if "(a, b)" in setup or "[a, b]" in setup else "t(inputs)"
    code = changed(f"import torch\nm = torch.nn.Linear(3, 3)\n{setup}\nt = torch.jit.trace(m, inputs)\n{call}\n")
    assert f"t = torch.export.{expected}.module()" in code


@pytest.mark.parametrize(
    "body",
    ["if x.sum() > 0: x = -x", "while x.max() > 1: x = x / 2", "x = x if x[0] > 0 else -x", "if torch.jit.is_tracing(): x = -x"],
)
def test_data_dependent_branches_in_the_traced_forward_are_findings(body: str) -> None:
    code = f"import torch\nclass Net(torch.nn.Module):\n    def forward(self, x, flag: bool = False):\n        {body}\n        return x\n"
    messages = unchanged(code + "x = torch.ones(2)\nt = torch.jit.trace(Net(), x)\nt(x)\n", findings=1)
    assert "`Net.forward`" in messages[0] and "torch.cond" in messages[0]


@pytest.mark.parametrize("body", ["if x.shape[0] > 1: x = x * 2", "if flag: x = -x", "if self.training: x = -x"])
def test_static_branches_do_not_block(body: str) -> None:
    code = f"import torch\nclass Net(torch.nn.Module):\n    def forward(self, x, flag: bool = False):\n        {body}\n        return x\n"
    changed(code + "x = torch.ones(2)\nt = torch.jit.trace(Net(), x)\nt(x)\n")


def test_a_scripted_function_that_asks_is_scripting_is_a_finding() -> None:
    code = "import torch\n@torch.jit.script\ndef f(x):\n    if torch.jit.is_scripting():\n        return x\n    return -x\n"
    messages = unchanged(code, findings=1)
    assert "is_scripting()" in messages[0] and "other branch" in messages[0]


def test_legacy_forms_are_one_finding_each_and_block_the_file() -> None:
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
        @torch.jit.script
        class Pair:
            pass
        @torch.jit.script
        def helper(x):
            return x
        """,
        findings=2,
    )
    assert "`Base` subclasses torch.jit.ScriptModule" in messages[0]
    assert "TorchScript class" in messages[1]


def test_script_methods_of_an_invisible_script_module_are_one_finding_per_class() -> None:
    messages = unchanged(
        "import torch\nfrom lib import Base\nclass A(Base):\n    @torch.jit.script_method\n    def f(self, x):\n        return x\n"
        "    @torch.jit.script_method\n    def g(self, x):\n        return x\n",
        findings=1,
    )
    assert "@torch.jit.script_method in `A`" in messages[0]


def test_a_script_round_trip_is_a_finding_and_an_unmigratable_load_blocks_its_trace() -> None:
    messages = unchanged("import torch\ns = torch.jit.script(m)\ntorch.jit.save(s, 'm.pt')\nr = torch.jit.load('m.pt')\n", 1)
    assert "no example inputs" in messages[0]
    code = "import torch\nm = torch.nn.Linear(2, 2)\nt = torch.jit.trace(m, (x,))\ntorch.jit.save(t, 'm.pt')\n"
    messages = unchanged(code + "r = torch.jit.load('m.pt', map_location='cpu')\n", findings=1)
    assert "map_location" in messages[0] and "line 5" in messages[0]
    messages = unchanged(code + "def load():\n    r = torch.jit.load('m.pt')\n    r.eval()\n    return r\n", findings=1)
    assert "r.eval" in messages[0] and "NotImplementedError" in messages[0]


# --- rewrites ---------------------------------------------------------------------------------------------------


def test_decorators_go_with_their_imports_and_comments_stay() -> None:
    code = changed(
        """
        import torch
        from torch.jit import script as ts


        @functools.lru_cache
        # a comment
        @ts
        @staticmethod
        def f(x):
            return x
        """
    )
    assert code == "import torch\n\n\n@functools.lru_cache\n# a comment\n@staticmethod\ndef f(x):\n    return x\n"


def test_script_calls_become_the_object_or_go() -> None:
    code = changed(
        """
        import torch
        def f(x):
            return x
        g = torch.jit.script(f)
        h = torch.jit.script(f, optimize=True)(1)
        f = torch.jit.script(f)
        y = g(1) + f(2)
        """
    )
    assert "g = f\nh = f(1)\ny = g(1) + f(2)\n" in code


def test_a_module_called_in_a_loop_is_compiled_and_elsewhere_runs_eagerly() -> None:
    code = changed(
        """
        import torch
        def loop(batches):
            fast = torch.jit.script(torch.nn.Linear(2, 2))
            for b in batches:
                fast(b)
        def once(x):
            fast = torch.jit.script(torch.nn.Linear(2, 2))
            return fast(x)
        fast = torch.jit.script(torch.nn.Linear(2, 2))
        for b in batches:
            fast(b)
        """
    )
    assert code.count("torch.compile(") == 1 and "    fast = torch.compile(torch.nn.Linear(2, 2))\n    for b" in code
    assert code.count("fast = torch.nn.Linear(2, 2)") == 2  # once, and at import time: never torch.compile there


def test_compile_is_never_imported_bare() -> None:
    code = changed("from torch.jit import script\ndef f(bs):\n    s = script(torch_nn.Linear(1, 1))\n    for b in bs:\n        s(b)\n")
    assert "torch.compile" not in code  # torch_nn is not torch.nn: not a visible module, so it runs eagerly
    code = changed("from torch.jit import script\nfrom torch import nn\ndef f(bs):\n    s = script(nn.Linear(1, 1))\n    for b in bs:\n        s(b)\n")
    assert "import torch\n" in code and "s = torch.compile(nn.Linear(1, 1))" in code and "from torch import compile" not in code


def test_load_pairs_by_path_expression_ignoring_quotes_and_spacing() -> None:
    code = changed(
        """
        import torch
        m = torch.nn.Linear(2, 2)
        t = torch.jit.trace(m, (x,))
        torch.jit.save(t, "model.pt")
        a = torch.jit.load('model.pt')
        b = torch.jit.load( "model.pt" )
        """
    )
    assert 'torch.export.save(t, "model.pt")' in code
    assert "a = torch.export.load('model.pt').module()" in code
    assert 'b = torch.export.load( "model.pt" ).module()' in code


def test_a_path_also_written_as_torchscript_is_not_paired() -> None:
    unchanged(
        "import torch\nm = torch.nn.Linear(2, 2)\nt = torch.jit.trace(m, (x,))\ntorch.jit.save(t, 'm.pt')\n"
        "torch.jit.save(other_module, 'm.pt')\nloaded = torch.jit.load('m.pt')\n"
    )


def test_dropped_arguments_are_named_and_multi_line_calls_keep_their_layout() -> None:
    result = run(
        """
        import torch
        model = torch.nn.Linear(3, 3)
        example = torch.randn(1, 3)
        traced = torch.jit.trace(
            model,  # the model
            example,  # one tensor
            check_trace=False,
        )
        traced(example)
        """
    )
    assert result.code.endswith(
        "traced = torch.export.export(\n    model,  # the model\n    (example,),  # one tensor\n).module()\ntraced(example)\n"
    )
    assert "dropped check_trace" in result.edits[0].message


def test_saved_program_calls_become_module_calls_in_nested_functions() -> None:
    code = changed(
        """
        import torch
        model = torch.nn.Linear(2, 2)
        x = torch.ones(2)
        model = torch.jit.trace(model, (x,))
        def infer():
            return model(x)
        model.save("m.pt")
        loaded = torch.jit.load("m.pt")
        """
    )
    assert "model = torch.export.export(model, (x,))" in code
    assert "return model.module()(x)" in code
    assert 'torch.export.save(model, "m.pt")' in code


def test_non_ascii_text_before_a_site_keeps_positions_right() -> None:
    code = changed("import torch\nnom = 'é'; m = torch.nn.Linear(2, 2); t = torch.jit.trace(m, (x,)); t(x)\n")
    assert "t = torch.export.export(m, (x,)).module()" in code


def test_below_the_release_and_chained_with_later_passes() -> None:
    code = "import torch\n@torch.jit.script\ndef f(x):\n    return x\n"
    assert migrate_source(code, to="2.9", unsafe_fixes=True).code == code
    assert migrate_source(code, to="2.12", unsafe_fixes=True).code == "def f(x):\n    return x\n"  # torch is unused now


# --- the plan on its own, and the cost ----------------------------------------------------------------------------


def test_the_plan_is_frozen_and_names_what_to_rewrite() -> None:
    found = plan(MODULE + "x = torch.ones(2)\nt = torch.jit.trace(Net(), x)\nt(x)\n")
    assert found.has_edits and len(found.traces) == 1 and not found.findings and found.kept == ""
    edit = found.traces[0]
    assert (edit.span.start, edit.inputs, edit.keep_program) == ((6, 4), "single", False)
    with pytest.raises(AttributeError):
        found.kept = "x"  # type: ignore[misc]


def test_files_without_an_edit_never_reach_libcst() -> None:
    codes = [
        "import torch\nif torch.jit.is_scripting():\n    pass\n@torch.jit.unused\ndef f(x):\n    return torch.jit.annotate(int, x)\n",
        "import torch\nt = torch.jit.trace(f, (x,))\nt(x)\n",  # a finding, from the ast alone
        "import torch\nmodel = torch.jit.load('m.pt')\n",
    ]
    before = engine.PARSES.count
    results = [run(code) for code in codes]
    assert engine.PARSES.count == before
    assert [len(r.findings) for r in results] == [0, 1, 0]


# --- documentation and the example project ---------------------------------------------------------------------


def test_explain_reads_well() -> None:
    text = render_explain(get_pass("jit-to-export"))
    for needle in (
        "jit-to-export: torch.jit: drop @script",
        "release: 2.10    kind: deprecation    safety: review",
        "## What it does",
        "## Why",
        "## Fix safety",
        "## What to review",
        "dynamic_shapes=({0: torch.export.Dim.AUTO},)",
        ".module().train()",
        "the pass is silent",
        "### Example 1",
    ):
        assert needle in text, needle


def test_example_project_diff_shows_the_torchscript_file() -> None:
    proc = subprocess.run(
        [str(MIGRATE), "--to", "2.12", "--diff", "--unsafe-fixes", "examples/legacy_project"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    if proc.returncode == 2 and b"--unsafe-fixes" in proc.stderr:  # the flag arrives with fix safety
        proc = subprocess.run(
            [str(MIGRATE), "--to", "2.12", "--diff", "examples/legacy_project"], cwd=ROOT, capture_output=True, timeout=120
        )
    assert proc.returncode == 0, proc.stderr
    diff = proc.stdout.decode()
    assert "+++ b/examples/legacy_project/src/legacy_app/torchscript.py" in diff
    assert "+    traced = torch.export.export(model.eval(), (example,))" in diff
    assert "+    return torch.export.load(path).module()" in diff
    assert "-@torch.jit.script\n" in diff and "@torch.compile" not in diff
    assert "serving.py" not in diff  # the archive for the C++ server is the contract: left alone, silently
    lines = proc.stderr.decode().splitlines()
    assert not [line for line in lines if " jit-to-export " in line and " [review] " not in line]  # no findings
    assert any(" jit-to-export [review] " in line for line in lines)  # what to check about the applied edits


@pytest.mark.parametrize(
    "relative",
    [
        "utils/mkldnn.py",  # ScriptModule subclasses: findings
        "distributed/optim/functional_adam.py",  # a TorchScript class: a finding
        "jit/quantized.py",
        "backends/_nnapi/prepare.py",  # torch.jit.freeze: jit-utilities
        "utils/tensorboard/_pytorch_graph.py",  # a trace whose result escapes: silent
        "_dynamo/backends/debugging.py",
    ],
)
def test_real_files_give_the_same_result_from_the_ast_and_through_libcst(relative: str) -> None:
    torch = pytest.importorskip("torch")
    path = Path(torch.__file__).parent / relative
    code = path.read_text(encoding="utf-8")
    passes = [get_pass("jit-to-export"), get_pass("jit-utilities")]
    fast, slow = engine.migrate_text(code, passes), engine.migrate_text(code, passes, precheck=False)
    assert (fast.code, fast.edits, fast.findings, fast.error) == (slow.code, slow.edits, slow.findings, slow.error)
