"""Functional collectives take the `ProcessGroup` itself from PyTorch 2.12: pass `pg`, not `pg.group_name`.

## What it does
In the functional collectives (`torch.distributed._functional_collectives`, usually imported as `funcol`) and in the
raw `torch.ops._c10d_functional` ops, replaces a group argument written as `pg.group_name` by `pg`, by keyword or
by position:

- `funcol.all_reduce(t, "sum", group=pg.group_name)` → `funcol.all_reduce(t, "sum", group=pg)`
- `funcol.all_gather_tensor(t, 0, mesh.get_group(0).group_name)` → `funcol.all_gather_tensor(t, 0, mesh.get_group(0))`
- `torch.ops._c10d_functional.all_reduce(t, "sum", pg.group_name)` → `torch.ops._c10d_functional.all_reduce(t, "sum", pg)`

A local variable assigned once from `pg.group_name` (`name = pg.group_name`) and used only as the group argument of
these calls is replaced by `pg` at every use, and its assignment, now dead, is removed (comment lines above it
stay; an assignment with a trailing comment is kept). This is done only when `pg` is a plain name bound once in its
scope, so it is certain to be the same object at every use. What counts as evidence that `pg` is a process group:
see Fix safety.

Reported as findings, not rewritten:
- a string literal as the group (`group="0"`): the name → group resolver (`_resolve_process_group`) is private, so
  the tool cannot know which `ProcessGroup` the string names — pass the group object you created;
- a ranks list (`group=[0, 1]`): deprecated, it warns `FutureWarning` ("ranks + tag … deprecated"). The fix is
  `dist.new_group([0, 1])`, but `new_group` is itself a collective that every rank must call in the same order, so it
  cannot be inserted at the call site: create the group once at set-up and pass it.

Group positions checked on torch 2.13.0 (`inspect.signature`): `group` is argument 2 of `all_reduce`, `broadcast`,
`all_gather_tensor`/`all_gather_single`, `all_reduce_coalesced`; argument 3 of `reduce_scatter_tensor`/
`reduce_scatter_single`, `all_to_all_single`, `reduce_scatter_tensor_coalesced`; argument 1 of
`all_gather_into_tensor_coalesced`/`all_gather_single_coalesced` (and the `_autograd` variants). In the op schemas
the last positional argument, `Any group_name`, is the group. `isend`, `irecv` and `batch_p2p_ops` still declare
`str group_name` in 2.13 and are left alone.

## Why
PyTorch 2.12 changed the `_c10d_functional` op schemas from `str group_name` to `Any group_name`, so callers pass a
`ProcessGroup` directly and skip the round trip through the group registry (pytorch/pytorch#172795; its motivation
is compiling on one rank, where a group must stay an object instead of becoming a constant string in the graph).

## Fix safety
Safe. The Python functional collectives resolve a `ProcessGroup` and its name to the same group, and the ops accept
either from 2.12: both forms give identical results (checked on a 1-rank gloo group for all 17 functions and 13 ops
above). But `.group_name` is also an attribute of other objects — an autograd `ctx` that saved the name, a config —
so `x.group_name` is rewritten only when `x` is evidently a `ProcessGroup`: a call that returns one
(`mesh.get_group(…)`, `dist.new_group(…)`), `dist.group.WORLD`, a name annotated `ProcessGroup` or assigned from such
a call, or a name that says so (`pg`, `tp_pg`, `group`, `process_group`, `self.dp_group`). Anything else is left
as it is (a string name still works in 2.13, without a warning). The raw ops accept a `ProcessGroup` only from 2.12,
which is why this pass belongs to 2.12.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import Assignment, ParentNodeProvider, ScopeProvider

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.guards import is_version_guard
from torchmigrate.python.lastfile import keeps
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer, Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    id="group-names-to-process-groups",
    follows_uses="all",  # a process group's uses
    release="2.12",
    since="2.12",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="functional collectives: group=pg.group_name → group=pg",
    evidence=(
        "pytorch/pytorch#172795 (2.12: _c10d_functional op schemas take `Any group_name`, a ProcessGroup)"
        "; since 2.12: the _c10d_functional ops take a ProcessGroup from 2.12 (#172795)"
    ),
    triggers=("group_name", "_functional_collectives", "_c10d_functional"),
    examples=[
        Example(
            title="keyword, funcol alias",
            before="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg):
                    return funcol.all_reduce(t, "sum", group=pg.group_name)
            """,
            after="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg):
                    return funcol.all_reduce(t, "sum", group=pg)
            """,
        ),
        Example(
            title="positional group, from-import, attribute chain and call",
            before="""
                from torch.distributed._functional_collectives import all_gather_tensor, reduce_scatter_tensor

                def gather(self, t, mesh):
                    a = all_gather_tensor(t, 0, self.pg.group_name)
                    return reduce_scatter_tensor(a, "sum", 0, mesh.get_group(0).group_name)
            """,
            after="""
                from torch.distributed._functional_collectives import all_gather_tensor, reduce_scatter_tensor

                def gather(self, t, mesh):
                    a = all_gather_tensor(t, 0, self.pg)
                    return reduce_scatter_tensor(a, "sum", 0, mesh.get_group(0))
            """,
        ),
        Example(
            title="raw _c10d_functional ops, positional and group_name= keyword",
            before="""
                import torch

                def ops(t, pg):
                    x = torch.ops._c10d_functional.all_reduce(t, "sum", pg.group_name)
                    y = torch.ops._c10d_functional.all_gather_into_tensor.default(t, 2, group_name=pg.group_name)
                    return x, y
            """,
            after="""
                import torch

                def ops(t, pg):
                    x = torch.ops._c10d_functional.all_reduce(t, "sum", pg)
                    y = torch.ops._c10d_functional.all_gather_into_tensor.default(t, 2, group_name=pg)
                    return x, y
            """,
        ),
        Example(
            title="local variable used only as the group: replaced, dead assignment removed",
            before="""
                import torch
                from torch.distributed import _functional_collectives as fc

                def step(t, pg):
                    name = pg.group_name
                    t = fc.all_reduce(t, "avg", name)
                    return torch.ops._c10d_functional.broadcast(t, 0, name)
            """,
            after="""
                import torch
                from torch.distributed import _functional_collectives as fc

                def step(t, pg):
                    t = fc.all_reduce(t, "avg", pg)
                    return torch.ops._c10d_functional.broadcast(t, 0, pg)
            """,
        ),
        Example(
            title="dead variable: a comment above it stays, one with a trailing comment is kept",
            before="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg, tp_pg):
                    # the group's registered name
                    name = pg.group_name
                    tp = tp_pg.group_name  # keep me
                    return funcol.all_reduce(funcol.all_reduce(t, "sum", name), "sum", tp)
            """,
            after="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg, tp_pg):
                    # the group's registered name
                    tp = tp_pg.group_name  # keep me
                    return funcol.all_reduce(funcol.all_reduce(t, "sum", pg), "sum", tp_pg)
            """,
        ),
        Example(
            title="local variable also used elsewhere (logged): left alone",
            before="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg):
                    name = pg.group_name
                    print(name)
                    return funcol.all_reduce(t, "sum", name)
            """,
        ),
        Example(
            title="evidence that the object is a group: annotation, new_group, dist.group.WORLD",
            before="""
                import torch.distributed as dist
                import torch.distributed._functional_collectives as funcol
                from torch.distributed import ProcessGroup

                def step(t, world: ProcessGroup):
                    sub = dist.new_group([0])
                    a = funcol.all_reduce(t, "sum", world.group_name)
                    b = funcol.all_reduce(a, "sum", sub.group_name)
                    return funcol.all_reduce(b, "sum", dist.group.WORLD.group_name)
            """,
            after="""
                import torch.distributed as dist
                import torch.distributed._functional_collectives as funcol
                from torch.distributed import ProcessGroup

                def step(t, world: ProcessGroup):
                    sub = dist.new_group([0])
                    a = funcol.all_reduce(t, "sum", world)
                    b = funcol.all_reduce(a, "sum", sub)
                    return funcol.all_reduce(b, "sum", dist.group.WORLD)
            """,
        ),
        Example(
            title="a group name saved on another object (autograd ctx, config): left alone",
            before="""
                import torch

                def backward(ctx, grad):
                    group_name = ctx.group_name
                    out = torch.ops._c10d_functional.all_reduce(grad, "sum", group_name)
                    return torch.ops._c10d_functional.all_reduce(out, "sum", cfg.group_name)
            """,
        ),
        Example(
            title="the group variable is rebound after the name was taken: left alone",
            before="""
                import torch.distributed._functional_collectives as funcol

                def step(t, pg, other):
                    name = pg.group_name
                    pg = other
                    return funcol.all_reduce(t, "sum", name)
            """,
        ),
        Example(
            title="isend/irecv ops still take a str group name: left alone",
            before="""
                import torch

                def send(t, pg):
                    return torch.ops._c10d_functional.isend(t, 1, 0, pg.group_name)
            """,
        ),
        Example(
            title="a string literal as the group: finding",
            before="""
                import torch.distributed._functional_collectives as funcol

                out = funcol.all_reduce(t, "sum", group="0")
            """,
            findings=1,
        ),
        Example(
            title="a ranks list as the group: finding",
            before="""
                import torch.distributed._functional_collectives as funcol

                out = funcol.all_to_all_single(t, None, None, [0, 1])
                out2 = funcol.all_reduce(t, "sum", group=[0, 1])
            """,
            findings=2,
        ),
        Example(
            title="look-alikes: self.group_name, a user function, a config module constant",
            before="""
                import torch.distributed._functional_collectives as funcol
                import config

                def all_reduce(t, op, group):
                    return t

                class Net:
                    def f(self, t):
                        a = funcol.all_reduce(t, "sum", self.group_name)
                        b = funcol.all_reduce(t, "sum", config.group_name)
                        return all_reduce(t, "sum", self.pg.group_name)
            """,
        ),
    ],
)

