"""`torch.library.impl_abstract` was renamed to `torch.library.register_fake` in PyTorch 2.4.

## What it does
Renames `torch.library.impl_abstract` to `torch.library.register_fake` in calls, decorators and imports. Because
`register_fake`'s first two parameters are positional-only (`register_fake(op, func=None, /, *, lib=None, ...)`),
`qualname=` / `func=` keywords are turned into positional arguments.

## Why
PyTorch 2.4 renamed the API; the old name warns with a FutureWarning ("`torch.library.impl_abstract` was renamed to
`torch.library.register_fake`. Please use that instead; we will remove `torch.library.impl_abstract` in a future
version of PyTorch.").

## Fix safety
Safe: on torch 2.13 `impl_abstract(qualname, func, lib=lib)` is implemented as
`register_fake(qualname, func, lib=lib, ...)`. A call with `**kwargs` could hide `qualname=` / `func=`: finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import fix_commas, kwarg
from torchmigrate.python.renames import RenameTransformer
from torchmigrate.python.transform import Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    id="impl-abstract",
    release="2.4",
    since="2.4",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.library.impl_abstract → torch.library.register_fake",
    evidence=(
        "PyTorch 2.4 release notes (torch.library.register_fake; impl_abstract deprecated); FutureWarning checked on torch 2.13"
        "; since 2.4: torch.library.register_fake (torch 2.4.1 wheel, torch/library.py)"
    ),
    renames={"torch.library.impl_abstract": "torch.library.register_fake"},
    qualnames=frozenset(),  # the transformer acts on the renamed name only
    examples=[
        Example(
            title="decorator",
            before="""
                import torch


                @torch.library.impl_abstract("mylib::custom_op")
                def _(x):
                    return torch.empty_like(x)
            """,
            after="""
                import torch


                @torch.library.register_fake("mylib::custom_op")
                def _(x):
                    return torch.empty_like(x)
            """,
        ),
        Example(
            title="from-import, keywords become positional",
            before="""
                from torch.library import impl_abstract

                impl_abstract(qualname="mylib::op", func=fake_op, lib=lib)
            """,
            after="""
                from torch.library import register_fake

                register_fake("mylib::op", fake_op, lib=lib)
            """,
        ),
        Example(
            title="**kwargs: finding",
            before="""
                import torch

                torch.library.impl_abstract(name, **options)
            """,
            findings=1,
        ),
        Example(
            title="look-alike",
            before="""
                from mylib import impl_abstract

                impl_abstract('x')
            """,
        ),
    ],
)


class ImplAbstractRenames(RenameTransformer):
    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self._skipped: set[int] = set()  # callees of calls with **kwargs: reported, not renamed

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) == "torch.library.impl_abstract" and any(a.star == "**" for a in node.args):
            self._skipped.add(id(node.func))
            self.finding(
                node,
                "impl_abstract(..., **kwargs): register_fake takes the op and the function positionally only; "
                "rename it to torch.library.register_fake and pass them positionally yourself",
            )

    def _rename_expr(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        if id(original) in self._skipped:
            return updated
        return super()._rename_expr(original, updated)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.qualname(original_node.func) != "torch.library.impl_abstract" or not self.allowed(original_node):
            return super().leave_Call(original_node, updated_node)
        qualname, func = kwarg(updated_node, "qualname"), kwarg(updated_node, "func")
        if id(original_node.func) in self._skipped or (qualname is None and func is None):
            return super().leave_Call(original_node, updated_node)
        positional = [a for a in updated_node.args if a.keyword is None]
        keywords = [a for a in updated_node.args if a.keyword is not None and a not in (qualname, func)]
        moved = [cst.Arg(value=a.value) for a in (qualname, func) if a is not None]
        self.edited(original_node, "impl_abstract keywords qualname=/func= → positional (register_fake is positional-only)")
        return updated_node.with_changes(args=fix_commas([*positional, *moved, *keywords], like=updated_node))


PASS.uses(ImplAbstractRenames)
