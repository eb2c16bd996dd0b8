"""What jit-to-export can see of a value in the stdlib ``ast``: an ``nn.Module`` instance or not, the kind and shapes
of example inputs, data-dependent branches in a traced ``forward``. Everything here answers "visibly" or "cannot
tell"; the analysis (:mod:`.analysis`) never guesses past it."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from torchmigrate.python.astscope import Names

__all__ = ["Bound", "Example", "bind", "branch_problem", "input_kind", "module_kind", "same_shapes"]

_FACTORY_NAMES = "randn rand zeros ones empty full arange linspace eye randint randperm".split()
TENSOR_FACTORIES = frozenset(f"torch.{n}" for n in _FACTORY_NAMES)
LIKE_FACTORIES = frozenset(f"torch.{n}_like" for n in "randn rand zeros ones empty full randint".split())
VALUE_FACTORIES = frozenset(f"torch.{n}" for n in "tensor as_tensor from_numpy stack cat".split())
# Methods that keep a tensor's shape (and dtype, for the first group).
SAME_TENSOR = frozenset("to cuda cpu contiguous detach clone requires_grad_".split())
DTYPE_METHODS = frozenset("float half double long int bool bfloat16".split())
RESHAPING = frozenset("unsqueeze view reshape permute transpose".split())
MODULE_METHODS = frozenset({"eval", "train", "to", "cpu", "cuda", "float", "half", "double", "requires_grad_"})
NOT_MODULES = frozenset({"Parameter", "ParameterList", "ParameterDict", "Buffer", "UninitializedParameter"})
STATIC_ATTRS = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse"})
STATIC_METHODS = frozenset({"size", "dim", "numel", "is_floating_point", "is_contiguous", "get_device", "nelement"})
STATIC_FUNCS = frozenset({"isinstance", "len", "hasattr", "type", "callable", "getattr"})
TRACE_STATE = frozenset({"torch.jit.is_tracing", "torch.jit.is_scripting", "torch.jit._script.is_scripting"})


@dataclass(frozen=True)
class Bound:
    """A call's arguments bound to parameter names as Python binds them (see ``torchmigrate.python.helpers.bind``)."""

    args: dict[str, ast.expr]
    extra: tuple[ast.expr, ...] = ()
    unknown: tuple[ast.keyword, ...] = ()
    star: bool = False


def bind(call: ast.Call, params: Sequence[str]) -> Bound:
    bound: dict[str, ast.expr] = {}
    extra: list[ast.expr] = []
    unknown: list[ast.keyword] = []
    star = False
    index = 0
    for a in call.args:
        if isinstance(a, ast.Starred):
            star = True
            continue
        if star:
            continue
        if index < len(params):
            bound[params[index]] = a
        else:
            extra.append(a)
        index += 1
    for k in call.keywords:
        if k.arg is None:
            star = True
        elif k.arg in params and k.arg not in bound:
            bound[k.arg] = k.value
        else:
            unknown.append(k)
    return Bound(bound, tuple(extra), tuple(unknown), star)


# --- nn.Module instances -----------------------------------------------------------------------------------------


def _nn_class(qualname: str | None) -> bool:
    if not qualname or not qualname.startswith("torch.nn.") or qualname.startswith("torch.nn.functional."):
        return False
    last = qualname.rsplit(".", 1)[-1]
    return last[:1].isupper() and last not in NOT_MODULES


def module_class(cls: ast.ClassDef, names: Names, depth: int = 0) -> bool:
    """Whether a class of this file visibly subclasses ``torch.nn.Module`` (directly or through local classes)."""
    if depth > 5:
        return False
    for base in cls.bases:
        if _nn_class(names.qualname(base)):
            return True
        local = names.only_binding(base) if isinstance(base, ast.Name) else None
        if isinstance(local, ast.ClassDef) and module_class(local, names, depth + 1):
            return True
    return False


def _annotated_module(annotation: ast.expr, names: Names) -> tuple[bool, ast.ClassDef | None]:
    if _nn_class(names.qualname(annotation)):
        return True, None
    local = names.only_binding(annotation) if isinstance(annotation, ast.Name) else None
    if isinstance(local, ast.ClassDef) and module_class(local, names):
        return True, local
    return False, None


