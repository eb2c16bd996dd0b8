"""`torch.distributed.launch` passes `--local-rank` since PyTorch 2.0: a parser that knows only `--local_rank` exits.

## What it does
Adds the dashed spelling in front of the underscored one in argparse parsers:
`parser.add_argument("--local_rank", type=int, default=0)` → `parser.add_argument("--local-rank", "--local_rank",
type=int, default=0)`. Only where the parser is visibly argparse — a name bound once, in its scope, to
`argparse.ArgumentParser(...)` (any import form), to `.add_argument_group(...)` / `.add_mutually_exclusive_group(...)`
of such a parser, to `.add_parser(...)` of its `.add_subparsers()`, or a parameter annotated `argparse.ArgumentParser`
— and only where the file does not already spell `--local-rank` anywhere (a parser that accepts it twice raises
`argparse.ArgumentError`). Any other `x.add_argument("--local_rank", ...)` (a parser passed in, a wrapper of another
library) gets a finding instead.

## Why
PyTorch 2.0 changed the launcher: `python -m torch.distributed.launch` now passes `--local-rank=<rank>` to the script
(torch 2.13.0 `torch/distributed/launch.py`, "versionchanged 2.0.0": "If only `--local_rank` is provided, the launcher
will trigger an error: error: unrecognized arguments: --local-rank=<rank>"; reported e.g. in
huggingface/pytorch-image-models#1724). PyTorch's documentation recommends exactly this fix:
`parser.add_argument("--local-rank", "--local_rank", type=int)`. `torchrun` passes no flag at all (it sets
`LOCAL_RANK`), so the edit is harmless there. Kind: the underscored-only parser breaks under every launcher from 2.0
on, whatever release the code was written for, so the pass runs for every target from 2.0 (like a deprecation).

## Fix safety
Safe: argparse takes `dest` from the first long option with dashes made underscores, so `"--local-rank",
"--local_rank"` still stores `args.local_rank` (an explicit `dest=` is kept as it is), and both spellings parse
(checked with Python's argparse). The edit works with launchers of every release (`since` 1.8). Only the help text
changes (it shows `--local-rank`), and an abbreviation the parser accepted before, such as `--local=0`, becomes
ambiguous between the two spellings.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import ScopeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import child_statements, dotted_name
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

PARSERS = frozenset({"argparse.ArgumentParser"})
GROUP_METHODS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
OLD, NEW = "--local_rank", "--local-rank"

PASS = Pass(
    id="local-rank-argument",
    release="2.0",
    since="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title='add_argument("--local_rank") → add_argument("--local-rank", "--local_rank")',
    evidence=(
        "torch 2.13.0 torch/distributed/launch.py and run.py (versionchanged 2.0.0: the launcher passes "
        "--local-rank=<rank>; both spellings recommended); huggingface/pytorch-image-models#1724; "
        "since 1.8: an argparse option with two spellings works on every Python and torch release"
    ),
    # every site spells the option; files that already spell the dashed one keep those statements in the slice
    triggers=("local_rank", "local-rank"),
    examples=[
        Example(
            title="a parser made in the function",
            before="""
                import argparse

                def parse_opt():
                    parser = argparse.ArgumentParser()
                    parser.add_argument("--local_rank", type=int, default=-1, help="Automatic DDP Multi-GPU argument")
                    return parser.parse_args()
            """,
            after="""
                import argparse

                def parse_opt():
                    parser = argparse.ArgumentParser()
                    parser.add_argument("--local-rank", "--local_rank", type=int, default=-1, help="Automatic DDP Multi-GPU argument")
                    return parser.parse_args()
            """,
        ),
        Example(
            title="a module-level parser, from-import, single quotes, an argument group",
            before="""
                from argparse import ArgumentParser

                parser = ArgumentParser(description="ImageNet")
                dist = parser.add_argument_group("distributed")
                dist.add_argument('--local_rank', default=0, type=int)
            """,
            after="""
                from argparse import ArgumentParser

                parser = ArgumentParser(description="ImageNet")
                dist = parser.add_argument_group("distributed")
                dist.add_argument('--local-rank', '--local_rank', default=0, type=int)
            """,
        ),
        Example(
            title="an annotated parameter; a sub-command parser; an explicit dest is kept",
            before="""
                import argparse

                def add_args(parser: argparse.ArgumentParser) -> None:
                    parser.add_argument("-r", "--local_rank", dest="rank", type=int)

                sub = argparse.ArgumentParser().add_subparsers()
                train = sub.add_parser("train")
                train.add_argument("--local_rank", type=int)
            """,
            after="""
                import argparse

                def add_args(parser: argparse.ArgumentParser) -> None:
                    parser.add_argument("-r", "--local-rank", "--local_rank", dest="rank", type=int)

                sub = argparse.ArgumentParser().add_subparsers()
                train = sub.add_parser("train")
                train.add_argument("--local-rank", "--local_rank", type=int)
            """,
        ),
        Example(
            title="a parser of unknown kind: finding",
            before="""
                def add_distributed_args(parser):
                    parser.add_argument("--local_rank", type=int, default=0)
            """,
            findings=1,
        ),
        Unchanged(
            """
            import argparse

            parser = argparse.ArgumentParser()
            parser.add_argument("--local_rank", "--local-rank", type=int, default=0)
            other = argparse.ArgumentParser()
            other.add_argument("--local-rank", type=int)
            other.add_argument("--local_rank", type=int)
            local_rank = int(os.environ["LOCAL_RANK"])
            print("--local_rank")
            """,
            title="already accepting --local-rank; other uses of the words",
        ),
    ],
)


def _option_strings(call: cst.Call) -> list[tuple[int, str]]:
    """(index, value) of the leading positional string arguments: argparse's option strings."""
    found = []
    for index, a in enumerate(call.args):
        if a.keyword is not None or a.star or not isinstance(a.value, cst.SimpleString):
            break
        value = a.value.evaluated_value
        if not isinstance(value, str):
            break
        found.append((index, value))
    return found


