"""The jit-to-export pass's output runs on real torch 2.13.0 (CPU), warns nothing, and matches the TorchScript code.

torch attributes its `torch.jit` deprecation warnings to its own files (`torch/jit/_trace.py`), so
``run_code(...).deprecations`` (warnings pointing at the snippet) would be empty for the legacy code too. These tests
therefore also check ``all_deprecations`` (every DeprecationWarning, whatever file it names), to show that the legacy
code warns and the migrated code does not.
"""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.torchrun import Ran, run_code, torch_or_skip

from torchmigrate import migrate_source

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "legacy_project" / "src" / "legacy_app" / "torchscript.py"

MODEL = textwrap.dedent(
    """
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 3)

        def forward(self, x, y):
            return torch.relu(self.lin(x)) * 2 + y

    torch.manual_seed(0)
    model = Net().eval()
    x = torch.randn(2, 4)
    y = torch.randn(2, 3)
    expected = model(x, y)
    """
)


def run_all(code: str, where: Path | None = None, **globals_: Any) -> tuple[Ran, list[str]]:
    """Run ``code``; with ``where`` (a folder), from a real file there, as TorchScript needs the source."""
    if where is None:
        ran = run_code(code, **globals_)
    else:
        path = where / f"snippet_{len(list(where.iterdir()))}.py"
        path.write_text(code, encoding="utf-8")
        ran = run_code(code, filename=str(path), **globals_)
    return ran, ran.all_deprecations


def migrated(code: str) -> str:
    result = migrate_source(code, to="2.12", unsafe_fixes=True)
    assert result.error is None
    assert not result.findings, result.findings
    assert "torch.jit" not in result.code
    return result.code


def test_trace_then_call() -> None:
    torch = torch_or_skip()
    legacy = MODEL + "traced = torch.jit.trace(model, (x, y))\nout = traced(x, y)\n"
    other = migrate_source(legacy + "traced(torch.randn(5, 4), y)\n", to="2.12", unsafe_fixes=True)
    assert "dynamic_shapes=" in other.findings[0].message and other.code == legacy + "traced(torch.randn(5, 4), y)\n"
    old, old_warnings = run_all(legacy)
    assert any("`torch.jit.trace` is deprecated" in w for w in old_warnings)
    code = migrated(legacy)
    assert "traced = torch.export.export(model, (x, y)).module()" in code
    new, new_warnings = run_all(code)
    assert new.deprecations == [] and new_warnings == []
    torch.testing.assert_close(new.namespace["out"], new.namespace["expected"])
    torch.testing.assert_close(new.namespace["out"], old.namespace["out"])


def test_single_tensor_input_becomes_a_one_tuple() -> None:
    torch = torch_or_skip()
    legacy = textwrap.dedent(
        """
        import torch
        torch.manual_seed(0)
        lin = torch.nn.Linear(4, 2).eval()
        x = torch.randn(3, 4)
        out = torch.jit.trace(lin, x)(x)
        expected = lin(x)
        """
    )
    code = migrated(legacy)
    assert "torch.export.export(lin, (x,)).module()(x)" in code
    new, new_warnings = run_all(code)
    assert new_warnings == []
    torch.testing.assert_close(new.namespace["out"], new.namespace["expected"])


def test_trace_save_load_round_trip(tmp_path: Path) -> None:
    torch = torch_or_skip()
    legacy = MODEL + textwrap.dedent(
        """
        traced = torch.jit.trace(model, (x, y), check_trace=False)
        first = traced(x, y)
        torch.jit.save(traced, PATH, _extra_files={"meta.txt": "v1"})
        traced.save(PATH2)
        extra = {"meta.txt": ""}
        loaded = torch.jit.load(PATH, _extra_files=extra)
        out = loaded(x, y)
        out2 = torch.jit.load(PATH2)(x, y)
        """
    )
    old, old_warnings = run_all(legacy, PATH=str(tmp_path / "old.pt"), PATH2=str(tmp_path / "old2.pt"))
    assert any("`torch.jit.save` is deprecated" in w for w in old_warnings)
    assert any("`torch.jit.load` is deprecated" in w for w in old_warnings)
    code = migrated(legacy)
    assert "torch.export.save(traced, PATH, extra_files=" in code
    assert "torch.export.save(traced, PATH2)" in code
    assert "first = traced.module()(x, y)" in code
    assert "torch.export.load(PATH, extra_files=extra).module()" in code
    new, new_warnings = run_all(code, PATH=str(tmp_path / "new.pt2"), PATH2=str(tmp_path / "new2.pt2"))
    assert new.deprecations == [] and new_warnings == []
    ns = new.namespace
    assert isinstance(ns["traced"], torch.export.ExportedProgram)
    for name in ("first", "out", "out2"):
        torch.testing.assert_close(ns[name], ns["expected"])
        torch.testing.assert_close(ns[name], old.namespace[name])
    assert ns["extra"]["meta.txt"] in ("v1", b"v1")
    assert old.namespace["extra"]["meta.txt"] in ("v1", b"v1")


@pytest.fixture
def eager_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep torch.compile's first call fast in the test harness (the rewrite itself emits plain torch.compile)."""
    torch = torch_or_skip()
    monkeypatch.setattr(torch, "compile", functools.partial(torch.compile, backend="eager"))


