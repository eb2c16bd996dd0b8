"""The shared rewrite machinery: declarative renames, references to new APIs, guards, suppressions."""

from __future__ import annotations

import subprocess
import sys

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
        # a feature check spelled with dir() (NVIDIA/apex's distributed_fused_lamb.py shims a missing name this way)
        "import torch\nif 'tensor' not in dir(torch.distributed):\n    import torch.distributed._tensor as dt\n",
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


@pytest.mark.parametrize("decorator", ["visit", "leave", "call_if_inside", "call_if_not_inside"])
def test_matcher_decorators_are_refused_on_pass_transformers(decorator: str) -> None:
    # PassTransformer is a plain CSTTransformer without libcst's matcher-decorator machinery (its cost is per node,
    # and importing it loads libcst's matchers); a decorated method would silently never run, so defining one is an error.
    import libcst.matchers as m

    from torchmigrate.python.transform import PassTransformer

    with pytest.raises(TypeError, match="matcher decorators"):

        class Decorated(PassTransformer):
            @getattr(m, decorator)(m.Call())
            def on_call(self, node: object) -> None:
                pass


def test_the_scratch_keys_are_libcsts() -> None:
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

    from torchmigrate.python.codemod import ADD_IMPORTS_KEY, REMOVE_IMPORTS_KEY

    assert (ADD_IMPORTS_KEY, REMOVE_IMPORTS_KEY) == (AddImportsVisitor.CONTEXT_KEY, RemoveImportsVisitor.CONTEXT_KEY)


