"""The shared rewrite machinery: declarative renames, references to new APIs, guards, suppressions."""

from __future__ import annotations

import pytest

from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.python.engine import migrate_text

DOC = "## What it does\nx\n## Fix safety\ny"


def rename_pass(pass_id: str, trigger: str, renames: dict[str, str]) -> Pass:
    return Pass(id=pass_id, release="2.5", safety=SAFE, title="t", evidence="test", triggers=(trigger,), renames=renames, doc=DOC)


MODULE_RENAME = rename_pass("test-module-rename", "_tensor", {"torch.distributed._tensor": "torch.distributed.tensor"})
NAME_RENAME = rename_pass("test-name-rename", "assert_allclose", {"torch.testing.assert_allclose": "torch.testing.assert_close"})
ROOT_RENAME = rename_pass(
    "test-root-rename", "functorch", {"functorch.vmap": "torch.func.vmap", "functorch.grad": "torch.func.grad"}
)


def run(p: Pass, code: str) -> str:
    result = migrate_text(code, [p])
    assert result.error is None, result.error
    return result.code


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "import torch.distributed._tensor as dt\nx = dt.DTensor\n",
            "import torch.distributed.tensor as dt\nx = dt.DTensor\n",
        ),
        (
            "import torch\nimport torch.distributed._tensor\nx = torch.distributed._tensor.DTensor\n",
            "import torch\nimport torch.distributed.tensor\nx = torch.distributed.tensor.DTensor\n",
        ),
        (
            "from torch.distributed._tensor import DTensor, Shard as S\n",
            "from torch.distributed.tensor import DTensor, Shard as S\n",
        ),
        (
            "from torch.distributed._tensor.placement_types import Replicate\n",
            "from torch.distributed.tensor.placement_types import Replicate\n",
        ),
        (
            "def f():\n    from torch.distributed._tensor import DTensor\n    return DTensor\n",
            "def f():\n    from torch.distributed.tensor import DTensor\n    return DTensor\n",
        ),
        (
            # the imported module's local name changes; its uses follow
            "from torch.distributed import _tensor\ny = _tensor.DTensor\n",
            "from torch.distributed import tensor\ny = tensor.DTensor\n",
        ),
        (
            # ... unless the new name is taken in the file: then the old local name is kept as an alias
            "from torch.distributed import _tensor\ntensor = 1\ny = _tensor.DTensor\n",
            "from torch.distributed import tensor as _tensor\ntensor = 1\ny = _tensor.DTensor\n",
        ),
    ],
)
def test_module_rename(before: str, after: str) -> None:
    assert run(MODULE_RENAME, before) == after
    assert run(MODULE_RENAME, after) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "from torch.testing import assert_allclose\nassert_allclose(a, b)\n",
            "from torch.testing import assert_close\nassert_close(a, b)\n",
        ),
        (
            "from torch.testing import assert_allclose as aac\naac(a, b)\n",
            "from torch.testing import assert_close as aac\naac(a, b)\n",
        ),
        (
            "import torch as th\nth.testing.assert_allclose(a, b)\n",
            "import torch as th\nth.testing.assert_close(a, b)\n",
        ),
        (
            # a use that comes before its (function-local) import in file order is renamed too
            "def g():\n    return assert_allclose\n\ndef h():\n    from torch.testing import assert_allclose\n    return assert_allclose(1, 1)\n",
            "def g():\n    return assert_allclose\n\ndef h():\n    from torch.testing import assert_close\n    return assert_close(1, 1)\n",
        ),
        (
            # look-alikes: a method, and a user function of the same name
            "def assert_allclose(a, b):\n    pass\nself.assert_allclose(1, 2)\nassert_allclose(1, 2)\n",
            None,
        ),
    ],
)
def test_name_rename(before: str, after: str | None) -> None:
    expected = before if after is None else after
    assert run(NAME_RENAME, before) == expected
    assert run(NAME_RENAME, expected) == expected


def test_root_rename_reuses_an_existing_torch_import_and_drops_the_old_one() -> None:
    before = "import torch\nimport functorch\nf = functorch.vmap(g)\n"
    assert run(ROOT_RENAME, before) == "import torch\nf = torch.func.vmap(g)\n"


def test_root_rename_from_import_moves_module() -> None:
    before = "from functorch import vmap, grad\nf = vmap(grad(g))\n"
    assert run(ROOT_RENAME, before) == "from torch.func import vmap, grad\nf = vmap(grad(g))\n"


def test_root_rename_partial_from_import_splits() -> None:
    before = "from functorch import vmap, make_fx\nf = vmap(make_fx(g))\n"
    after = run(ROOT_RENAME, before)
    assert "from functorch import make_fx\n" in after
    assert "from torch.func import vmap\n" in after
    compile(after, "<after>", "exec")


