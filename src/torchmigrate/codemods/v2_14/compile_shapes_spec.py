"""`torch.compile(shapes_spec=...)` was renamed `dynamic_shapes=` in PyTorch 2.14.

## What it does
Renames the keyword in `torch.compile(...)` calls, decorator forms included (`@torch.compile(shapes_spec=S)`), however
`torch.compile` is imported. `model.compile(shapes_spec=S)` (`nn.Module.compile` forwards its arguments to
`torch.compile`) gets a finding: the receiver cannot be proven to be a module.

## Why
2.13 added the experimental `shapes_spec=` parameter (2.13 `torch/__init__.py:2621`); 2.14 renamed it to
`dynamic_shapes=` without an alias (2.14.1 `torch/__init__.py:3058`, pytorch/pytorch#187010), so the old keyword is a
`TypeError: compile() got an unexpected keyword argument 'shapes_spec'`.

## Fix safety
Safe: only the name changed. 2.14's `dynamic_shapes` takes the same `ShapesSpec` / `ParamsSpec` / dict values and
wraps a `ParamsSpec` the same way (2.13 `torch/__init__.py:2762-2766`, 2.14.1 `:3199-3203`). The new keyword does not
exist before 2.14.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext, PassTransformer

PASS = Pass(
    id="compile-shapes-spec",
    release="2.14",
    since="2.14",
    kind=REMOVAL,
    safety=SAFE,
    title="torch.compile(shapes_spec=...) → torch.compile(dynamic_shapes=...)",
    evidence=(
        "torch 2.13 torch/__init__.py:2621 → 2.14.1 torch/__init__.py:3058 (pytorch/pytorch#187010)"
        "; since 2.14: torch.compile(dynamic_shapes=) first ships in 2.14 (torch 2.14.1 wheel, "
        "torch/__init__.py:3058; 2.13.0 has shapes_spec= only)"
    ),
    triggers=("shapes_spec",),
    examples=[
        Example(
            before="""
                import torch
                from torch.fx.experimental.dynamic_spec import ParamsSpec

                compiled = torch.compile(model, shapes_spec=ParamsSpec(x={0: "batch"}), fullgraph=True)
            """,
            after="""
                import torch
                from torch.fx.experimental.dynamic_spec import ParamsSpec

                compiled = torch.compile(model, dynamic_shapes=ParamsSpec(x={0: "batch"}), fullgraph=True)
            """,
        ),
        Example(
            title="decorator, alias",
            before="""
                import torch as th

                @th.compile(shapes_spec=spec)
                def f(x):
                    return x * 2
            """,
            after="""
                import torch as th

                @th.compile(dynamic_shapes=spec)
                def f(x):
                    return x * 2
            """,
        ),
        Example(
            title="nn.Module.compile: finding",
            before="""
                import torch

                model.compile(shapes_spec=spec)
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch

            compiled = torch.compile(model, dynamic_shapes=spec)
            other.build(shapes_spec=spec)
            """,
            title="already migrated; another library's shapes_spec",
        ),
    ],
)


@PASS.rewrites_calls("torch.compile")
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = kwarg(call, "shapes_spec")
    if old is None:
        return None
    ctx.message = "torch.compile: shapes_spec= → dynamic_shapes= (renamed in 2.14)"
    return call.with_changes(args=[a.with_changes(keyword=cst.Name("dynamic_shapes")) if a is old else a for a in call.args])


@PASS.uses
class CompileShapesSpec(PassTransformer):
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        func = original_node.func
        if (
            result is updated_node
            and isinstance(func, cst.Attribute)
            and func.attr.value == "compile"
            and self.qualname(func) is None
            and kwarg(original_node, "shapes_spec") is not None
        ):
            self.finding(
                original_node,
                "shapes_spec= was renamed dynamic_shapes= in 2.14: if this is nn.Module.compile, rename the keyword",
            )
        return result
