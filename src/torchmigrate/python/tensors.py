"""Whether an expression is *visibly* a ``torch.Tensor``, for passes that rewrite Tensor methods.

A method call such as ``A.cholesky()`` can only be rewritten when the receiver is known to be a tensor: without types
it cannot be told from a look-alike (``scipy.linalg``, a gpytorch operator, a class of the project's own). The
evidence accepted here is local and syntactic — what a reader sees without running anything:

- a call of a torch function that always returns a tensor (``torch.randn(...)``, ``torch.tensor(...)``, …);
- a tensor-returning method or attribute on a visible tensor (``A.double()``, ``A.mT``, ``A[0]``), arithmetic or
  ``@`` with a visible tensor operand;
- a name whose every assignment in its scope is one of those, or a parameter (or variable) annotated ``torch.Tensor``.

Anything else (attributes of ``self``, function results, loop variables) is not evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

if TYPE_CHECKING:
    from torchmigrate.python.transform import PassTransformer

__all__ = ["TENSOR_FACTORIES", "imports_torch", "is_instance", "is_tensor"]

# torch functions whose result is always a Tensor (checked on torch 2.13: each returns a Tensor for any valid input).
TENSOR_FACTORIES = frozenset(
    "torch." + name
    for name in (
        "tensor as_tensor from_numpy randn rand randint randperm randn_like rand_like randint_like zeros ones empty "
        "full zeros_like ones_like empty_like full_like eye arange linspace logspace stack cat concat concatenate "
        "hstack vstack matmul mm bmm mv outer diag diag_embed tril triu cdist einsum kron cholesky_inverse "
        "linalg.cholesky linalg.inv linalg.pinv linalg.matrix_exp linalg.solve linalg.multi_dot linalg.matrix_power "
        "sqrt exp log abs sin cos tanh sigmoid softmax clone"
    ).split()
)
# Methods and attributes that return a Tensor when called on one.
TENSOR_METHODS = frozenset(
    "float double half bfloat16 cfloat cdouble to cuda cpu clone detach contiguous t transpose permute reshape view "
    "view_as expand squeeze unsqueeze flatten abs sqrt exp matmul mm bmm add sub mul div neg pow softmax tril triu "
    "requires_grad_ type_as".split()
)
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)
_TENSOR_TYPES = frozenset({"torch.Tensor", "torch._tensor.Tensor"})


def is_tensor(transformer: PassTransformer, node: cst.BaseExpression, _seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``node`` (a node of the *original* tree) is visibly a ``torch.Tensor`` (see the module docstring)."""
    if id(node) in _seen or len(_seen) > 20:
        return False
    seen = _seen | {id(node)}
    if isinstance(node, cst.Call):
        func = node.func
        if transformer.qualname(func) in TENSOR_FACTORIES:
            return True
        return isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS and is_tensor(transformer, func.value, seen)
    if isinstance(node, cst.Attribute):
        return node.attr.value in TENSOR_ATTRIBUTES and is_tensor(transformer, node.value, seen)
    if isinstance(node, cst.Subscript):
        return is_tensor(transformer, node.value, seen)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return is_tensor(transformer, node.left, seen) or is_tensor(transformer, node.right, seen)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return is_tensor(transformer, node.expression, seen)
    if isinstance(node, cst.Name):
        return _name_is(transformer, node, _TENSOR_TYPES, lambda value: is_tensor(transformer, value, seen))
    return False


def is_instance(transformer: PassTransformer, node: cst.BaseExpression, classes: frozenset[str]) -> bool:
    """Whether ``node`` is visibly an instance of one of ``classes`` (qualified names): a call of the class, or a name
    every assignment of which is one (or that is annotated with the class)."""
    def built(value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Call) and transformer.qualname(value.func) in classes

    if built(node):
        return True
    return isinstance(node, cst.Name) and _name_is(transformer, node, classes, built)


def _annotated(transformer: PassTransformer, annotation: cst.Annotation | None, types: frozenset[str]) -> bool:
    return annotation is not None and transformer.qualname(annotation.annotation) in types


def _name_is(
    transformer: PassTransformer, node: cst.Name, types: frozenset[str], value_is: Callable[[cst.BaseExpression], bool]
) -> bool:
    scope = transformer.get_metadata(ScopeProvider, node, None)
    if scope is None:
        return False
    positive = False
    for assignment in scope[node.value]:
        target = getattr(assignment, "node", None)
        if isinstance(target, cst.Param):
            if not _annotated(transformer, target.annotation, types):
                return False
            positive = True
            continue
        if not isinstance(target, cst.Name):
            return False
        parent = transformer.get_metadata(ParentNodeProvider, target, None)
        if isinstance(parent, cst.AnnAssign):
            if not (_annotated(transformer, parent.annotation, types) or (parent.value is not None and value_is(parent.value))):
                return False
            positive = True
            continue
        if isinstance(parent, cst.AssignTarget):
            statement = transformer.get_metadata(ParentNodeProvider, parent, None)
            if not (isinstance(statement, cst.Assign) and value_is(statement.value)):
                return False
            positive = True
            continue
        if isinstance(parent, cst.AugAssign):
            continue  # `x += ...` keeps a tensor a tensor; the other assignments decide
        return False  # loop targets, `with ... as x`, imports, definitions: not evidence
    return positive


def imports_torch(module: cst.Module) -> bool:
    """Whether the module imports torch at its top level (``import torch…`` or ``from torch… import …``): findings about
    methods that may belong to a tensor are only worth reporting in such files."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                if any(_root(alias.name) == "torch" for alias in small.names):
                    return True
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                if _root(small.module) == "torch":
                    return True
    return False


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""