@pytest.mark.parametrize(
    "guarded",
    [
        "import torch\nif torch.__version__ >= '2.5':\n    pass\nelse:\n    from torch.distributed._tensor import DTensor\n",
        "try:\n    from torch.distributed.tensor import DTensor\nexcept ImportError:\n    from torch.distributed._tensor import DTensor\n",
        "import torch\nif hasattr(torch.distributed, 'tensor'):\n    pass\nelse:\n    import torch.distributed._tensor as dt\n",
        "import torch.distributed._tensor as dt\nX = 1 if TORCH_GE_2_5 else dt.DTensor\n",
        # the int(torch.__version__.split(".")[0]) idiom, as real code spells it (torch._six fallbacks)
        "if TORCH_MAJOR == 1 and TORCH_MINOR < 8:\n    from torch.distributed._tensor import DTensor\n",
    ],
)
def test_version_guarded_code_is_left_alone(guarded: str) -> None:
    result = migrate_text(guarded, [MODULE_RENAME])
    if "X = 1 if" in guarded:
        # only the guarded expression is skipped; the import itself is still renamed
        assert result.code.startswith("import torch.distributed.tensor as dt\n")
        assert "else dt.DTensor" in result.code
    else:
        assert result.code == guarded


def test_suppression_comments() -> None:
    code = (
        "from torch.distributed._tensor import DTensor  # migrate: ignore\n"
        "import torch.distributed._tensor as dt  # migrate: ignore[test-module-rename]\n"
        "import torch.distributed._tensor as dt2  # migrate: ignore[other-pass]\n"
    )
    out = run(MODULE_RENAME, code)
    assert out.splitlines()[0] == code.splitlines()[0]
    assert out.splitlines()[1] == code.splitlines()[1]
    assert out.splitlines()[2] == "import torch.distributed.tensor as dt2  # migrate: ignore[other-pass]"
    skipped = "# migrate: skip-file\nimport torch.distributed._tensor as dt\n"
    assert run(MODULE_RENAME, skipped) == skipped


def test_edits_carry_positions_and_pass_ids() -> None:
    result = migrate_text("import os\nfrom torch.distributed._tensor import DTensor\n", [MODULE_RENAME])
    assert [(e.line, e.col, e.pass_id) for e in result.edits] == [(2, 1, "test-module-rename")]


@pytest.mark.parametrize(
    ("code", "scheduled", "expected"),
    [
        (
            "import functorch\nimport torch\nx = torch.func.vmap\n",
            [("functorch", None, None)],
            "import torch\nx = torch.func.vmap\n",
        ),
        ("import functorch\n__all__ = ['functorch']\n", [("functorch", None, None)], None),  # named in a string: kept
        ("import functorch\ny = functorch.grad\n", [("functorch", None, None)], None),  # still used: kept
        (
            "from torch.export import export_for_inference as efi, export\nep = export(m, a)\n",
            [("torch.export", "export_for_inference", "efi")],
            "from torch.export import export\nep = export(m, a)\n",
        ),
        ("def f():\n    import functorch\n", [("functorch", None, None)], "def f():\n    pass\n"),
        (
            "import torch\nimport torch.distributed._tensor\nx = torch.nn\n",
            [("torch.distributed._tensor", None, None)],
            "import torch\nx = torch.nn\n",
        ),
        (
            "import torch.distributed._tensor\nx = torch.distributed._tensor.DTensor\n",
            [("torch.distributed._tensor", None, None)],
            None,
        ),
    ],
)
def test_drop_unused_imports(code: str, scheduled: list[tuple[str, str | None, str | None]], expected: str | None) -> None:
    import libcst as cst

    from torchmigrate.python.imports import drop_unused_imports

    out = drop_unused_imports(cst.parse_module(code), scheduled).code
    assert out == (code if expected is None else expected)
    protected = drop_unused_imports(cst.parse_module(code), scheduled, protected={code.splitlines()[0]}).code
    if not code.startswith("def"):
        assert protected.splitlines()[0] == code.splitlines()[0]  # a suppressed import line is never edited


def test_matcher_decorators_are_refused_on_pass_transformers() -> None:
    # PassTransformer skips libcst's matcher-decorator machinery (its cost is per node); a decorated method would
    # silently never run, so defining one is an error.
    import libcst.matchers as m

    from torchmigrate.python.transform import PassTransformer

    with pytest.raises(TypeError, match="matcher decorators"):

        class Decorated(PassTransformer):
            @m.visit(m.Call())
            def on_call(self, node: object) -> None:
                pass