def test_loading_the_passes_and_settling_a_file_does_not_import_libcsts_codemod_or_matchers() -> None:
    """Importing ``libcst.codemod`` loads libcst's matchers (about 0.2 s of start-up): only an edit that adds an
    import needs it. Checked in a fresh interpreter: selecting every pass, migrating a file with a finding and no
    edit, one that libcst runs passes over without an edit, and an edit that drops an import leave both unloaded; an
    edit that adds an import loads them."""
    script = (
        "import sys\n"
        "from torchmigrate.api import make_options\n"
        "from torchmigrate.python import engine\n"
        "from torchmigrate.python.engine import migrate_text\n"
        "runs = []\n"
        "real = engine._run_libcst\n"
        "engine._run_libcst = lambda *a, **k: runs.append(1) or real(*a, **k)\n"
        "passes = make_options('2.12', '1.8').passes()\n"
        "r = migrate_text('import torch\\nsd = torch.load(p)\\n', passes)\n"
        "assert r.findings and not r.edits, r\n"
        "r = migrate_text('import torch\\nx = torch.backends.cuda.preferred_linalg_library(*args)\\n', passes)\n"
        "assert runs and not r.edits, (runs, r)\n"
        "r = migrate_text('import torch\\nx = torch.cuda.amp.autocast()\\n', passes)\n"
        "assert r.edits, r\n"
        "print(sorted(m for m in sys.modules if m.startswith(('libcst.codemod', 'libcst.matchers'))))\n"
        "r = migrate_text('from torch.cuda.amp import GradScaler\\ns = GradScaler()\\n', passes)\n"
        "assert 'torch.amp.GradScaler' in r.code, r\n"
        "print('libcst.codemod' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.splitlines() == ["[]", "True"]


def test_call_rewriters_keep_a_multi_line_call_one_argument_per_line() -> None:
    # a rewriter that rebuilds the argument list from bare values (its own commas and whitespace gone) still gets the
    # call's layout back: one argument per line, trailing comma, `)` on its own line
    import libcst as cst

    from torchmigrate.python.helpers import fix_commas, make_kwarg
    from torchmigrate.python.transform import CallContext

    p = Pass(id="test-rebuild", release="2.5", safety=SAFE, title="t", evidence="test", triggers=("old_fn",), doc=DOC)

    @p.rewrites_calls("torch.old_fn")
    def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression:
        args = [cst.Arg(a.value) for a in call.args] + [make_kwarg("strict", cst.Name("True"))]
        return cst.Call(func=ctx.ref("torch.new_fn"), args=fix_commas(args))

    before = "import torch\n\ny = torch.old_fn(\n    model,\n    inputs,\n)\n"
    assert run(p, before) == "import torch\n\ny = torch.new_fn(\n    model,\n    inputs,\n    strict=True,\n)\n"
    flat = "import torch\n\ny = torch.old_fn(model, inputs)\n"
    assert run(p, flat) == "import torch\n\ny = torch.new_fn(model, inputs, strict=True)\n"


def test_a_real_pass_adds_its_keyword_on_a_line_of_its_own() -> None:
    from torchmigrate.api import migrate_source

    before = (
        "from torch.utils.checkpoint import checkpoint\n\n"
        "def forward(self, x):\n"
        "    return checkpoint(\n"
        "        self.block,\n"
        "        x,\n"
        "        preserve_rng_state=False\n"
        "    )\n"
    )
    result = migrate_source(before, to="2.13", select=["checkpoint-reentrant"])
    assert result.code == before.replace(
        "preserve_rng_state=False\n", "preserve_rng_state=False,\n        use_reentrant=True\n"
    )


FSDP_STRINGS = rename_pass(
    "test-fsdp-strings",
    "_composable",
    {
        "torch.distributed._composable.fsdp": "torch.distributed.fsdp",
        "torch.distributed._composable.old_mod": "torch.distributed.new_mod",
        "torch.distributed._composable.old_mod.X": "torch.distributed.new_mod.X",
        "torch.distributed._composable.fsdp.old_name": "torch.distributed.fsdp.new_name",
    },
)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # mock.patch targets, as a decorator and as a context manager, any alias of unittest.mock
        (
            'from unittest import mock\n\n@mock.patch("torch.distributed._composable.fsdp.FSDPModule")\ndef test(m):\n    pass\n',
            'from unittest import mock\n\n@mock.patch("torch.distributed.fsdp.FSDPModule")\ndef test(m):\n    pass\n',
        ),
        (
            "from unittest.mock import patch\n\nwith patch(target='torch.distributed._composable.fsdp.fully_shard'):\n    pass\n",
            "from unittest.mock import patch\n\nwith patch(target='torch.distributed.fsdp.fully_shard'):\n    pass\n",
        ),
        (
            'import importlib\nm = importlib.import_module("torch.distributed._composable.fsdp")\nn = __import__("torch.distributed._composable.fsdp")\n',
            'import importlib\nm = importlib.import_module("torch.distributed.fsdp")\nn = __import__("torch.distributed.fsdp")\n',
        ),
        (
            'def test(monkeypatch):\n    monkeypatch.setattr("torch.distributed._composable.fsdp.fully_shard", fake)\n',
            'def test(monkeypatch):\n    monkeypatch.setattr("torch.distributed.fsdp.fully_shard", fake)\n',
        ),
        # patch.object: the owner is renamed as an attribute chain, the attribute string follows a renamed name
        (
            'import torch\nfrom unittest import mock\n\nmock.patch.object(torch.distributed._composable.fsdp, "old_name")\n',
            'import torch\nfrom unittest import mock\n\nmock.patch.object(torch.distributed.fsdp, "new_name")\n',
        ),
        # look-alikes: another library's patch, a relative import_module, a path that is not renamed
        (
            'from mylib import patch\nimport importlib\n\npatch("torch.distributed._composable.fsdp.X")\n'
            'importlib.import_module(".fsdp", "torch.distributed._composable")\nmock_patch = "torch.distributed._composable.fsdp"\n',
            None,
        ),
    ],
)
def test_renamed_paths_spelled_in_strings_follow(before: str, after: str | None) -> None:
    expected = before if after is None else after
    assert run(FSDP_STRINGS, before) == expected
    assert run(FSDP_STRINGS, expected) == expected


@pytest.mark.parametrize(
    "code",
    [
        # the path is built at run time
        'from unittest.mock import patch\n\ndef test(name):\n    patch(f"torch.distributed._composable.fsdp.{name}")\n',
        # a module that moved, given as a patch target: patching `old_mod` of `torch.distributed._composable` is not
        # patching `new_mod` of `torch.distributed`: a person decides
        'from unittest.mock import patch\n\npatch("torch.distributed._composable.old_mod")\n',
    ],
)
def test_a_string_path_the_rename_cannot_follow_is_reported(code: str) -> None:
    result = migrate_text(code, [FSDP_STRINGS])
    assert result.code == code
    assert len(result.findings) == 1


def test_advice_names_the_api_of_the_target_not_one_deprecated_there() -> None:
    from torchmigrate.api import migrate_source

    code = "from torch.distributed.nn import functional as F\n\ndef f(x, pg):\n    return F._all_gather_base(x, group=pg)\n"
    (on_2_12,) = migrate_source(code, to="2.12").findings
    (on_2_13,) = migrate_source(code, to="2.13").findings
    assert "funcol.all_gather_tensor(" in on_2_12.message  # all_gather_single does not exist before 2.13
    assert "funcol.all_gather_single(" in on_2_13.message and "all_gather_tensor" not in on_2_13.message
    assert "functional._all_gather_base" in on_2_13.message  # the user's code is still named as it is