def test_scripted_functions_run_eagerly_and_a_module_in_a_loop_is_compiled(tmp_path: Path, eager_compile: None) -> None:
    torch = torch_or_skip()
    legacy = MODEL + textwrap.dedent(
        """
        @torch.jit.script
        def gelu(t):
            return t * torch.sigmoid(1.702 * t)

        def swish(t, beta: float = 1.0):
            return t * torch.sigmoid(beta * t)

        swish = torch.jit.script(swish)
        scaled = torch.jit.script(model)
        once = scaled(gelu(x), swish(y))

        def run(batches):
            fast = torch.jit.script(torch.nn.Linear(4, 3).eval())
            return [fast(b) for b in batches]

        torch.manual_seed(1)
        looped = run([x, x + 1])
        reference = model(x * torch.sigmoid(1.702 * x), y * torch.sigmoid(y))
        """
    )
    old, old_warnings = run_all(legacy, tmp_path)
    assert any("`torch.jit.script` is deprecated" in w for w in old_warnings)
    code = migrated(legacy)
    assert "@torch" not in code and "swish = torch" not in code and "scaled = model" in code
    assert "fast = torch.compile(torch.nn.Linear(4, 3).eval())" in code
    new, new_warnings = run_all(code)
    assert new.deprecations == [] and new_warnings == []
    torch.testing.assert_close(new.namespace["once"], new.namespace["reference"])
    torch.testing.assert_close(new.namespace["once"], old.namespace["once"])
    for got, expected in zip(new.namespace["looped"], old.namespace["looped"], strict=True):
        torch.testing.assert_close(got, expected)


def test_a_traced_model_records_the_branches_of_a_scripted_helper_only(tmp_path: Path) -> None:
    """Why a file that keeps TorchScript tracing keeps its scripted helpers too: the trace records the helper's
    control flow only while the helper is scripted; dropping the decorator would silently change the archive."""
    torch = torch_or_skip()
    code = textwrap.dedent(
        """
        import torch

        def helper(x):
            if bool(x.sum() > 0):
                return x * 2
            return -x

        scripted = torch.jit.script(helper)

        class Net(torch.nn.Module):
            def __init__(self, f):
                super().__init__()
                self.f = f

            def forward(self, x):
                return self.f(x)

        with_script = torch.jit.trace(Net(scripted), torch.ones(2))
        plain = torch.jit.trace(Net(helper), torch.ones(2), check_trace=False)
        negative = -torch.ones(2)
        kept = with_script(negative)
        baked = plain(negative)
        """
    )
    ran, _ = run_all(code, tmp_path)
    torch.testing.assert_close(ran.namespace["kept"], torch.ones(2))  # the helper's other branch still runs
    torch.testing.assert_close(ran.namespace["baked"], -2 * torch.ones(2))  # the traced branch, baked in
    assert migrate_source(code + "torch.jit.save(with_script, 'x.pt')\n", to="2.12", unsafe_fixes=True).code.count("torch.jit") == 4


def test_example_project_file_round_trip(tmp_path: Path, eager_compile: None) -> None:
    torch = torch_or_skip()
    legacy = EXAMPLE.read_text(encoding="utf-8")
    driver = textwrap.dedent(
        """
        torch.manual_seed(0)
        net = TinyConv()
        batch = torch.randn(2, 2, 5)
        save_traced(net, batch, PATH)
        loaded_out = load_traced(PATH)(batch)
        run_out = trace_and_run(net, batch)
        expected = net(batch)
        """
    )
    old, old_warnings = run_all(legacy + driver, tmp_path, PATH=str(tmp_path / "tiny.pt"))
    assert any("deprecated" in w for w in old_warnings)
    code = migrated(legacy)
    new, new_warnings = run_all(code + driver, PATH=str(tmp_path / "tiny.pt2"))
    assert new.deprecations == [] and new_warnings == []
    for name in ("loaded_out", "run_out"):
        torch.testing.assert_close(new.namespace[name], new.namespace["expected"])
        torch.testing.assert_close(new.namespace[name], old.namespace[name])


def test_review_note_static_shapes_and_dynamic_shapes() -> None:
    """What the review note says about shapes is what torch 2.13.0 does."""
    torch = torch_or_skip()
    lin = torch.nn.Linear(4, 2).eval()
    module = torch.export.export(lin, (torch.randn(2, 4),)).module()
    with pytest.raises(Exception, match="Guard failed"):
        module(torch.randn(3, 4))
    with pytest.raises(NotImplementedError):
        module.train()
    dynamic = torch.export.export(lin, (torch.randn(2, 4),), dynamic_shapes=({0: torch.export.Dim.AUTO},)).module()
    torch.testing.assert_close(dynamic(torch.ones(3, 4)), lin(torch.ones(3, 4)))
    with pytest.raises(RuntimeError, match="module"):  # an ExportedProgram is not callable: use .module()
        torch.export.export(lin, (torch.randn(2, 4),))(torch.randn(2, 4))


def test_keyword_and_list_example_inputs() -> None:
    torch = torch_or_skip()
    legacy = textwrap.dedent(
        """
        import torch
        from torch import nn
        from torch.jit import trace as tr

        torch.manual_seed(0)
        model = nn.Bilinear(2, 2, 2)
        x, y = torch.randn(1, 2), torch.randn(1, 2)
        f = tr(model, example_kwarg_inputs={'input1': x, 'input2': y})
        g = tr(model, [x, y], strict=False)
        out = f(input1=x, input2=y), g(x, y)
        expected = model(x, y)
        """
    )
    old, old_warnings = run_all(legacy)
    assert any("`torch.jit.trace` is deprecated" in w for w in old_warnings)
    code = migrated(legacy)
    assert "export(model, (), kwargs={'input1': x, 'input2': y}).module()" in code and "export(model, (x, y))" in code
    new, new_warnings = run_all(code)
    assert new.deprecations == [] and new_warnings == []
    for got, before in zip(new.namespace["out"], old.namespace["out"], strict=True):
        torch.testing.assert_close(got, new.namespace["expected"])
        torch.testing.assert_close(got, before)
