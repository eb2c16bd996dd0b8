"""Imports a pass adds or renames go where isort's and ruff's order puts them among their neighbours (no new I001)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.imports import import_lines, place_imports
from torchmigrate.python.transform import CallContext

DOC = "## What it does\nx\n## Fix safety\ny"

ADDS = Pass(id="test-adds-import", release="2.5", safety=SAFE, title="t", evidence="test", triggers=("old_autocast",), doc=DOC)


@ADDS.rewrites_calls("mylib.old_autocast")
def _rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression:
    return call.with_changes(func=ctx.ref("torch.amp.autocast"))


def run(p: Pass, code: str) -> str:
    result = migrate_text(code, [p])
    assert result.error is None, result.error
    return result.code


def test_an_added_import_joins_the_torch_section_at_its_sorted_place() -> None:
    before = (
        "import os\nimport sys\n\nimport numpy as np\nfrom torch import nn\n"
        "from torch.utils.data import DataLoader\n\nfrom mylib import old_autocast\nfrom mylib import other\n\n"
        "with old_autocast('cuda'):\n    pass\n"
    )
    after = (
        "import os\nimport sys\n\nimport numpy as np\nfrom torch import nn\nfrom torch.amp import autocast\n"
        "from torch.utils.data import DataLoader\n\nfrom mylib import other\n\n"
        "with autocast('cuda'):\n    pass\n"
    )
    assert run(ADDS, before) == after


def test_an_import_added_to_a_force_sort_within_sections_block_sorts_by_module() -> None:
    before = (
        "import os\n\nfrom torch import nn\nimport torch.distributed as dist\nfrom torch.utils.data import DataLoader\n"
        "\nfrom mylib import old_autocast, other\n\nwith old_autocast('cuda'):\n    pass\n"
    )
    out = run(ADDS, before)
    assert out.startswith("import os\n\nfrom torch import nn\nfrom torch.amp import autocast\nimport torch.distributed as dist\n")


def test_a_section_that_was_not_sorted_is_left_in_its_order() -> None:
    before = "from torch import nn\nimport os\nfrom mylib import old_autocast, other\n\nwith old_autocast('cuda'):\n    pass\n"
    out = run(ADDS, before)
    assert out.startswith("from torch import nn\nimport os\nfrom mylib import other\nfrom torch.amp import autocast\n")


def test_a_renamed_function_local_import_moves_to_its_sorted_place() -> None:
    rename = Pass(
        id="test-fsdp-rename",
        release="2.6",
        safety=SAFE,
        title="t",
        evidence="test",
        triggers=("_composable",),
        renames={"torch.distributed._composable.fsdp.fully_shard.fully_shard": "torch.distributed.fsdp.fully_shard"},
        doc=DOC,
    )
    before = (
        "def parallelize(model):\n"
        "    from torch.distributed._composable.fsdp.fully_shard import fully_shard\n"
        "    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n"
        "\n"
        "    return fully_shard(checkpoint_wrapper(model))\n"
    )
    after = (
        "def parallelize(model):\n"
        "    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n"
        "    from torch.distributed.fsdp import fully_shard\n"
        "\n"
        "    return fully_shard(checkpoint_wrapper(model))\n"
    )
    assert run(rename, before) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # comments above a section stay above it; a comment above the touched import goes with it
        (
            "# third party\nimport torch\nfrom torch.zzz import b\n# why we need it\nfrom torch.aaa import a\n",
            "# third party\nimport torch\n# why we need it\nfrom torch.aaa import a\nfrom torch.zzz import b\n",
        ),
        # the touched import was first of its section: the section's blank line stays at the section's start
        (
            "import os\n\nfrom torch.zzz import b\nfrom torch.aaa import a\n",
            "import os\n\nfrom torch.aaa import a\nfrom torch.zzz import b\n",
        ),
    ],
)
def test_place_imports_moves_only_what_the_pass_touched(before: str, after: str) -> None:
    old = cst.parse_module(before.replace("torch.aaa", "torch.old"))
    new = cst.parse_module(before)
    assert place_imports(new, import_lines(old)).code == after
    untouched = cst.parse_module(before)
    assert place_imports(untouched, import_lines(untouched)).code == before


def _fsdp(text: str) -> str:
    from torchmigrate.core.fixes import APPLY_ALL
    from torchmigrate.core.registry import get_pass
    from torchmigrate.python.engine import migrate_text

    return migrate_text(textwrap.dedent(text), [get_pass("fsdp2-public")], gate=APPLY_ALL).code


def test_a_renamed_from_import_merges_into_the_line_of_the_same_module() -> None:
    """isort, ruff and usort merge two ``from m import`` lines of one module: a rename that makes a second one merges
    it, in the order the file's imports follow (isort's by type here; usort's case-insensitive below)."""
    before = """\
        from torch.distributed._composable.fsdp import fully_shard, CPUOffloadPolicy
        from torch.distributed.fsdp import FSDPModule, ShardingStrategy
        """
    assert _fsdp(before) == "from torch.distributed.fsdp import CPUOffloadPolicy, FSDPModule, ShardingStrategy, fully_shard\n"
    usort = """\
        from torch.distributed._composable.fsdp import fully_shard
        from torch.distributed.fsdp import FSDPModule, ShardingStrategy
        from torch.nn.attention import sdpa_kernel, SDPBackend
        """
    assert _fsdp(usort).splitlines()[0] == "from torch.distributed.fsdp import FSDPModule, fully_shard, ShardingStrategy"