def module_kind(expr: ast.expr, names: Names, depth: int = 0) -> tuple[str | None, ast.ClassDef | None]:
    """``("module", cls)`` for a visible nn.Module instance (``cls``: its class when defined in this file),
    ``("forward", cls)`` for such a module's ``.forward``, ``("function" | "attribute", None)`` for what export cannot
    take, ``(None, None)`` when it cannot be seen."""
    if depth > 5:
        return None, None
    if isinstance(expr, ast.Lambda):
        return "function", None
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in MODULE_METHODS:
            kind, cls = module_kind(func.value, names, depth + 1)
            return (kind, cls) if kind == "module" else (None, None)
        if _nn_class(names.qualname(func)):
            return "module", None
        local = names.only_binding(func) if isinstance(func, ast.Name) else None
        if isinstance(local, ast.ClassDef) and module_class(local, names):
            return "module", local
        return None, None
    if isinstance(expr, ast.Name):
        binding = names.reaching_binding(expr)
        if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return "function", None
        annotation = names.annotation(binding) if binding is not None else None
        if annotation is not None:
            found, cls = _annotated_module(annotation, names)
            return ("module", cls) if found else (None, None)
        value = names.assigned_value(binding) if binding is not None else None
        if isinstance(value, ast.Lambda):
            return "function", None
        return module_kind(value, names, depth + 1) if value is not None else (None, None)
    if isinstance(expr, ast.Attribute):
        if expr.attr == "forward":
            kind, cls = module_kind(expr.value, names, depth + 1)
            if kind == "module":
                return "forward", cls
        return "attribute", None
    return None, None


# --- example inputs ----------------------------------------------------------------------------------------------


def input_kind(expr: ast.expr, names: Names, depth: int = 0) -> str | None:
    """``tuple``, ``list``, ``single`` (one value: it becomes a 1-tuple), or None when it cannot be seen."""
    if isinstance(expr, ast.Tuple):
        return "tuple"
    if isinstance(expr, ast.List):
        return "list"
    if isinstance(expr, (ast.Dict, ast.DictComp)):
        return "single"  # jit.trace wraps a dict like a tensor
    if isinstance(expr, ast.Call):
        callee = names.qualname(expr.func)
        if callee in TENSOR_FACTORIES or callee in LIKE_FACTORIES or callee in VALUE_FACTORIES:
            return "single"
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in SAME_TENSOR | DTYPE_METHODS | RESHAPING and depth < 4:
            return "single" if input_kind(func.value, names, depth + 1) == "single" else None
        return None
    if isinstance(expr, ast.Name) and depth < 4:
        binding = names.reaching_binding(expr)
        if binding is None:
            return None
        annotation = names.annotation(binding)
        if annotation is not None:
            return _annotation_kind(annotation, names)
        value = names.assigned_value(binding)
        return None if value is None else input_kind(value, names, depth + 1)
    return None


def _annotation_kind(annotation: ast.expr, names: Names) -> str | None:
    if names.qualname(annotation) == "torch.Tensor":
        return "single"
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    if (isinstance(base, ast.Name) and base.id in {"tuple", "Tuple"}) or names.qualname(base) == "typing.Tuple":
        return "tuple"
    return None


@dataclass(frozen=True)
class Example:
    """The example inputs of a trace, as far as they can be listed: ``args`` (``None`` when they cannot, e.g. a
    tuple-annotated parameter: then only ``traced(*whole)`` matches), ``kwargs`` (``example_kwarg_inputs``)."""

    args: tuple[ast.expr, ...] | None
    kwargs: ast.expr | None = None
    whole: ast.expr | None = None

    @staticmethod
    def of(inputs: ast.expr, kind: str, names: Names) -> Example:
        if kind == "single":
            return Example((inputs,), whole=inputs)
        value: ast.expr | None = inputs
        if isinstance(inputs, ast.Name):
            binding = names.reaching_binding(inputs)
            value = names.assigned_value(binding) if binding is not None else None
        if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
            return Example(tuple(value.elts), whole=inputs)
        return Example(None, whole=inputs)


def _dtype(call: ast.Call) -> str:
    return next((ast.dump(k.value) for k in call.keywords if k.arg == "dtype"), "")