FUNCOL = "torch.distributed._functional_collectives."
OPS = "torch.ops._c10d_functional."

# Positional index of the group argument (checked with inspect.signature / the op schemas on torch 2.13.0).
_FUNCOL_GROUP_INDEX = {
    "broadcast": 2,
    "all_reduce": 2,
    "all_reduce_coalesced": 2,
    "all_gather_tensor": 2,
    "all_gather_tensor_autograd": 2,
    "all_gather_single": 2,
    "all_gather_single_autograd": 2,
    "all_gather_into_tensor_coalesced": 1,
    "all_gather_single_coalesced": 1,
    "reduce_scatter_tensor": 3,
    "reduce_scatter_tensor_autograd": 3,
    "reduce_scatter_single": 3,
    "reduce_scatter_single_autograd": 3,
    "reduce_scatter_tensor_coalesced": 3,
    "reduce_scatter_single_coalesced": 3,
    "all_to_all_single": 3,
    "all_to_all_single_autograd": 3,
}
# Ops whose schema declares `Any group_name` in 2.13 (isend, irecv, batch_p2p_ops still say `str group_name`).
_OP_GROUP_INDEX = {
    "all_reduce": 2,
    "all_reduce_": 2,
    "all_reduce_coalesced": 2,
    "all_reduce_coalesced_": 2,
    "broadcast": 2,
    "broadcast_": 2,
    "all_gather_into_tensor": 2,
    "all_gather_into_tensor_out": 2,
    "all_gather_into_tensor_coalesced": 2,
    "reduce_scatter_tensor": 3,
    "reduce_scatter_tensor_out": 3,
    "reduce_scatter_tensor_coalesced": 3,
    "all_to_all_single": 3,
}

