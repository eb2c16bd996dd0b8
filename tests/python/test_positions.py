"""Positions made one top-level statement at a time are libcst's ``PositionProvider`` positions, node for node."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import torchmigrate
from torchmigrate.core.registry import all_passes
from torchmigrate.python.positions import StatementPositions

TRICKY = [
    "import torch\n\n\n# a comment\n\n@decorator  # trailing\n# between decorators\n@other(\n    1,\n)\n\ndef f(a,\n      b):\n"
    "    return a; b\n",
    "x = 1; y = 2\nz = (\n    3\n)\n(a) = 4\nif x:\n    pass\nelif y:\n    pass\nelse:\n    pass\n",
    "async def f():\n    async with a as b:\n        await b\n\n\nclass C(B, metaclass=M):\n    '''doc'''\n\n    @property\n"
    "    def p(self): return 1\n",
    "try:\n    import a\nexcept ImportError:  # comment\n    a = None\nfinally:\n    pass\n# footer comment\n",
    "x = 1\r\ny = [\r\n    2,\r\n]\r\n",
    "x = \\\n    1\nif (a and\n        b):\n    y = '''\nlong\nstring'''\n",
    "match command:\n    case [x, y]:\n        pass\n    case _:\n        pass\n",
    "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n",
    "x = 1\n\x0cy = 2\n",
    "no_trailing_newline = 1",
    "\n\n# only comments after blank lines\n\nx = f'{a!r:>{width}}' + \"é\"\n",
]


def _check(code: str) -> int:
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(module, ast.parse(code))
    for statement in module.body:
        positions.prepare(statement)
    assert positions.statements == len(module.body)  # every statement made alone, none fell back
    made = dict(positions._computed)
    for node, where in made.items():
        assert where == expected[node], (type(node).__name__, code)
    # the nodes of no statement (the module, its header and footer lines) come from libcst's provider
    for node, where in expected.items():
        assert positions[node] == where
    return len(made)


@pytest.mark.parametrize("code", TRICKY)
def test_positions_per_statement_are_libcsts(code: str) -> None:
    assert _check(code) > 0 or not code.strip()


def test_positions_of_every_pass_example_are_libcsts() -> None:
    examples = [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    examples += [e.after for p in all_passes() if p.files == "python" for e in p.examples if e.after]
    assert sum(_check(code) for code in examples) > 10_000


def test_positions_of_real_code_are_libcsts() -> None:
    """The tool's own sources: decorators, nested classes, long strings, comments everywhere."""
    files = sorted(Path(torchmigrate.__file__).parent.rglob("*.py"))
    assert len(files) > 100
    assert sum(_check(f.read_text(encoding="utf-8")) for f in files[::3]) > 100_000


def test_one_statement_is_made_alone_and_an_unprepared_node_makes_the_whole_table() -> None:
    code = "import torch\n\n\ndef a():\n    return torch.qr(x)\n\n\ndef b():\n    return torch.qr(y)\n"
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(module, ast.parse(code))
    second = module.body[2]
    positions.prepare(second)
    assert positions.statements == 1 and not positions._whole
    call = second.body.body[0].body[0].value  # type: ignore[attr-defined]
    assert positions[call] == expected[call] and positions[call].start.line == 9
    first = module.body[1]
    assert positions[first] == expected[first] and positions._whole  # not prepared: libcst's whole table


def test_a_tree_that_does_not_pair_with_the_module_falls_back_to_libcst() -> None:
    code = "a = 1; b = 2\nc = 3\n"
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(module, ast.parse("a = 1\n"))
    positions.prepare(module.body[1])
    assert positions.statements == 0
    assert all(positions[node] == where for node, where in expected.items())


def test_the_engine_reports_the_same_lines_with_and_without_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pass example run by the engine, alone and with every pass of its release (a pass after one that edited
    visits a wrapper's copy of the tree): the same edits, findings and text when positions come from libcst's
    provider for the whole module."""
    from torchmigrate.core.fixes import APPLY_ALL
    from torchmigrate.python import engine

    python = [p for p in all_passes() if p.files == "python"]
    cases = [(passes, e.before) for p in python for e in p.examples if e.before for passes in ([p], python)]
    fast = [engine.migrate_text(code, passes, gate=APPLY_ALL) for passes, code in cases]
    monkeypatch.setattr(engine.Wrappers, "positions", lambda self, module, visited: None)
    slow = [engine.migrate_text(code, passes, gate=APPLY_ALL) for passes, code in cases]
    assert sum(len(r.edits) + len(r.findings) for r in slow) > 500
    for a, b in zip(fast, slow, strict=True):
        assert (a.code, a.edits, a.findings, a.error) == (b.code, b.edits, b.findings, b.error)
