"""Names in the stdlib ast resolve as the libcst passes resolve them (``PassTransformer.qualname``)."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, QualifiedNameSource

from torchmigrate.python.astscope import Names, Span, span

CODE = textwrap.dedent(
    """
    import torch as th
    import torch.nn.functional
    from torch.jit import trace as tr
    from . import local_thing
    try:
        from torch.jit import script
    except ImportError:
        script = None

    def f(model, x: th.Tensor):
        jit = th
        a = th.jit.trace(model, x)
        b = tr(model, x) + torch.nn.functional.relu(x)
        c = jit.trace(model, x)
        def g():
            return a(x), tr(1)
        return [tr(y) for y in x], script(model), local_thing(1)

    class C:
        tr = 1
        def m(self):
            return tr(1), self.tr(1)

    def trace():
        pass

    def h():
        global tr
        tr = None
        from torch.export import export as tr2
        return trace(), tr2(1)
    """
)


def _libcst_qualnames(code: str) -> dict[tuple[int, int], str | None]:
    found: dict[tuple[int, int], str | None] = {}

    class Visit(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider, QualifiedNameProvider)

        def visit_Call(self, node: cst.Call) -> None:
            names = self.get_metadata(QualifiedNameProvider, node.func, set())
            qualnames = {q.name for q in names if q.source is QualifiedNameSource.IMPORT}
            start = self.get_metadata(PositionProvider, node).start
            found[(start.line, start.column)] = qualnames.pop() if len(qualnames) == 1 else None

    MetadataWrapper(cst.parse_module(code)).visit(Visit())
    return found


def test_qualified_names_agree_with_libcst() -> None:
    tree = ast.parse(CODE)
    names = Names(tree, CODE)
    ours = {
        (node.lineno, node.col_offset): names.qualname(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)
    }
    assert ours == _libcst_qualnames(CODE)
    assert "torch.jit.trace" in ours.values() and "torch.export.export" in ours.values()


def test_bindings_uses_and_reaching_values() -> None:
    code = "import torch\nm = torch.nn.Linear(2, 2)\nm = wrap(m)\ndef f():\n    return m(1)\nfor i in range(3):\n    print(i)\n"
    tree = ast.parse(code)
    names = Names(tree, code)
    module = names.module_scope
    assert len(module.bindings["m"]) == 2 and [u.lineno for u in names.uses(module, "m")] == [3, 5]
    use_in_wrap = next(u for u in names.uses(module, "m") if u.lineno == 3)
    reached = names.reaching_binding(use_in_wrap)
    assert isinstance(reached, ast.Name) and reached.lineno == 2
    value = names.assigned_value(reached)
    assert value is not None and ast.unparse(value) == "torch.nn.Linear(2, 2)"
    use_in_f = next(u for u in names.uses(module, "m") if u.lineno == 5)
    assert names.reaching_binding(use_in_f) is None  # from a nested scope: either value may reach it


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("x = f(a)\n", Span((1, 4), (1, 8))),
        ("s = 'é'; y = f(a)\n", Span((1, 13), (1, 17))),  # columns in characters, as libcst counts them
    ],
)
def test_spans_are_libcst_positions(code: str, expected: Span) -> None:
    tree = ast.parse(code)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert span(call, Names(tree, code)) == expected
    wrapper = MetadataWrapper(cst.parse_module(code))
    positions = wrapper.resolve(PositionProvider)
    calls = [r for node, r in positions.items() if isinstance(node, cst.Call)]
    assert [((r.start.line, r.start.column), (r.end.line, r.end.column)) for r in calls] == [(expected.start, expected.end)]


def test_deep_expressions_do_not_recurse() -> None:
    code = "x = " + " + ".join(["a"] * 900) + "\n"
    names = Names(ast.parse(code), code)
    assert len(names.loads["a"]) == 900