GROUP_FACTORIES = frozenset(
    {
        "torch.distributed.new_group",
        "torch.distributed.distributed_c10d.new_group",
        "torch.distributed.distributed_c10d._get_default_group",
        "torch.distributed.distributed_c10d._resolve_process_group",
        "torch.distributed.group.WORLD",
    }
)
WORLD_GROUPS = frozenset(
    {
        "torch.distributed.group.WORLD",
        "torch.distributed.GroupMember.WORLD",
        "torch.distributed.distributed_c10d.group.WORLD",
        "torch.distributed.distributed_c10d.GroupMember.WORLD",
    }
)
_GROUPISH = re.compile(r"(?i)(?:^|_)pgs?(?:_|$)|group$|^(?:pg|group)")
_NOT_A_GROUP = re.compile(r"(?i)param_?group|group_?name")
_CODE = cst.Module(body=[])

STRING_MESSAGE = (
    "a group name string passed as the group: pass the ProcessGroup object instead (from 2.12 the functional "
    "collectives take it directly; the name → group resolver `_resolve_process_group` is private, so this cannot be "
    "rewritten automatically)"
)
RANKS_MESSAGE = (
    "a ranks list as the group is deprecated (FutureWarning: 'ranks + tag as process group identifier'): create the "
    "group once with `dist.new_group(ranks)` at set-up — it is a collective every rank must call, in the same order — "
    "and pass that ProcessGroup"
)


