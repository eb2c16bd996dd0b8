"""The scope-free qualified names (``python/fastnames.py``) give libcst's answer wherever they give one: every
``PassTransformer.qualname`` call of every pass, on every pass example and on real files, is checked against
libcst's ``QualifiedNameProvider`` while the check is on."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import libcst as cst
import pytest

from torchmigrate.core.fixes import APPLY_ALL
from torchmigrate.core.registry import all_passes
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.fastnames import UNKNOWN, FastNames
from torchmigrate.python.transform import CHECK_FAST_NAMES

PYTHON_PASSES = [p for p in all_passes() if p.files == "python"]


@pytest.fixture
def checked() -> Iterator[None]:
    CHECK_FAST_NAMES.enabled, CHECK_FAST_NAMES.fast, CHECK_FAST_NAMES.slow = True, 0, 0
    CHECK_FAST_NAMES.mismatches = []
    try:
        yield
        assert CHECK_FAST_NAMES.mismatches == []  # (code, scope-free answer, libcst's answer)
    finally:
        CHECK_FAST_NAMES.enabled = False


def _lookup(text: str, expression: str) -> object:
    node = cst.parse_expression(expression)
    return FastNames(ast.parse(text)).lookup(node)


def test_answers_without_the_scope_analysis() -> None:
    text = "import torch\nimport torch.nn.functional as F\nfrom torch import load\n\ndef f(x):\n    return F.relu(x)\n"
    assert _lookup(text, "torch.norm") is UNKNOWN  # not an expression of this file: libcst must say
    assert _lookup(text, "F.relu") == "torch.nn.functional.relu"
    assert _lookup(text, "F.relu(x)") == "torch.nn.functional.relu"  # a call is named after its callee
    assert _lookup(text, "self.norm") is None  # no import binds `self`
    assert _lookup(text, "x") is None


def test_unknown_where_a_scope_could_change_the_answer() -> None:
    rebound = "import torch\n\ndef f(torch):\n    return torch.load(1)\n\ny = torch.load(2)\n"
    assert _lookup(rebound, "torch.load") is UNKNOWN  # a parameter shadows the import in f
    pair = "try:\n    import cPickle as pickle\nexcept ImportError:\n    import pickle\n\npickle.load(f)\n"
    assert _lookup(pair, "pickle.load") is None  # two imports bind it: no single name, as libcst says
    nested = "def f():\n    import torch\n    return torch.load(1)\n"
    assert _lookup(nested, "torch.load") == "torch.load"  # an import in a function is an import all the same
    split = "def f():\n    import torch\n    return torch.load(1)\n\ndef g():\n    return torch.load(2)\n"
    assert _lookup(split, "torch.load") is UNKNOWN  # g's torch is bound by nothing: the answers differ


@pytest.mark.usefixtures("checked")
def test_every_pass_example_gets_libcsts_answers() -> None:
    for pass_ in PYTHON_PASSES:
        for example in pass_.examples:
            for text in filter(None, (example.before, example.after)):
                migrate_text(text, [pass_], gate=APPLY_ALL, precheck=False)
    assert CHECK_FAST_NAMES.fast > 1000  # most questions never reach the scope analysis
    assert CHECK_FAST_NAMES.fast > CHECK_FAST_NAMES.slow


def _real_files() -> list[Path]:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    return sorted(p for p in root.rglob("*.py") if p.stat().st_size < 80_000)[::25]


@pytest.mark.usefixtures("checked")
def test_real_files_get_libcsts_answers() -> None:
    files = _real_files()
    for path in files:
        migrate_text(path.read_text(encoding="utf-8"), PYTHON_PASSES, gate=APPLY_ALL, precheck=False)
    assert len(files) > 50 and CHECK_FAST_NAMES.fast > 1000
