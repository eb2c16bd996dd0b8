"""`torch.utils._pytree._register_pytree_node` is deprecated since PyTorch 2.2: use `register_pytree_node`.

## What it does
`_register_pytree_node(cls, flatten_fn, unflatten_fn, **keywords)` → `register_pytree_node(...)` with the same
arguments, whatever the import form. A call that passes the old fourth or fifth positional argument (`to_str_fn`,
`maybe_from_str_fn`, which 2.13 ignores with a warning) or `*args` gets a finding instead. Other references to the
old name (`register = _pytree._register_pytree_node`) are renamed too.

## Why
2.2 added the public `register_pytree_node` and deprecated the private one (both in the 2.2 wheel's
`torch/utils/_pytree.py`); torch 2.13 warns `FutureWarning: torch.utils._pytree._register_pytree_node is deprecated.
Please use torch.utils._pytree.register_pytree_node instead.` The keyword-only parameters (`serialized_type_name`,
`to_dumpable_context`, `from_dumpable_context`, `flatten_with_keys_fn`) are the same in both.

## Fix safety
Review: both register the class with the Python pytree, but `register_pytree_node` also registers it with the C++
pytree (`torch.utils._cxx_pytree`), and it raises `ValueError: ... is already registered as pytree node` where the
old function let a second registration of the same class through — code that registers a class twice (a module
imported twice, two libraries registering the same type) needs a guard such as checking
`torch.utils._pytree.SUPPORTED_NODES` first.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.transform import CallContext

OLD = "torch.utils._pytree._register_pytree_node"
NEW = "torch.utils._pytree.register_pytree_node"

PASS = Pass(
    id="pytree-register",
    since="2.2",
    release="2.2",
    kind=DEPRECATION,
    safety=REVIEW,
    title="torch.utils._pytree._register_pytree_node → register_pytree_node",
    evidence=(
        "2.2 wheel torch/utils/_pytree.py (register_pytree_node added, _register_pytree_node deprecated); FutureWarning and the re-registration ValueError checked on torch 2.13"
        "; since 2.2: torch.utils._pytree.register_pytree_node (torch 2.2.2 wheel; absent from 2.1.2)"
    ),
    review_note="register_pytree_node raises ValueError when the class is already registered (the old function did not)",
    examples=[
        Example(
            before="""
                import torch.utils._pytree as pytree

                pytree._register_pytree_node(Point, flatten_point, unflatten_point)
            """,
            after="""
                import torch.utils._pytree as pytree

                pytree.register_pytree_node(Point, flatten_point, unflatten_point)
            """,
        ),
        Example(
            title="from-import with keyword arguments",
            before="""
                from torch.utils._pytree import _register_pytree_node

                _register_pytree_node(Box, flat, unflat, serialized_type_name="mylib.Box")
            """,
            after="""
                from torch.utils._pytree import register_pytree_node

                register_pytree_node(Box, flat, unflat, serialized_type_name="mylib.Box")
            """,
        ),
        Example(
            title="the ignored to_str_fn passed by position: finding",
            before="""
                import torch

                torch.utils._pytree._register_pytree_node(Box, flat, unflat, box_to_str)
            """,
            findings=1,
        ),
        Example(
            title="look-alike: the public function already, a library's own helper",
            before="""
                import torch.utils._pytree as pytree
                from mylib import _register_pytree_node

                pytree.register_pytree_node(A, f, u)
                _register_pytree_node(B, f, u)
            """,
        ),
    ],
)


@PASS.rewrites_calls(OLD)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    positional = [a for a in ctx.original.args if a.keyword is None and not a.star]
    if any(a.star == "*" for a in ctx.original.args) or len(positional) > 3:
        ctx.finding(
            "_register_pytree_node(...) with to_str_fn / maybe_from_str_fn (ignored since 2.2) or *args: call "
            "torch.utils._pytree.register_pytree_node(cls, flatten_fn, unflatten_fn, serialized_type_name=..., "
            "to_dumpable_context=..., from_dumpable_context=...) instead"
        )
        return None
    ctx.message = "_register_pytree_node(...) → register_pytree_node(...)"
    return call.with_changes(func=ctx.ref(NEW))
