"""`ctx.create_unbacked_symint()` in a fake (abstract) implementation is deprecated since PyTorch 2.2: use `new_dynamic_size`.

## What it does
`ctx.create_unbacked_symint(min=m, max=M)` → `ctx.new_dynamic_size(min=m, max=M)`, where `ctx` is visibly the
fake-implementation context: the result of `torch.library.get_ctx()` (or `torch._custom_ops.get_ctx()`), called
directly or assigned to a name. The old method's `min` defaulted to 2, the new one's to 0, so `min=2` is written out
when the call did not give it. `ShapeEnv.create_unbacked_symint()` (same name, not deprecated) is never touched.

## Why
2.2 added `new_dynamic_size` and deprecated `create_unbacked_symint` (2.2 wheel `torch/_library/abstract_impl.py`);
torch 2.13 warns `FutureWarning: create_unbacked_symint is deprecated, please use new_dynamic_size instead`, and the
old method is `return self.new_dynamic_size(min=min, max=max)` with `min=2` (torch/_library/fake_impl.py).

## Fix safety
Safe: the new call is what the old method did.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, make_kwarg, with_args
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

GET_CTX = frozenset({"torch.library.get_ctx", "torch._custom_ops.get_ctx", "torch._library.fake_impl.get_ctx"})

PASS = Pass(
    id="fake-unbacked-symint",
    since="2.2",
    release="2.2",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.library.get_ctx().create_unbacked_symint() → new_dynamic_size(min=2)",
    evidence=(
        "2.2 wheel torch/_library/abstract_impl.py (new_dynamic_size added, create_unbacked_symint deprecated); torch 2.13 torch/_library/fake_impl.py"
        "; since 2.2: new_dynamic_size (torch 2.2.2 wheel, torch/_library/abstract_impl.py)"
    ),
    triggers=("create_unbacked_symint",),
    sliceable=False,  # `ctx = torch.library.get_ctx()` may sit in another statement than the call
    examples=[
        Example(
            before="""
                import torch


                @torch.library.register_fake("mylib::nonzero")
                def _(x):
                    ctx = torch.library.get_ctx()
                    nnz = ctx.create_unbacked_symint()
                    return x.new_empty(nnz, x.dim())
            """,
            after="""
                import torch


                @torch.library.register_fake("mylib::nonzero")
                def _(x):
                    ctx = torch.library.get_ctx()
                    nnz = ctx.new_dynamic_size(min=2)
                    return x.new_empty(nnz, x.dim())
            """,
        ),
        Example(
            title="a direct call, explicit bounds",
            before="""
                from torch.library import get_ctx

                n = get_ctx().create_unbacked_symint(min=0, max=64)
            """,
            after="""
                from torch.library import get_ctx

                n = get_ctx().new_dynamic_size(min=0, max=64)
            """,
        ),
        Example(
            title="look-alike: ShapeEnv's method of the same name",
            before="""
                from torch.fx.experimental.symbolic_shapes import ShapeEnv

                s = ShapeEnv().create_unbacked_symint()
                t = fake_mode.shape_env.create_unbacked_symint()
            """,
        ),
    ],
)


@PASS.uses
class UnbackedSymint(PassTransformer):
    def visit_Module(self, node: cst.Module) -> bool:
        self.contexts: set[str] = set()
        node.visit(_Contexts(self))
        return True

    def is_ctx(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.contexts
        return isinstance(node, cst.Call) and self.qualname(node.func) in GET_CTX

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "create_unbacked_symint"):
            return updated_node
        if not self.is_ctx(func.value) or not self.allowed(original_node):
            return updated_node
        bound = bind(updated_node, ())
        if bound.star or bound.extra:
            return updated_node
        args = list(updated_node.args)
        if "min" not in {a.keyword.value for a in args if a.keyword is not None}:
            args.insert(0, make_kwarg("min", cst.Integer("2")))
        self.edited(original_node, "create_unbacked_symint() → new_dynamic_size(min=2 unless given)")
        new_func = updated_node.func
        assert isinstance(new_func, cst.Attribute)
        return with_args(updated_node, args).with_changes(func=new_func.with_changes(attr=cst.Name("new_dynamic_size")))


class _Contexts(cst.CSTVisitor):
    def __init__(self, owner: UnbackedSymint) -> None:
        self.owner = owner

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.owner.is_ctx(node.value) and isinstance(node.value, cst.Call):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.owner.contexts.add(target.target.value)


def detect(file: AstFile) -> Iterator[Site]:
    """A bound on the transformer's edits: a ``X.create_unbacked_symint(...)`` call where ``X`` is a
    ``torch.library.get_ctx()`` call or a name some assignment in the file binds to one (anywhere: the transformer
    collects those names from the whole module). Nothing else can be edited, so a file without such a call is
    settled without libcst."""
    contexts = {
        target.id
        for node in file.nodes
        if isinstance(node, ast.Assign) and _is_get_ctx(file, node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in file.walk():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create_unbacked_symint":
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id in contexts) or _is_get_ctx(file, owner):
                yield file.edit(node)


def _is_get_ctx(file: AstFile, node: ast.expr) -> bool:
    return file.callee(node) in GET_CTX


PASS.analyse = analyser(PASS.id, detect)
