"""`torch.set_default_tensor_type` is deprecated since PyTorch 2.1: use `set_default_dtype` (+ `set_default_device`).

## What it does
A statement `torch.set_default_tensor_type(T)` whose `T` is a floating tensor type, as a class or as its name string:
- `torch.DoubleTensor` / `torch.FloatTensor` / `torch.HalfTensor` / `torch.BFloat16Tensor` →
  `torch.set_default_dtype(torch.float64)` (resp. `float32`, `float16`, `bfloat16`);
- `torch.cuda.FloatTensor` & co. → `torch.set_default_dtype(torch.float32)` followed by
  `torch.set_default_device("cuda")`.
Any other use — a type chosen at run time (`'torch.cuda.FloatTensor' if cuda else 'torch.FloatTensor'`), a call
inside an expression — gets a finding.

## Why
2.1 deprecated the function (docstring: "deprecated as of PyTorch 2.1, please use `torch.set_default_dtype()` and
`torch.set_default_device()` as alternatives"); torch 2.13 warns `UserWarning: torch.set_default_tensor_type() is
deprecated as of PyTorch 2.1`.

## Fix safety
Review. For CPU types the new call sets the same default dtype (checked on torch 2.13: `torch.tensor([1.0]).dtype`
and `torch.empty(1)` agree). For CUDA types `set_default_device` is a different mechanism from the legacy CUDA tensor
type: it makes every factory call without a `device=` allocate on the GPU, through a `TorchFunctionMode`; and a later
`set_default_tensor_type(torch.FloatTensor)` that switched back to the CPU becomes only `set_default_dtype(...)` —
add `torch.set_default_device("cpu")` there if the program toggles. `set_default_device` exists since 2.0.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.transform import PassTransformer

OLD = "torch.set_default_tensor_type"
DTYPES = {"DoubleTensor": "float64", "FloatTensor": "float32", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16"}

PASS = Pass(
    id="set-default-tensor-type",
    release="2.1",
    kind=DEPRECATION,
    safety=REVIEW,
    since="2.0",
    title="set_default_tensor_type(T) → set_default_dtype(...) [+ set_default_device('cuda')]",
    evidence=(
        "torch 2.13 torch/__init__.py set_default_tensor_type docstring (deprecated as of 2.1); UserWarning and dtypes checked on torch 2.13"
        "; since 2.0: set_default_device (torch 2.0.1 wheel, torch/__init__.py; absent from 1.13.1)"
    ),
    review_note="CUDA types become set_default_device('cuda') (every factory call without device=); a later switch back to a CPU type keeps the device",
    qualnames=frozenset({OLD}),
    examples=[
        Example(
            before="""
                import torch

                torch.set_default_tensor_type(torch.DoubleTensor)
            """,
            after="""
                import torch

                torch.set_default_dtype(torch.float64)
            """,
        ),
        Example(
            title="a CUDA type named by a string, import torch as th",
            before="""
                import torch as th

                if use_gpu:
                    th.set_default_tensor_type('torch.cuda.FloatTensor')
            """,
            after="""
                import torch as th

                if use_gpu:
                    th.set_default_dtype(th.float32)
                    th.set_default_device("cuda")
            """,
        ),
        Example(
            title="a type chosen at run time: finding",
            before="""
                import torch

                torch.set_default_tensor_type('torch.cuda.FloatTensor' if cuda else 'torch.FloatTensor')
            """,
            findings=1,
        ),
        Example(
            title="look-alike: set_default_dtype already",
            before="""
                import torch

                torch.set_default_dtype(torch.float64)
            """,
        ),
    ],
)


class SetDefaultTensorType(PassTransformer):
    def _target(self, node: cst.BaseExpression) -> tuple[str, bool] | None:
        """(dtype name, on CUDA) for a tensor type class or its name string, else None."""
        if isinstance(node, cst.SimpleString):
            name = node.evaluated_value
            if not isinstance(name, str):
                return None
        else:
            name = self.qualname(node) or ""
        cuda = name.startswith("torch.cuda.")
        short = name.removeprefix("torch.cuda.") if cuda else name.removeprefix("torch.")
        if short == name or short not in DTYPES:
            return None
        return DTYPES[short], cuda

    def _planned(self, call: cst.Call) -> tuple[str, bool] | None:
        if self.qualname(call.func) != OLD or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        return self._target(call.args[0].value)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if len(original_node.body) != 1 or not isinstance(original_node.body[0], cst.Expr):
            return updated_node
        call = original_node.body[0].value
        if not isinstance(call, cst.Call) or not self.allowed(original_node):
            return updated_node
        plan = self._planned(call)
        if plan is None:
            return updated_node
        dtype, cuda = plan
        func = call.func
        set_dtype = cst.Call(self.ref("torch.set_default_dtype", like=func), [cst.Arg(self.ref(f"torch.{dtype}", like=func))])
        first = updated_node.with_changes(body=[cst.Expr(set_dtype)])
        self.drop_imports_of(call)
        self.edited(original_node, f"set_default_tensor_type → set_default_dtype(torch.{dtype})" + (" + set_default_device('cuda')" if cuda else ""))
        if not cuda:
            return first
        set_device = cst.Call(self.ref("torch.set_default_device", like=func), [cst.Arg(cst.SimpleString('"cuda"'))])
        second = cst.SimpleStatementLine([cst.Expr(set_device)], trailing_whitespace=updated_node.trailing_whitespace)
        return cst.FlattenSentinel([first.with_changes(trailing_whitespace=cst.TrailingWhitespace()), second])

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) != OLD:
            return
        if self._planned(node) is not None and isinstance(self.get_metadata(ParentNodeProvider, node, None), cst.Expr):
            return  # a statement the rewrite handles
        self.finding(
            node,
            "set_default_tensor_type is deprecated since 2.1: call torch.set_default_dtype(torch.float32/float64/…) "
            'and, for CUDA types, torch.set_default_device("cuda") instead',
        )


PASS.uses(SetDefaultTensorType)
