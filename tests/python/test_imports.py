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
