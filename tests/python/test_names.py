"""The stdlib-ast name resolver gives libcst's answer (PassTransformer.qualname) on every name and attribute chain."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, QualifiedNameSource

from torchmigrate.core.registry import all_passes
from torchmigrate.python.names import AstNames

Key = tuple[int, int, int, int, str]


def libcst_answers(text: str) -> dict[Key, str | None]:
    wrapper = MetadataWrapper(cst.parse_module(text))
    positions = wrapper.resolve(PositionProvider)
    names = wrapper.resolve(QualifiedNameProvider)
    out: dict[Key, str | None] = {}
    for node, where in positions.items():
        if isinstance(node, (cst.Name, cst.Attribute)):
            found = names.get(node, set())
            found = found() if callable(found) else found
            imported = {q.name for q in found if q.source is QualifiedNameSource.IMPORT}
            key = (where.start.line, where.start.column, where.end.line, where.end.column, type(node).__name__)
            out[key] = imported.pop() if len(imported) == 1 else None
    return out


def ast_answers(text: str) -> dict[Key, str | None]:
    tree = ast.parse(text)
    resolver = AstNames(tree)
    lines = text.splitlines(keepends=True)

    def column(line: int, offset: int) -> int:  # ast counts UTF-8 bytes, libcst characters
        return len(lines[line - 1].encode("utf-8")[:offset].decode("utf-8", "replace")) if line <= len(lines) else offset

    out: dict[Key, str | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)):
            assert node.end_lineno is not None and node.end_col_offset is not None
            key = (node.lineno, column(node.lineno, node.col_offset), node.end_lineno,
                   column(node.end_lineno, node.end_col_offset), type(node).__name__)
            out[key] = resolver.qualname(node)
    return out


def differences(text: str) -> list[tuple[Key, str | None, str | None]]:
    theirs, ours = libcst_answers(text), ast_answers(text)
    return [(key, theirs[key], ours[key]) for key in ours if key in theirs and theirs[key] != ours[key]]


SCOPING = """
import torch
import torch.distributed as dist
import a.b.c
from torch import jit as j
from torch.export import export_for_training as eft

try:
    from torch.amp import autocast
except ImportError:
    from torch.cuda.amp import autocast

onnx = None
try:
    import onnx
except ImportError:
    pass


class Model(torch.nn.Module):
    load = torch.load

    def forward(self, x):
        return load(x), self.load(x), torch.load(x)


def f(load):
    return load(1), torch.load(2), a.b.c.d(3), a.b.x, j.trace(m, x), eft(m, x)


def g():
    torch.save(x)
    import torch
    return torch.load(p)


def h():
    global dist
    dist = None
    return [torch.cat(t) for t in dist.all_gather(x)], (lambda torch: torch.load(1))(q)


with torch.no_grad() as ng, open(p) as fh:
    autocast(dist.rank(), ng, fh)
for torch in range(3):
    torch.load(1)
"""


def test_scoping_rules_match_libcst() -> None:
    assert len(ast_answers(SCOPING)) > 60
    assert differences(SCOPING) == []


def test_the_resolver_knows_imports_aliases_and_ambiguity() -> None:
    tree = ast.parse("import torch as th\nfrom torch import load\ntry:\n    from x import y\nexcept ImportError:\n    from z import y\n"
                     "th.jit.trace(m)\nload(p)\ny()\nself.load(p)\n")
    names = AstNames(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [names.qualname(c.func) for c in calls] == ["torch.jit.trace", "torch.load", None, None]


@pytest.mark.parametrize("pass_", [p for p in all_passes() if not p.files == "project"], ids=lambda p: p.id)
def test_every_pass_example_resolves_as_libcst_does(pass_: object) -> None:
    for example in pass_.examples:  # type: ignore[attr-defined]
        for text in filter(None, (example.before, example.after)):
            assert differences(text) == [], text


def _torch_sources() -> list[Path]:
    torch = pytest.importorskip("torch")
    files = sorted(p for p in Path(torch.__file__).parent.rglob("*.py") if 2_000 < p.stat().st_size < 20_000)
    return files[::40]  # a fixed, spread-out sample of real code (about 30 files)


def test_real_files_resolve_as_libcst_does() -> None:
    compared = 0
    for path in _torch_sources():
        text = path.read_text(encoding="utf-8")
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        assert differences(text) == [], path
        compared += 1
    assert compared >= 20