def test_a_merge_keeps_a_parenthesized_list_one_name_per_line() -> None:
    before = """\
        from torch.distributed._composable.fsdp import fully_shard
        from torch.distributed.fsdp import (
            FSDPModule,
            ShardingStrategy,
        )
        """
    after = "from torch.distributed.fsdp import (\n    FSDPModule,\n    ShardingStrategy,\n    fully_shard,\n)\n"
    assert _fsdp(before) == after


def test_lines_with_comments_are_not_merged() -> None:
    before = """\
        from torch.distributed._composable.fsdp import fully_shard  # the new API
        from torch.distributed.fsdp import FSDPModule
        """
    out = _fsdp(before)
    assert out.count("from torch.distributed.fsdp import") == 2 and "# the new API" in out


_REMOVAL_CASES = (
    "import torch\nimport torch.nn as nn\nfrom torch.cuda.amp import autocast as ac, GradScaler\n"
    "from . import sibling\nfrom .. import parent\nfrom os.path import *\n\n"
    "def f(x, nn=None):\n    import numpy as np\n    with ac():\n        y = torch.cuda.amp.autocast(np.ones(3))\n"
    "    return GradScaler(), nn, sibling.go(parent), torch.nn.functional.relu(x)\n\n"
    "class C:\n    scaler = GradScaler\n\n    def m(self):\n        return [torch.x for torch in range(3)], self.scaler\n",
    "try:\n    from torch.amp import autocast\nexcept ImportError:\n    from torch.cuda.amp import autocast\n\n"
    "with autocast('cuda'):\n    pass\n",
)


_REMOVED_KINDS = (cst.Import, cst.ImportFrom, cst.Name, cst.Attribute, cst.Call, cst.SimpleStatementLine, cst.With)
"""What passes drop the imports of: statements, calls, names and attributes (each compared on its own)."""
_STATEMENTS_AND_CALLS = (cst.Import, cst.ImportFrom, cst.Call, cst.SimpleStatementLine, cst.With)
"""On the pass examples (libcst's visitor inspects its members on each use: every name would take seconds)."""