def shape_key(expr: ast.expr, names: Names, depth: int = 0) -> tuple[object, ...] | None:
    """What visibly fixes ``expr``'s shape (and dtype): equal keys mean the same shapes; ``None``: cannot tell."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Name):
        if names.resolve(expr) is None:
            return ("free", expr.id)  # not bound in this file: the same value wherever it is named
        binding = names.reaching_binding(expr)
        if binding is None:
            return None
        value = names.assigned_value(binding)
        if isinstance(value, ast.Call):
            found = shape_key(value, names, depth + 1)
            if found is not None and found[0] == "shape":
                return found
        return ("binding", id(binding))
    if isinstance(expr, ast.Call):
        callee = names.qualname(expr.func)
        if callee in TENSOR_FACTORIES:
            sizes = [a for a in expr.args] + [k.value for k in expr.keywords if k.arg == "size"]
            if all(isinstance(s, (ast.Constant, ast.Tuple, ast.List)) for s in sizes):
                return ("shape", callee if callee in ("torch.arange", "torch.linspace", "torch.eye") else "", ast.dump(ast.Tuple(sizes)), _dtype(expr))
            return None
        if callee in LIKE_FACTORIES and expr.args:
            inner = shape_key(expr.args[0], names, depth + 1)
            return None if inner is None else (*inner, _dtype(expr))
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in SAME_TENSOR | DTYPE_METHODS:
            inner = shape_key(func.value, names, depth + 1)
            if inner is None:
                return None
            return inner if func.attr in SAME_TENSOR else (*inner, func.attr)
    return None


def _same(a: ast.expr, b: ast.expr, names: Names) -> bool:
    key = shape_key(a, names)
    return key is not None and key == shape_key(b, names)


def same_shapes(call: ast.Call, example: Example, names: Names) -> bool:
    """Whether every argument of ``call`` visibly has the shape of the matching example input."""
    if len(call.args) == 1 and isinstance(call.args[0], ast.Starred) and not call.keywords and example.whole is not None:
        return _same(call.args[0].value, example.whole, names)  # `traced(*inputs)` with the example's own `inputs`
    if example.args is None:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) != len(example.args):
        return False
    if not all(_same(a, e, names) for a, e in zip(call.args, example.args, strict=True)):
        return False
    given = {k.arg: k.value for k in call.keywords}
    if None in given:
        return False
    if example.kwargs is None:
        return not given
    if not isinstance(example.kwargs, ast.Dict):
        return False
    expected: dict[str | None, ast.expr] = {}
    for key, value in zip(example.kwargs.keys, example.kwargs.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return False
        expected[key.value] = value
    return expected.keys() == given.keys() and all(_same(given[k], expected[k], names) for k in given)


# --- data-dependent control flow ---------------------------------------------------------------------------------


class _BranchFinder:
    """The first ``if``/``while``/ternary in a ``forward`` whose test depends on the *data* of a tensor argument, or
    that asks ``torch.jit.is_tracing()`` / ``is_scripting()``."""

    def __init__(self, tensors: set[str], names: Names) -> None:
        self.tensors = tensors
        self.names = names

    def find(self, body: list[ast.stmt]) -> tuple[ast.AST, str] | None:
        stack: list[ast.AST] = list(reversed(body))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Call) and self.names.qualname(node.func) in TRACE_STATE:
                return node, f"it asks {ast.unparse(node)}, which is False under torch.export"
            if isinstance(node, (ast.If, ast.While, ast.IfExp)) and self.depends(node.test):
                keyword = "while" if isinstance(node, ast.While) else "if"
                return node.test, f"it branches on tensor data (`{keyword} {' '.join(ast.unparse(node.test).split())[:60]}`)"
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
        return None

    def depends(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in self.tensors
        if isinstance(expr, ast.Attribute):
            return False if expr.attr in STATIC_ATTRS else self.depends(expr.value)
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name) and func.id in STATIC_FUNCS:
                return False
            if isinstance(func, ast.Attribute) and func.attr in STATIC_METHODS:
                return False
            return self.depends(func) or any(self.depends(a) for a in expr.args)
        if isinstance(expr, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in expr.ops):
                return False
            return self.depends(expr.left) or any(self.depends(c) for c in expr.comparators)
        if isinstance(expr, ast.Subscript):
            return self.depends(expr.value)
        if isinstance(expr, ast.BoolOp):
            return any(self.depends(v) for v in expr.values)
        if isinstance(expr, ast.BinOp):
            return self.depends(expr.left) or self.depends(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return self.depends(expr.operand)
        return False


def branch_problem(cls: ast.ClassDef | None, names: Names) -> str | None:
    """Why the ``forward`` of the traced model's class (defined in this file) cannot be exported as it was traced."""
    if cls is None:
        return None
    forward = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None)
    if forward is None:
        return None
    params = [*forward.args.posonlyargs, *forward.args.args, *forward.args.kwonlyargs][1:]
    defaults = len(forward.args.defaults)
    positional = [*forward.args.posonlyargs, *forward.args.args]
    with_default = {a.arg for a in positional[len(positional) - defaults :]} if defaults else set()
    with_default |= {a.arg for a, d in zip(forward.args.kwonlyargs, forward.args.kw_defaults, strict=True) if d is not None}
    tensors: set[str] = set()
    for param in params:
        if param.annotation is not None:
            if "Tensor" in ast.unparse(param.annotation):
                tensors.add(param.arg)
        elif param.arg not in with_default:
            tensors.add(param.arg)
    found = _BranchFinder(tensors, names).find(forward.body)
    if found is None:
        return None
    node, what = found
    return (
        f"`{cls.name}.forward` {what}, line {getattr(node, 'lineno', 0)}: torch.jit.trace recorded only the branch its "
        "example took, and torch.export.export rejects data-dependent control flow. Express the branch with torch.cond "
        "(or torch.where), then export (torch.export.export(model, args, dynamic_shapes=...))"
    )