def _last_names() -> frozenset[str]:
    names = {name.rpartition(".")[2] for name in _FUNCOL_GROUP_INDEX}
    names |= {name.rpartition(".")[2] for name in _OP_GROUP_INDEX}
    return frozenset(names | {"default"})  # torch.ops._c10d_functional.all_reduce.default


def group_slot(qualname: str | None) -> tuple[int, str] | None:
    """(positional index, keyword) of the group argument of a functional collective or op, else None."""
    if not qualname:
        return None
    if qualname.startswith(FUNCOL):
        index = _FUNCOL_GROUP_INDEX.get(qualname[len(FUNCOL) :])
        return None if index is None else (index, "group")
    if qualname.startswith(OPS):
        name = qualname[len(OPS) :]
        if name.endswith(".default"):
            name = name[: -len(".default")]
        index = _OP_GROUP_INDEX.get(name)
        return None if index is None else (index, "group_name")
    return None


def group_arg_position(call: cst.Call, slot: tuple[int, str]) -> int | None:
    """Index in ``call.args`` of the group argument, or None (absent, or hidden behind ``*args``)."""
    index, keyword = slot
    positional = 0
    for i, a in enumerate(call.args):
        if a.star:
            return None
        if a.keyword is None:
            if positional == index:
                return i
            positional += 1
        elif a.keyword.value == keyword:
            return i
    return None