class _DashedSpelled(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if NEW in node.value:
            self.found = True


_PLAIN_STRING = re.compile(r"""[rRuU]?(['"])[^'"\\\n]*\1\Z""")


def detect(file: AstFile) -> Iterator[Site]:
    """A bound on the calls the transformer edits or reports: ``x.add_argument(...)`` whose leading string arguments
    spell ``--local_rank`` and not ``--local-rank`` (the file-wide ``--local-rank`` check and the parser's type are
    the transformer's to decide)."""
    for node in file.walk():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            spelled: list[str] = []
            unsure = False
            for arg in node.args:
                if not isinstance(arg, ast.Constant) or not isinstance(arg.value, str):
                    break
                if not _PLAIN_STRING.match(file.source(arg)):  # `"a" "b"` is one ast string, two libcst ones
                    unsure = True
                    break
                spelled.append(arg.value)
            if (OLD in spelled and NEW not in spelled) or (unsure and "local" in file.source(node)):
                yield file.edit(node)


PASS.analyse = analyser(PASS.id, detect)


@PASS.uses
class LocalRank(PassTransformer):
    def visit_Module(self, node: cst.Module) -> None:
        finder = _DashedSpelled()
        node.visit(finder)
        self._dashed = finder.found

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "add_argument" or not self.allowed(original_node):
            return updated_node
        options = _option_strings(original_node)
        spelled = [value for _, value in options]
        if OLD not in spelled or NEW in spelled or self._dashed:
            return updated_node
        if not self._parser(func.value, 0):
            self.finding(
                original_node,
                "add_argument('--local_rank'): torch.distributed.launch passes --local-rank since 2.0; if this is an "
                "argparse parser, add '--local-rank' before '--local_rank' (or read os.environ['LOCAL_RANK'])",
            )
            return updated_node
        index = next(i for i, value in options if value == OLD)
        old = original_node.args[index]
        assert isinstance(old.value, cst.SimpleString)
        quote = old.value.quote
        dashed = cst.Arg(
            cst.SimpleString(f"{old.value.prefix}{quote}{NEW}{quote}"),
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
        )
        self.edited(original_node, "add_argument: added '--local-rank' (what torch.distributed.launch passes since 2.0)")
        args = list(updated_node.args)
        args.insert(index, dashed)
        return updated_node.with_changes(args=args)

    def _parser(self, node: cst.BaseExpression, depth: int) -> bool:
        """``node`` is visibly an argparse parser or argument group."""
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            callee = node.func
            if isinstance(callee, cst.Name | cst.Attribute) and dotted_name(callee) and self.qualname(callee) in PARSERS:
                return True
            if isinstance(callee, cst.Attribute) and callee.attr.value in GROUP_METHODS:
                return self._parser(callee.value, depth + 1)
            if isinstance(callee, cst.Attribute) and callee.attr.value == "add_parser":
                return self._subparsers(callee.value, depth + 1)
            return False
        if isinstance(node, cst.Name):
            value = self._bound_to(node)
            if isinstance(value, cst.Annotation):
                kind = value.annotation
                return isinstance(kind, cst.Name | cst.Attribute) and self.qualname(kind) in PARSERS
            return value is not None and self._parser(value, depth + 1)
        return False

    def _subparsers(self, node: cst.BaseExpression, depth: int) -> bool:
        if isinstance(node, cst.Name):
            value = self._bound_to(node)
            return isinstance(value, cst.BaseExpression) and self._subparsers(value, depth + 1)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "add_subparsers":
            return self._parser(node.func.value, depth + 1)
        return False

    def _bound_to(self, name: cst.Name) -> cst.BaseExpression | cst.Annotation | None:
        """What the single binding of ``name`` in its scope binds it to: the assigned value, or the annotation of a
        parameter; ``None`` when the name is bound otherwise or more than once."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) != 1:
            return None
        target = getattr(assignments[0], "node", None)
        if isinstance(target, cst.Param):
            return target.annotation
        if not isinstance(target, cst.Name):
            return None
        root = getattr(assignments[0].scope, "node", None) or self.context.module  # the module scope has no node
        return None if root is None else _assigned_value(root, target)


def _assigned_value(root: cst.CSTNode, target: cst.Name) -> cst.BaseExpression | None:
    """The value ``target`` is assigned, where it is the one target of an ``=`` or the target of an annotated
    assignment among the statements under ``root`` (its scope's node), else ``None``. A walk of statements only: an
    assignment is never inside an expression, and libcst's parent table would be a visit of the whole tree."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Assign):
            if any(t.target is target for t in node.targets):
                return node.value if len(node.targets) == 1 else None
        elif isinstance(node, cst.AnnAssign):
            if node.target is target:
                return node.value
        else:
            stack.extend(child_statements(node))
    return None
