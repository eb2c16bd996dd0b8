"""`torch.distributed.nn.functional` raises inside `torch.compile` from PyTorch 2.12: use the functional collectives.

## What it does
Rewrites the calls that have a mechanical equivalent in `torch.distributed._functional_collectives` (imported as
`funcol`, reusing an existing import when the file has one):

- `all_reduce(t)` / `all_reduce(t, op=ReduceOp.MAX, group=pg)` → `funcol.all_reduce(t, "sum", dist.group.WORLD)` /
  `funcol.all_reduce(t, "max", pg)`: the reduce op becomes its string and the group, optional before, is passed
  (`dist.group.WORLD` when it was omitted or `None`);
- `broadcast(t, src)` without a group, or with `dist.group.WORLD` → `funcol.broadcast(t, src, dist.group.WORLD)`;
- `torch.cat(all_gather(t, group), dim=d)` → `funcol.all_gather_tensor(t, d, group)`: `all_gather` returned a tuple
  of per-rank tensors, `all_gather_tensor` returns them concatenated (`all_gather_single` from 2.13, which the
  `single-collectives` pass produces with `--to 2.13`).

Everything else gets a finding with the route, because the signatures differ in ways that need a decision:
`all_reduce` with an op that is not a literal `ReduceOp.X`; `broadcast` on another group (`src` is a global rank
there but a group-local rank in `funcol.broadcast`, checked on a 2-process gloo run); `all_gather` whose tuple is
used otherwise; `reduce_scatter` and `all_to_all_single` (they fill an output tensor, the functional versions return
a new one: `funcol.reduce_scatter_tensor` / `funcol.all_to_all_single`); `gather`, `scatter`, `reduce` and
`all_to_all`, which have no functional equivalent (keep them outside the compiled region).
The functions are matched under both `torch.distributed.nn.functional` and their re-export `torch.distributed.nn`.

## Why
PyTorch 2.12 made every op in `torch.distributed.nn.functional` raise `RuntimeError` when called inside
`torch.compile` and points to the functional collectives (2.12 release notes, Backwards Incompatible Changes,
pytorch/pytorch#177342). In 2.13 `broadcast`, `all_reduce`, `all_gather`, `reduce_scatter` and `all_to_all_single`
also warn `FutureWarning` in eager mode.

## Fix safety
Review. Results are the same tensors (checked on a 1-rank gloo group; `all_reduce` also under `torch.compile`, where
the old call raises) and gradients flow for `sum`, but check: the group argument must not be `None` at run time (the
functional API has no default group);
`funcol.all_reduce`'s backward supports only `"sum"` (the old `all_reduce` differentiated other ops too); the
functional results are `AsyncCollectiveTensor`s that wait on first use. One difference works in your favour: the old
functions bind their default `group=group.WORLD` when `torch.distributed.nn.functional` is first imported (checked on
2.13.0: imported after `init_process_group`, the default is that very group object, even after it is destroyed),
while the rewritten call looks `dist.group.WORLD` up each time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass, Unchanged
from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import arg, build_dotted, has_star_args
from torchmigrate.python.transform import PassTransformer, Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    id="dist-nn-functional",
    release="2.12",
    since="2.11",
    kind=BEHAVIOUR,
    safety=REVIEW,
    title="torch.distributed.nn.functional.* → torch.distributed._functional_collectives.*",
    evidence=(
        "PyTorch 2.12 release notes, Backwards Incompatible Changes, Distributed (pytorch/pytorch#177342)"
        "; since 2.11: the functional collectives gain autograd (torch 2.11.0 wheel, "
        "torch/distributed/_functional_collectives.py:631 registers all_reduce's backward; 2.10 has none)"
    ),
    triggers=("distributed.nn", "distributed import nn"),
    review_note=(
        "the group must not be None at run time; funcol.all_reduce differentiates only 'sum'; results are "
        "AsyncCollectiveTensors that wait on first use"
    ),
    examples=[
        Unchanged(
            """
            from torch.distributed.nn import RemoteModule

            modules = [RemoteModule(device, nn.Linear, (4, 4))]
            """,
            title="torch.distributed.nn's RemoteModule is no collective (facebookresearch/fairscale)",
        ),
        Example(
            title="all_reduce: default op and group",
            before="""
                import torch
                import torch.distributed.nn.functional as dnnf

                @torch.compile
                def f(x):
                    return dnnf.all_reduce(x)
            """,
            after="""
                import torch
                import torch.distributed._functional_collectives as funcol

                @torch.compile
                def f(x):
                    return funcol.all_reduce(x, "sum", torch.distributed.group.WORLD)
            """,
        ),
        Example(
            title="all_reduce with ReduceOp and group, funcol already imported",
            before="""
                import torch.distributed as dist
                import torch.distributed._functional_collectives as funcol
                from torch.distributed.nn import all_reduce

                def f(x, pg):
                    y = funcol.all_reduce(x, 'sum', pg)
                    return all_reduce(y, op=dist.ReduceOp.MAX, group=pg)
            """,
            after="""
                import torch.distributed as dist
                import torch.distributed._functional_collectives as funcol

                def f(x, pg):
                    y = funcol.all_reduce(x, 'sum', pg)
                    return funcol.all_reduce(y, "max", pg)
            """,
        ),
        Example(
            title="broadcast on the default group, positional ReduceOp from an import",
            before="""
                import torch.distributed as dist
                from torch.distributed import ReduceOp
                from torch.distributed.nn import functional as F

                def f(x):
                    x = F.broadcast(x, 0)
                    return F.all_reduce(x, ReduceOp.AVG, None)
            """,
            after="""
                import torch.distributed as dist
                import torch.distributed._functional_collectives as funcol
                from torch.distributed import ReduceOp

                def f(x):
                    x = funcol.broadcast(x, 0, dist.group.WORLD)
                    return funcol.all_reduce(x, "avg", dist.group.WORLD)
            """,
        ),
        Example(
            title="nested calls, from-import of the function, a local name funcol already taken",
            before="""
                import torch
                from torch.distributed.nn.functional import all_reduce

                funcol = None

                def f(x):
                    return all_reduce(all_reduce(x))
            """,
            after="""
                import torch
                import torch.distributed._functional_collectives

                funcol = None

                def f(x):
                    return torch.distributed._functional_collectives.all_reduce(torch.distributed._functional_collectives.all_reduce(x, "sum", torch.distributed.group.WORLD), "sum", torch.distributed.group.WORLD)
            """,
        ),
        Example(
            title="torch.cat(all_gather(...)) → all_gather_tensor",
            before="""
                import torch
                import torch.distributed.nn.functional as dnnf

                def f(x, pg):
                    return torch.cat(dnnf.all_gather(x, group=pg), dim=1)
            """,
            after="""
                import torch.distributed._functional_collectives as funcol

                def f(x, pg):
                    return funcol.all_gather_tensor(x, 1, pg)
            """,
        ),
        Example(
            title="no mechanical equivalent: findings",
            before="""
                import torch.distributed.nn.functional as dnnf

                def f(x, pg, op, outs, ins):
                    a = dnnf.all_gather(x)
                    b = dnnf.all_reduce(x, op)
                    c = dnnf.broadcast(x, 1, group=pg)
                    d = dnnf.reduce_scatter(x, ins)
                    e = dnnf.all_to_all(outs, ins)
                    return a, b, c, d, e
            """,
            findings=5,
        ),
        Example(
            title="look-alikes: torch.distributed.all_reduce, a method, a user function",
            before="""
                import torch.distributed as dist

                def all_reduce(x):
                    return x

                dist.all_reduce(t)
                self.all_reduce(t)
                all_reduce(t)
            """,
        ),
    ],
)

DNNF = ("torch.distributed.nn.functional.", "torch.distributed.nn.")
FUNCOL = "torch.distributed._functional_collectives"
_REDUCE_OPS = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"}
_REDUCE_OP_CLASSES = (
    "torch.distributed.ReduceOp.",
    "torch.distributed.distributed_c10d.ReduceOp.",
    "torch.distributed.nn.functional.ReduceOp.",
)
_WORLD = (
    "torch.distributed.group.WORLD",
    "torch.distributed.distributed_c10d.group.WORLD",
    "torch.distributed.GroupMember.WORLD",
)
_NO_EQUIVALENT = {
    "reduce_scatter": "it fills `output` from a list; use `out = funcol.reduce_scatter_tensor(torch.cat(input_list), op_str, 0, group)`",
    "all_to_all_single": "it fills `output`; use `out = funcol.all_to_all_single(input, output_split_sizes, input_split_sizes, group)`",
    "gather": "there is no functional gather: keep it outside the compiled region",
    "scatter": "there is no functional scatter: keep it outside the compiled region",
    "reduce": "there is no functional reduce: use funcol.all_reduce, or keep it outside the compiled region",
    "all_to_all": "there is no functional list all_to_all: concatenate and use funcol.all_to_all_single",
    "_all_gather_base": "use `out = funcol.all_gather_tensor(input, 0, group)`",
}
_PREFIX = "torch.distributed.nn.functional.{name} raises RuntimeError inside torch.compile from 2.12"


def _short(qualname: str | None) -> str | None:
    if not qualname:
        return None
    for prefix in DNNF:
        if qualname.startswith(prefix):
            rest = qualname[len(prefix) :]
            return rest if rest in COLLECTIVES else None  # torch.distributed.nn also exports RemoteModule, Function…
    return None


# The collectives of torch.distributed.nn.functional (torch 2.13.0 torch/distributed/nn/functional.py), which
# torch.distributed.nn re-exports beside unrelated names (RemoteModule, Function, ReduceOp, api, jit).
COLLECTIVES = frozenset(
    {"_all_gather_base", "all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "gather",
     "reduce", "reduce_scatter", "scatter"}
)


@PASS.uses
class DistNnFunctionalTransformer(PassTransformer):
    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self._funcol: str | None = None
        self._handled_gathers: set[int] = set()

    # -- references --
    def _alias_of(self, module: str) -> str | None:
        for full, local in self.module_imports():
            if full == module and local != full.split(".")[0]:
                return local
        return None

    def _funcol_fn(self, name: str) -> cst.BaseExpression:
        if self._funcol is None:
            alias = self._alias_of(FUNCOL)
            if alias is None:
                alias = "funcol" if "funcol" not in self.global_names() else None
                if alias is not None:
                    add_needed_import(self.context, FUNCOL, asname=alias)
            self._funcol = alias or ""
        if self._funcol:
            return cst.Attribute(value=cst.Name(self._funcol), attr=cst.Name(name))
        return self.ref(f"{FUNCOL}.{name}")

    def _world(self) -> cst.BaseExpression:
        alias = self._alias_of("torch.distributed")
        if alias is not None:
            return build_dotted(f"{alias}.group.WORLD")
        if not any(local == "torch" for _, local in self.module_imports()):
            add_needed_import(self.context, "torch")
        return build_dotted("torch.distributed.group.WORLD")

    # -- argument helpers --
    def _group(self, call: cst.Call, original: cst.Call, index: int) -> tuple[cst.BaseExpression | None, bool]:
        """(the group expression to pass, whether it is the default group)."""
        given = arg(call, index, "group")
        given_original = arg(original, index, "group")
        if given is None or given_original is None:
            return self._world(), True
        value = given_original.value
        if isinstance(value, cst.Name) and value.value == "None":
            return self._world(), True
        if self.qualname(value) in _WORLD:
            return given.value, True
        return given.value, False

    def _reduce_op(self, original: cst.Call) -> str | None:
        given = arg(original, 1, "op")
        if given is None:
            return "sum"
        name = self.qualname(given.value) or ""
        for prefix in _REDUCE_OP_CLASSES:
            if name.startswith(prefix) and name[len(prefix) :] in _REDUCE_OPS:
                return name[len(prefix) :].lower()
        return None

    # -- rewriting --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.allowed(original_node):
            return updated_node
        if self.qualname(original_node.func) == "torch.cat":
            return self._cat_of_gather(original_node, updated_node)
        name = _short(self.qualname(original_node.func))
        if name is None:
            return updated_node
        if has_star_args(original_node):
            self.finding(original_node, f"{_PREFIX.format(name=name)}: rewrite it to the functional collectives by hand")
            return updated_node
        if name == "all_reduce":
            return self._all_reduce(original_node, updated_node)
        if name == "broadcast":
            return self._broadcast(original_node, updated_node)
        if name == "all_gather":
            if id(original_node) not in self._handled_gathers:
                self.finding(
                    original_node,
                    f"{_PREFIX.format(name=name)}; it returns a tuple per rank, funcol.all_gather_tensor(t, 0, group) "
                    "returns them concatenated: use `.chunk(dist.get_world_size(group))` where you need the pieces",
                )
            return updated_node
        advice = _NO_EQUIVALENT.get(name)
        if advice is not None:
            self.finding(original_node, f"{_PREFIX.format(name=name)}: {advice}")
        return updated_node

    def _replace(self, original: cst.Call, new: cst.BaseExpression, message: str) -> cst.BaseExpression:
        self.edited(original, message)
        self.drop_imports_of(original.func)
        return new

    def _all_reduce(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        op = self._reduce_op(original)
        tensor = arg(updated, 0, "tensor")
        if op is None or tensor is None or len(updated.args) > 3:
            self.finding(
                original,
                f"{_PREFIX.format(name='all_reduce')}: use funcol.all_reduce(tensor, op_string, group) — the reduce op "
                "is a string ('sum', 'max', …) and the group is required",
            )
            return updated
        group, _ = self._group(updated, original, 2)
        assert group is not None
        new = cst.Call(
            func=self._funcol_fn("all_reduce"),
            args=[cst.Arg(tensor.value), cst.Arg(cst.SimpleString(f'"{op}"')), cst.Arg(group)],
        )
        message = "dist.nn.functional.all_reduce → funcol.all_reduce"
        if op != "sum":
            message += f" (review: funcol.all_reduce has no backward for {op!r}; fine where no gradient flows)"
        return self._replace(original, _commas(new), message)

    def _broadcast(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        tensor = arg(updated, 0, "tensor")
        src = arg(updated, 1, "src")
        group, is_world = self._group(updated, original, 2)
        if tensor is None or src is None or not is_world:
            self.finding(
                original,
                f"{_PREFIX.format(name='broadcast')}: use funcol.broadcast(tensor, src, group) — its `src` is the rank "
                "within `group` (dist.get_group_rank(group, src)), not the global rank",
            )
            return updated
        assert group is not None
        new = cst.Call(func=self._funcol_fn("broadcast"), args=[cst.Arg(tensor.value), cst.Arg(src.value), cst.Arg(group)])
        return self._replace(original, _commas(new), "dist.nn.functional.broadcast → funcol.broadcast")

    def visit_Call(self, node: cst.Call) -> bool:
        # Mark `torch.cat(all_gather(...), dim)` before the inner call is left, so it gets no finding.
        if self.qualname(node.func) == "torch.cat" and self._gather_in_cat(node) is not None:
            inner = node.args[0].value
            self._handled_gathers.add(id(inner))
        return True

    def _gather_in_cat(self, cat: cst.Call) -> int | None:
        """The concatenation dim of ``torch.cat(all_gather(t[, group]), dim)`` when it can be rewritten, else None."""
        if not cat.args or cat.args[0].keyword is not None or has_star_args(cat) or len(cat.args) > 2:
            return None
        inner = cat.args[0].value
        if not isinstance(inner, cst.Call) or _short(self.qualname(inner.func)) != "all_gather":
            return None
        if has_star_args(inner) or arg(inner, 0, "tensor") is None or len(inner.args) > 2:
            return None
        dim_arg = arg(cat, 1, "dim")
        if dim_arg is None:
            return 0
        value = dim_arg.value
        if isinstance(value, cst.Integer):
            return int(value.value)
        return None

    def _cat_of_gather(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        dim = self._gather_in_cat(original)
        if dim is None or not self.allowed(original.args[0].value):
            return updated
        inner_original = original.args[0].value
        inner = updated.args[0].value
        assert isinstance(inner_original, cst.Call) and isinstance(inner, cst.Call)
        tensor = arg(inner, 0, "tensor")
        assert tensor is not None
        group, _ = self._group(inner, inner_original, 1)
        assert group is not None
        new = cst.Call(
            func=self._funcol_fn("all_gather_tensor"),
            args=[cst.Arg(tensor.value), cst.Arg(cst.Integer(str(dim))), cst.Arg(group)],
        )
        self.drop_imports_of(original.func)
        return self._replace(inner_original, _commas(new), "torch.cat(dist.nn.functional.all_gather) → funcol.all_gather_tensor")


def _commas(call: cst.Call) -> cst.Call:
    args = list(call.args)
    for i in range(len(args) - 1):
        args[i] = args[i].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=args)