@pytest.mark.parametrize("package", [None, "pkg.sub"])
def test_import_removals_are_scheduled_as_libcsts_remove_imports_visitor_does(package: str | None) -> None:
    # torchmigrate.python.codemod schedules import removals without libcst's codemod package; for every node of real
    # and tricky code (aliases, relative and star imports, shadowing, nested scopes, a try/except fallback) the
    # schedule, or the error, is what RemoveImportsVisitor.remove_unused_import_by_node gives.
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor
    from libcst.metadata import MetadataWrapper

    from torchmigrate.core.registry import all_passes
    from torchmigrate.python.codemod import REMOVE_IMPORTS_KEY, PassContext, remove_unused_import_by_node

    def imports(code: str) -> set[str]:
        return {line.strip() for line in code.splitlines() if line.lstrip().startswith(("import ", "from "))}

    # the examples whose edit removes an import
    examples = {e.before for p in all_passes() for e in p.examples if e.after is not None and imports(e.before) - imports(e.after)}
    texts = [(text, _REMOVED_KINDS) for text in _REMOVAL_CASES]
    if package is None:
        texts += [(text, _STATEMENTS_AND_CALLS) for text in sorted(examples)]
    compared = 0
    for text, kinds in texts:
        try:
            wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
        except cst.ParserSyntaxError:
            continue
        nodes: list[cst.CSTNode] = []
        stack: list[cst.CSTNode] = [wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, kinds):
                nodes.append(node)
            stack.extend(node.children)

        def outcome(run: object, context: object, node: cst.CSTNode) -> object:
            try:
                run(context, node)  # type: ignore[operator]
            except ValueError as exc:
                return ("error", str(exc))
            return context.scratch.get(REMOVE_IMPORTS_KEY)  # type: ignore[attr-defined]

        for node in nodes:
            theirs = outcome(
                RemoveImportsVisitor.remove_unused_import_by_node,
                CodemodContext(wrapper=wrapper, full_package_name=package),
                node,
            )
            ours = outcome(remove_unused_import_by_node, PassContext(wrapper=wrapper, full_package_name=package), node)
            assert ours == theirs, (cst.Module([]).code_for_node(node), ours, theirs)
            compared += bool(theirs)
    assert compared > (200 if package is None else 20), compared


# --- import removals without the scope analysis ---------------------------------------------------------------------


def _schedules(text: str, kinds: tuple[type[cst.CSTNode], ...] = (cst.Call, cst.Attribute, cst.Name)) -> int:
    """Every node of ``kinds`` in ``text``: the scope-free schedule (where it answers) against libcst's. Returns
    the number of nodes answered scope-free (each compared); a mismatch fails the test."""
    from libcst.metadata import MetadataWrapper

    from torchmigrate.python.codemod import (
        REMOVE_IMPORTS_KEY,
        PassContext,
        module_imports,
        remove_unused_import_by_node,
        schedule_from_module_imports,
    )

    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    table = module_imports(module)
    answered = 0
    for node, ancestors in _walk(module):
        if not isinstance(node, kinds):
            continue
        fast = PassContext(wrapper=wrapper)
        try:
            took = schedule_from_module_imports(fast, node, ancestors, table)
        except ValueError as exc:
            took, fast_error = True, str(exc)
        else:
            fast_error = None
        if not took:
            continue
        slow = PassContext(wrapper=wrapper)
        try:
            remove_unused_import_by_node(slow, node)
        except ValueError as exc:
            slow_error: str | None = str(exc)
        else:
            slow_error = None
        answered += 1
        # (a relative import without a package is an error either way; what was scheduled before it does not count)
        got = fast_error or set(fast.scratch.get(REMOVE_IMPORTS_KEY, []))
        expected = slow_error or set(slow.scratch.get(REMOVE_IMPORTS_KEY, []))
        assert got == expected, cst.Module([]).code_for_node(node)
    return answered


_SCOPE_FREE_CASES = {
    # the module's imports answer: aliases, dotted imports, relative imports, a try/except fallback, attribute names
    # and keyword names that libcst gives no scope
    "plain": (
        "import torch\nimport torch.nn as nn\nimport torch.cuda.amp\nfrom torch.autograd import Variable, grad as g\n"
        "from . import sibling\nfrom os.path import *\ntry:\n    from torch.amp import autocast\nexcept ImportError:\n"
        "    from torch.cuda.amp import autocast\n\n"
        "def f(x):\n    y = Variable(x, requires_grad=True)\n    z = torch.cuda.amp.autocast(nn.Linear(2, 2))\n"
        "    return g(y, Variable=1), sibling.go(x.Variable), autocast(torch.nn.functional.relu(x)[0:1])\n"
    ),
    # an import inside a function binds a name the node uses: libcst's scope analysis decides
    "nested": "import torch\n\ndef f():\n    import torch\n    return torch.ones(1)\n\ny = torch.zeros(1)\n",
    # typing.NewType's first argument is skipped by libcst's scope visitor
    "typing": "from typing import NewType as NT\nimport torch\n\nT = NT(torch.x, int)\nU = typing.NewType(torch.y, int)\n",
    # a lambda has a scope of its own
    "lambda": "import torch\n\nf = lambda torch: torch.ones(1)\ng = torch.ones(2)\n",
}


