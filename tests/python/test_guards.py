"""Version guards are exact: only checks of torch's own version (or of a torch API's presence) and torch import
fallbacks make code legacy on purpose; other packages' versions and arbitrary getattr conditions do not."""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, QualifiedNameProvider, QualifiedNameSource

from torchmigrate.api import migrate_source
from torchmigrate.python.guards import is_version_guard, is_version_guard_ast, is_version_guard_via_libcst, version_flags

HEADER = "import torch\nimport torch.distributed as dist\nimport accelerate\nfrom packaging import version\n"


def first_guard_candidate(code: str) -> tuple[bool, bool]:
    """(is the first if/try of ``HEADER + code`` a guard with import resolution, ... without it)."""
    module = cst.parse_module(HEADER + code)
    wrapper = MetadataWrapper(module)
    names = wrapper.resolve(QualifiedNameProvider)

    def qualname(node: cst.CSTNode) -> str | None:
        value = names.get(node, set())
        value = value() if callable(value) else value  # libcst resolves qualified names lazily
        found = {q.name for q in value if q.source is QualifiedNameSource.IMPORT}
        return found.pop() if len(found) == 1 else None

    node = next(s for s in wrapper.module.body if isinstance(s, (cst.If, cst.Try)))
    flags = version_flags(wrapper.module, qualname)
    return is_version_guard(node, qualname, flags), is_version_guard(node, None, version_flags(wrapper.module))


@pytest.mark.parametrize(
    "code",
    [
        "if torch.__version__ >= '2.4':\n    pass\n",
        "if version.parse(torch.__version__) < version.parse('2.0'):\n    pass\n",
        "if torch.version.cuda is not None:\n    pass\n",
        "if digit_version(TORCH_VERSION) >= digit_version('2.0.0'):\n    pass\n",
        "if torch_version() < (1, 8, 0):\n    pass\n",
        "if TORCH_GE_2_4:\n    pass\n",
        "if not _TORCH_GREATER_EQUAL_2_1:\n    pass\n",
        "if is_torch_version('>=', '2.4'):\n    pass\n",
        "if hasattr(torch, 'compile'):\n    pass\n",
        "if getattr(torch.distributed, 'all_gather_into_tensor', None) is not None:\n    pass\n",
        "NEW_API = version.parse(torch.__version__) >= version.parse('2.4')\nif NEW_API:\n    pass\n",
        "try:\n    from torch.distributed.tensor import DTensor\nexcept ImportError:\n    DTensor = None\n",
        "try:\n    from torch.amp import GradScaler\nexcept Exception:\n    GradScaler = None\n",
    ],
)
def test_torch_version_checks_are_guards(code: str) -> None:
    assert first_guard_candidate(code) == (True, True)


def test_an_alias_of_a_torch_module_is_resolved_through_the_imports() -> None:
    # `dist` is torch.distributed only because of `import torch.distributed as dist`
    assert first_guard_candidate("if hasattr(dist, 'all_gather_into_tensor'):\n    pass\n") == (True, False)


@pytest.mark.parametrize(
    "code",
    [
        "if version.parse(accelerate.__version__) >= version.parse('0.20'):\n    pass\n",
        "if getattr(config, 'gradient_checkpointing', False):\n    pass\n",
        "if getattr(torch.distributed, 'is_initialized')():\n    pass\n",  # no None default: not a presence test
        "if hasattr(self.hparams, 'wav_augment'):\n    pass\n",
        "if sys.version_info >= (3, 10):\n    pass\n",
        "if version.parse(torchvision.__version__) < version.parse('0.7'):\n    pass\n",
        "if torchvision_version < (0, 15):\n    pass\n",
        "if get_tqdm_version() < Version('4.49.0'):\n    pass\n",
        "if torch.cuda.is_available():\n    pass\n",
        "try:\n    import deepspeed\nexcept ImportError:\n    deepspeed = None\n",
        "try:\n    from torch.utils.checkpoint import checkpoint\n    run(checkpoint)\nexcept ValueError:\n    pass\n",
    ],
)
def test_other_conditions_are_not_guards(code: str) -> None:
    assert first_guard_candidate(code) == (False, False)


def test_code_under_another_packages_version_check_is_migrated() -> None:
    code = (
        "import accelerate\nimport torch\nfrom packaging import version\n\n"
        "if version.parse(accelerate.__version__) >= version.parse('0.20'):\n"
        "    model.load_state_dict(torch.load(path))\n"
    )
    result = migrate_source(code, to="2.13", select=["torch-load-weights-only"])
    assert "torch.load(path, weights_only=True)" in result.code


def test_code_under_a_getattr_config_check_is_migrated_and_a_torch_check_is_not() -> None:
    code = (
        "import torch\nfrom torch.utils.checkpoint import checkpoint\n\n"
        "def forward(self, x):\n"
        "    if getattr(self.config, 'use_checkpoint', False):\n"
        "        return checkpoint(self.block, x)\n"
        "    if hasattr(torch.utils.checkpoint, 'checkpoint_sequential'):\n"
        "        return checkpoint(self.other, x)\n"
        "    return x\n"
    )
    result = migrate_source(code, to="2.13", select=["checkpoint-reentrant"])
    assert "checkpoint(self.block, x, use_reentrant=True)" in result.code
    assert "checkpoint(self.other, x)\n" in result.code