def _is_group_name_attr(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "group_name"


@dataclass
class _GroupArg:
    call: cst.Call
    value: cst.BaseExpression


class _Collector(cst.CSTVisitor):
    """Every group argument of a target call outside version-guarded code."""

    def __init__(self, transformer: GroupNameTransformer) -> None:
        self.t = transformer
        self.found: dict[int, _GroupArg] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if is_version_guard(node):
            return False
        return super().on_visit(node)

    def visit_Call(self, node: cst.Call) -> None:
        slot = group_slot(self.t.qualname(node.func))
        if slot is None or not self.t.allowed(node):
            return
        position = group_arg_position(node, slot)
        if position is not None:
            value = node.args[position].value
            self.found[id(value)] = _GroupArg(node, value)


@PASS.uses
class GroupNameTransformer(PassTransformer):
    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self.replace_use: dict[int, str] = {}  # id(original Name use) → the ProcessGroup variable
        self.drop_assign: set[int] = set()  # id(original Assign) made dead

    # -- planning the local-variable rewrites --
    def visit_Module(self, node: cst.Module) -> bool:
        collector = _Collector(self)
        node.visit(collector)
        for group_arg in collector.found.values():
            if isinstance(group_arg.value, cst.Name) and id(group_arg.value) not in self.replace_use:
                self._plan_variable(group_arg.value, collector.found)
        return True

    def _plan_variable(self, use: cst.Name, group_args: dict[int, _GroupArg]) -> None:
        scope = self.get_metadata(ScopeProvider, use, None)
        if scope is None:
            return
        assignments = list(scope[use.value])
        if len(assignments) != 1 or not isinstance(assignments[0], Assignment):
            return
        assignment = assignments[0]
        target = assignment.node
        assign = self._simple_assign(target)
        if assign is None or not _is_group_name_attr(assign.value):
            return
        assert isinstance(assign.value, cst.Attribute)
        pg = assign.value.value
        if not isinstance(pg, cst.Name) or pg.value in ("self", "cls"):
            return
        pg_scope = self.get_metadata(ScopeProvider, assign, None)
        if pg_scope is None:
            return
        pg_bindings = set(pg_scope[pg.value])
        if len(pg_bindings) != 1 or not self._may_be_group(pg):
            return
        uses = [ref.node for ref in assignment.references]
        if not uses or any(id(u) not in group_args for u in uses):
            return
        for u in uses:
            u_scope = self.get_metadata(ScopeProvider, u, None)
            if u_scope is None or set(u_scope[pg.value]) != pg_bindings:
                return  # `pg` means something else at this use
        for u in uses:
            self.replace_use[id(u)] = pg.value
        if not self._has_comments(assign):
            self.drop_assign.add(id(assign))

    def _simple_assign(self, target: cst.CSTNode) -> cst.Assign | None:
        if not isinstance(target, cst.Name):
            return None
        parent = self.get_metadata(ParentNodeProvider, target, None)
        if not isinstance(parent, cst.AssignTarget):
            return None
        assign = self.get_metadata(ParentNodeProvider, parent, None)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        return assign

    def _has_comments(self, assign: cst.Assign) -> bool:
        line = self.get_metadata(ParentNodeProvider, assign, None)
        if not isinstance(line, cst.SimpleStatementLine):
            return True
        return line.trailing_whitespace.comment is not None  # comment lines above it are kept by remove_statement

    def _may_be_group(self, node: cst.BaseExpression) -> bool:
        """True when ``node`` is evidently a ``ProcessGroup``, so ``node.group_name`` can be replaced by ``node``.

        ``.group_name`` is also a common attribute of other objects (an autograd ``ctx`` that saved the name, a config),
        so the object must show it is a group: a call that returns one (``mesh.get_group(0)``, ``dist.new_group(…)``),
        ``dist.group.WORLD``, a name annotated or assigned as one, or a name that says so (``pg``, ``tp_pg``,
        ``process_group``, ``self.dp_group``).
        """
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get_group":
                return True
            return self.qualname(node.func) in GROUP_FACTORIES
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        if self.qualname(node) in WORLD_GROUPS:
            return True
        ident = node.value if isinstance(node, cst.Name) else node.attr.value
        if _GROUPISH.search(ident) and not _NOT_A_GROUP.search(ident):
            return True
        return isinstance(node, cst.Name) and self._bound_as_group(node)

    def _bound_as_group(self, name: cst.Name) -> bool:
        """``name`` has one binding: a parameter annotated ``ProcessGroup`` or an assignment from a group factory."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return False
        bindings = list(scope[name.value])
        if len(bindings) != 1 or not isinstance(bindings[0], Assignment):
            return False
        target = bindings[0].node
        parent = target if isinstance(target, cst.Param) else self.get_metadata(ParentNodeProvider, target, None)
        if isinstance(parent, cst.Param):
            return parent.annotation is not None and "ProcessGroup" in _CODE.code_for_node(parent.annotation.annotation)
        if isinstance(parent, cst.AnnAssign):
            return "ProcessGroup" in _CODE.code_for_node(parent.annotation.annotation)
        assign = self._simple_assign(target)
        return assign is not None and isinstance(assign.value, cst.Call) and self._may_be_group(assign.value)

    # -- rewriting --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not isinstance(result, cst.Call) or result is not updated_node:
            return result
        slot = group_slot(self.qualname(original_node.func))
        if slot is None or not self.allowed(original_node):
            return updated_node
        position = group_arg_position(original_node, slot)
        if position is None:
            return updated_node
        original = original_node.args[position].value
        new_value: cst.BaseExpression | None = None
        if _is_group_name_attr(original):
            assert isinstance(original, cst.Attribute)
            if self._may_be_group(original.value):
                updated_value = updated_node.args[position].value
                assert isinstance(updated_value, cst.Attribute)
                new_value = updated_value.value
        elif isinstance(original, cst.Name) and id(original) in self.replace_use:
            new_value = cst.Name(self.replace_use[id(original)])
        elif isinstance(original, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            self.finding(original, STRING_MESSAGE)
        elif isinstance(original, (cst.List, cst.ListComp)):
            self.finding(original, RANKS_MESSAGE)
        if new_value is None:
            return updated_node
        self.edited(original, "group name → ProcessGroup")
        args = list(updated_node.args)
        args[position] = args[position].with_changes(value=new_value)
        return updated_node.with_changes(args=args)

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign | cst.RemovalSentinel:
        if id(original_node) in self.drop_assign and not self._alone_on_its_line(original_node):
            self.edited(original_node, "dead group-name variable removed")
            return cst.RemoveFromParent()  # `a = 1; name = pg.group_name`: drop just this statement
        return updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        only = original_node.body[0] if len(original_node.body) == 1 else None
        if only is not None and id(only) in self.drop_assign:
            self.edited(only, "dead group-name variable removed")
            return self.remove_statement(original_node, updated_node)  # comment lines above it move to the next line
        return updated_node

    def _alone_on_its_line(self, assign: cst.Assign) -> bool:
        line = self.get_metadata(ParentNodeProvider, assign, None)
        return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1


def detect(file: AstFile) -> Iterator[Site]:
    """A bound from the stdlib ast: the transformer acts only through the group argument of a functional collective
    or op (what ``_Collector`` gathers), and only where it is ``x.group_name``, a name some assignment binds to one
    (``name = pg.group_name``), a string or a ranks list; a file with no such argument (or none that ``*``/``**`` may
    hide) is settled without libcst."""
    lasts = _GROUP_CALL_NAMES
    named: dict[str, set[int]] | None = None  # names assigned from `<x>.group_name`, made when first needed
    for node in file.walk():
        if not isinstance(node, ast.Call) or not file.may_call(node, lasts):
            continue  # the callee's qualified name cannot end with a collective's or op's name
        slot = group_slot(file.callee(node))
        if slot is None:
            continue
        index, keyword = slot
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            yield file.edit(node)  # the argument may be hidden: libcst decides
            continue
        value = node.args[index] if len(node.args) > index else next((k.value for k in node.keywords if k.arg == keyword), None)
        if value is None:
            continue
        if isinstance(value, ast.Name):
            if named is None:
                named = _group_name_variables(file)
            scopes = named.get(value.id)
            if scopes is None:
                continue
            if value.id not in file.redirected_names and scopes.isdisjoint(map(id, _ancestors(file, value))):
                continue  # assigned `x.group_name` only in scopes this use cannot see (a parameter of the same name)
        elif _is_group_name_ast(value):
            assert isinstance(value, ast.Attribute)
            if not _may_be_group_ast(file, value.value):
                continue  # `ctx.group_name`, `cfg.group_name`: the transformer leaves it
        elif not isinstance(value, (ast.Constant, ast.JoinedStr, ast.List, ast.ListComp)):
            continue
        yield file.edit(node)


_FACTORY_LASTS = frozenset(name.rpartition(".")[2] for name in GROUP_FACTORIES)
_WORLD_LASTS = frozenset(name.rpartition(".")[2] for name in WORLD_GROUPS)


def _may_be_group_ast(file: AstFile, node: ast.expr) -> bool:
    """A bound from the stdlib ast for ``GroupNameTransformer._may_be_group``: false only where it is false. Where the
    transformer resolves the qualified name of an attribute chain, this looks at its last component (the qualified
    name ends with it); a plain name is resolved through the file's imports (``from … import new_group as ng``).
    Where it asks the single binding of a name (``_bound_as_group``), this asks whether any parameter or annotated
    assignment of that name in the file is annotated ``ProcessGroup``, or any assignment of it is from a call that
    may return a group."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr == "get_group" or func.attr in _FACTORY_LASTS
        return isinstance(func, ast.Name) and (func.id in _FACTORY_LASTS or file.qualname(func) in GROUP_FACTORIES)
    if isinstance(node, ast.Name):
        ident = node.id
        if file.qualname(node) in WORLD_GROUPS:
            return True
    elif isinstance(node, ast.Attribute):
        ident = node.attr
        if ident in _WORLD_LASTS:
            return True
    else:
        return False
    if _GROUPISH.search(ident) and not _NOT_A_GROUP.search(ident):
        return True
    return isinstance(node, ast.Name) and ident in _group_bound_names(file)


def _group_bound_names(file: AstFile) -> frozenset[str]:
    """The names some parameter or annotated assignment of the file annotates with ``ProcessGroup``, or some
    single-target assignment binds to a call that may return a group (made once per file)."""
    cached = _BOUND_NAMES.get(id(file))
    if cached is not None and cached[0] is file:
        return cached[1]
    names: set[str] = set()
    for node in file.nodes:
        if isinstance(node, ast.arg) and node.annotation is not None:
            if "ProcessGroup" in file.source(node.annotation):
                names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if "ProcessGroup" in file.source(node.annotation):
                names.add(node.target.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.Call) and _may_be_group_ast(file, node.value):
                names.add(node.targets[0].id)
    found = frozenset(names)
    _BOUND_NAMES.clear()  # one file at a time
    _BOUND_NAMES[id(file)] = (file, found)
    return found


_BOUND_NAMES: dict[int, tuple[AstFile, frozenset[str]]] = {}
keeps(_BOUND_NAMES.clear)


_SCOPE_NODES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _group_name_variables(file: AstFile) -> dict[str, set[int]]:
    """The names a single-target assignment binds to ``<pg>.group_name`` (``pg`` a plain name, not ``self`` or
    ``cls``, that may be a group: what ``_plan_variable`` requires), with (the ``id`` of) the scope each such
    assignment is written in: the function, class or module around it."""
    found: dict[str, set[int]] = {}
    for assign in file.nodes:
        if (
            isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name)
            and _is_group_name_ast(assign.value)
            and isinstance(pg := assign.value.value, ast.Name)  # type: ignore[attr-defined]
            and pg.id not in ("self", "cls") and _may_be_group_ast(file, pg)
        ):
            scope = next(s for s in _ancestors(file, assign) if isinstance(s, _SCOPE_NODES))
            found.setdefault(assign.targets[0].id, set()).add(id(scope))
    return found


def _ancestors(file: AstFile, node: ast.AST) -> Iterator[ast.AST]:
    """The nodes around ``node``, innermost first, up to the module: among them every scope libcst's analysis can
    find ``node``'s name in (the transformer's ``scope[name]``: a use sees its own scope's assignments and its
    enclosing scopes'); names a ``global`` or ``nonlocal`` redirects are the caller's business."""
    current = file.parent(node)
    while current is not None:
        yield current
        current = file.parent(current)


def _is_group_name_ast(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "group_name"


_GROUP_CALL_NAMES = _last_names()
PASS.analyse = analyser(PASS.id, detect)