@pytest.mark.parametrize("name", sorted(_SCOPE_FREE_CASES))
def test_the_scope_free_schedule_is_libcsts_where_it_answers(name: str) -> None:
    assert _schedules(_SCOPE_FREE_CASES[name]) > 0


def test_the_scope_free_schedule_leaves_to_libcst_what_a_scope_could_change() -> None:
    from libcst.metadata import MetadataWrapper

    from torchmigrate.python.codemod import PassContext, module_imports, schedule_from_module_imports

    def takes(text: str, expression: str) -> bool:
        module = cst.parse_module(text)
        found = [(n, a) for n, a in _walk(module) if cst.Module([]).code_for_node(n) == expression]
        context = PassContext(wrapper=MetadataWrapper(module, unsafe_skip_copy=True))
        node, ancestors = found[-1]
        return schedule_from_module_imports(context, node, ancestors, module_imports(module))

    nested = _SCOPE_FREE_CASES["nested"]
    assert not takes(nested, "torch.zeros(1)")  # the function's own `import torch` could answer for a name `torch`
    assert takes("import torch\n\ndef f():\n    import numpy\n\ny = torch.zeros(1)\n", "torch.zeros(1)")
    assert not takes(_SCOPE_FREE_CASES["typing"], "NT(torch.x, int)")  # libcst skips NewType's first argument
    assert not takes(_SCOPE_FREE_CASES["typing"], "torch.x")
    assert not takes(_SCOPE_FREE_CASES["lambda"], "lambda torch: torch.ones(1)")  # not a plain expression
    assert takes(_SCOPE_FREE_CASES["lambda"], "torch.ones(2)")
    assert not takes("import torch.nn as nn\n", "nn")  # in an import statement: no scope
    assert not takes("import torch\n\nx.Variable(1)\n", "Variable")  # an attribute's name: no scope
    assert not takes("import torch\n\nf(torch=1)\n", "torch")  # a keyword argument's name: no scope


def _walk(module: cst.CSTNode) -> list[tuple[cst.CSTNode, list[cst.CSTNode]]]:
    out: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = []
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(module, [])]
    while stack:
        node, ancestors = stack.pop()
        out.append((node, ancestors))
        stack.extend((child, [*ancestors, node]) for child in node.children)
    return out


def test_the_scope_free_schedule_is_libcsts_on_real_files() -> None:
    torch = pytest.importorskip("torch")
    from pathlib import Path

    root = Path(torch.__file__).parent
    files = sorted(p for p in root.rglob("*.py") if 2_000 < p.stat().st_size < 40_000)[::60]
    answered = sum(_schedules(path.read_text(encoding="utf-8"), (cst.Call,)) for path in files)
    assert len(files) > 15 and answered > 500


def test_passes_drop_imports_without_the_scope_analysis_and_as_libcst_would() -> None:
    # Every removal a pass schedules on its examples, with the check on: where the scope-free schedule was taken, it
    # is compared with libcst's (on a wrapper of its own, so the check does not switch the scope-free path off).
    from torchmigrate.core.fixes import APPLY_ALL
    from torchmigrate.core.registry import all_passes
    from torchmigrate.python.transform import CHECK_IMPORT_SCHEDULE

    CHECK_IMPORT_SCHEDULE.enabled, CHECK_IMPORT_SCHEDULE.fast, CHECK_IMPORT_SCHEDULE.mismatches = True, 0, []
    try:
        for pass_ in all_passes():
            if pass_.files != "python":
                continue
            for example in pass_.examples:
                migrate_text(example.before, [pass_], gate=APPLY_ALL, precheck=False)
        assert CHECK_IMPORT_SCHEDULE.mismatches == []
        assert CHECK_IMPORT_SCHEDULE.fast > 50
    finally:
        CHECK_IMPORT_SCHEDULE.enabled = False