@pytest.mark.parametrize(
    "code",
    [
        # the import is in a fallback block: its name is not renamed in the code that uses it (NameError otherwise)
        "try:\n    from torch.distributed.distributed_c10d import reduce_scatter_tensor\n"
        "except ImportError:\n    from torch.distributed.distributed_c10d import _reduce_scatter_base\n\n"
        "    reduce_scatter_tensor = _reduce_scatter_base\n\nreduce_scatter_tensor(out, inp)\n",
        # the name is also used under a version check, which must keep working: the import stays
        "import torch\nfrom torch.distributed._functional_collectives import all_gather_tensor\n\n"
        "if torch.__version__ < '2.13':\n    y = all_gather_tensor(a, 0, g)\nz = all_gather_tensor(c, 0, g)\n",
    ],
)
def test_a_guarded_import_or_use_keeps_the_name_it_binds(code: str) -> None:
    result = migrate_source(code, to="2.13", select=["single-collectives"])
    assert result.error is None
    assert result.code == code


def test_a_name_bound_by_a_guarded_import_is_left_alone_where_it_is_used() -> None:
    # rewriting `autocast()` would leave the fallback block's import unused (pyflakes F401): the block chose the name
    code = (
        "try:\n    from torch.cuda.amp import autocast\nexcept ImportError:\n    autocast = None\n\n"
        "def step(model, x):\n    with autocast():\n        return model(x)\n"
    )
    result = migrate_source(code, to="2.13", select=["amp-namespace"])
    assert result.code == code


def test_a_bare_import_torch_fallback_is_an_availability_check_not_a_version_gate() -> None:
    code = (
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n\n"
        "def restore(model, path):\n    model.load_state_dict(torch.load(path))\n"
    )
    result = migrate_source(code, to="2.13", select=["torch-load-weights-only"])
    assert "torch.load(path, weights_only=True)" in result.code


GUARD_CORNERS = [
    "if f(torch_version=1):\n    pass\n",  # a keyword name alone: the libcst rule is not asked
    "if f(torch_version=torch.x):\n    pass\n",  # libcst's Name nodes include keyword names ...
    "if (lambda torch_ver: torch_ver)(v):\n    pass\n",  # ... and parameters
    "if (lambda torch_ver: 0)(v):\n    pass\n",
    "if any(TORCH_2 for TORCH_2 in xs):\n    pass\n",
    "if getattr(torch.cuda, 'graphs', default=None):\n    pass\n",  # a keyword is the third argument too
    "if getattr(torch, *names):\n    pass\n",
    "if hasattr(*torch_mods):\n    pass\n",
    "if hasattr(torch.nn.functional, 'scaled_dot_product_attention') and x:\n    pass\n",
    "if 'all_gather' in dir(torch.distributed):\n    pass\n",
    "if 'all_gather' in dir(torch.distributed, x):\n    pass\n",
    "if x.torch.__version__:\n    pass\n",
    "if (torch).version.hip:\n    pass\n",
    "if f().torch_version:\n    pass\n",
    "if f'{torch.__version__:>{width}}':\n    pass\n",
    "y = a if torch.__version__ > '2' else b\n",
    "y = a if hasattr(th, 'compile') else b\n",
    "try:\n    import torch.distributed\nexcept (ValueError, AttributeError):\n    pass\n",
    "try:\n    import torch\n    import torchvision\nexcept ImportError:\n    pass\n",
    "try:\n    from torchvision.io import read_video; x = 1\nexcept ImportError:\n    pass\n",
    "try:\n    from .torch import thing\nexcept ImportError:\n    pass\n",
    "try:\n    from torchaudio import info\n    pass\nexcept:\n    pass\n",
    "try:\n    from torch.cuda.amp import autocast\n    if x:\n        y = 1\nexcept Exception:\n    pass\n",
    "try:\n    from torch.cuda.amp import autocast\nexcept mod.ImportError:\n    pass\n",
    "try:\n    from torch.cuda.amp import autocast\nexcept* ImportError:\n    pass\n",
    "try:\n    from torch.cuda.amp import autocast\nfinally:\n    pass\n",
]


def _statements(code: str) -> list[ast.AST]:
    return [n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.If, ast.IfExp, ast.Try, ast.TryStar))]


def test_the_ast_rule_is_the_libcst_rule_on_examples_and_corners() -> None:
    """``is_version_guard_ast`` (written on the stdlib ast) answers as the libcst rule does for the statement as
    ``ast.unparse`` spells it; on the real trees of the benchmark the two agreed on all 175,549 if/try statements."""
    from torchmigrate.core.registry import all_passes

    codes = [HEADER + c for c in GUARD_CORNERS]
    codes += [e.before for p in all_passes() for e in p.examples if e.before]
    seen = 0
    guards = 0
    for code in codes:
        try:
            statements = _statements(code)
        except SyntaxError:
            continue
        for node in statements:
            seen += 1
            answer = is_version_guard_ast(node)
            guards += answer
            assert answer == is_version_guard_via_libcst(node), ast.unparse(node)
    assert seen > 50 and guards > 15  # the comparison saw guards and other statements
