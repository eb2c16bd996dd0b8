"""`torch.norm` is deprecated: use `torch.linalg.vector_norm` (or `matrix_norm` for the nuclear norm).

## What it does
Rewrites the forms whose result is the same, to the call `torch.norm` itself makes on torch 2.0+:

| before | after |
|---|---|
| `torch.norm(x)` / `torch.norm(x, p="fro")` / `torch.norm(x, p=None)` | `torch.linalg.vector_norm(x)` |
| `torch.norm(x, dim=1, keepdim=True)` | `torch.linalg.vector_norm(x, dim=1, keepdim=True)` |
| `torch.norm(x, 2, 1)` / `torch.norm(x, p=1, dim=(0, 1))` | `torch.linalg.vector_norm(x, 2, 1)` / `torch.linalg.vector_norm(x, ord=1, dim=(0, 1))` |
| `torch.norm(x, "fro", 1)` | `torch.linalg.vector_norm(x, 2, 1)` |
| `torch.norm(A, "nuc")` / `torch.norm(A, p="nuc", dim=(1, 2))` | `torch.linalg.matrix_norm(A, "nuc")` / `torch.linalg.matrix_norm(A, ord="nuc", dim=(1, 2))` |
| `torch.norm(x, p, d, k, out, dtype)` (positional `out`, `dtype`) | `torch.linalg.vector_norm(x, p, d, k, dtype=dtype, out=out)` |

`p` must be visibly a number (`2`, `0.5`, `-1`, `float("inf")`, `math.inf`, `torch.inf`, `np.inf`, negated or not),
`None`, `"fro"` or `"nuc"`. The tensor method `x.norm(...)` (parameters `p, dim, keepdim, dtype`) is rewritten the
same way only where `x` is visibly a tensor: a parameter or variable annotated `torch.Tensor` (and not reassigned),
a tensor made by a torch function in the expression itself (`torch.stack(grads).norm()`), or `.data`, `.grad`,
`.detach()`, `.float()`, … of one of those. Anything else with a `.norm` method — `self.norm(x)` on a `LayerNorm`, a
module attribute, an object of unknown type — is left alone.

Findings, with what to write: `p` given by a variable or an expression (a number becomes `vector_norm(x, p, …)`, but
`"fro"` and `"nuc"` need other calls), `"fro"` over three or more dimensions (an error in `torch.norm`), another string,
`*args` / `**kwargs`, and every `torch.norm` call in a file that mentions sparse tensors (see Fix safety).

## Why
`torch.norm` is documented as deprecated ("torch.norm is deprecated and may be removed in a future PyTorch release.
Its documentation and behavior may be incorrect … Use torch.linalg.vector_norm … and torch.linalg.matrix_norm";
docs deprecation pytorch/pytorch#45415, 1.7, extended in #63310). It does not warn. Since PyTorch 2.0
(pytorch/pytorch#81761, relanded as #84624) it is implemented by dispatching to exactly these calls: on a strided
tensor on the CPU, CUDA, XPU or meta device, `torch/functional.py` calls `torch.linalg.vector_norm(input, 2, dim,
keepdim, dtype=dtype[, out=out])` for `"fro"` over at most two dimensions, `matrix_norm(input, p, dim, keepdim, …)` for
`"nuc"` (and for `"fro"` over more dimensions, which raises), and `vector_norm(input, 2.0 if p is None else p, dim,
keepdim, …)` for a number. `Tensor.norm` is `torch.norm(self, p, dim, keepdim, dtype=dtype)`. The deprecation predates
1.8, the oldest release this tool knows, so the pass is filed under 1.8; it emits only for code on 2.0 or later
(`since`), where the results are the same.

## Fix safety
Safe for the forms above: the rewrite is the call `torch.norm` makes (checked on torch 2.13: equal results, dtypes and
gradients for dims, keepdim, dtype, out, `"nuc"` with and without dim, `p` of 0, 1, 2, 3, 0.5, ±inf). Two inputs take
other paths in `torch.norm`: sparse tensors, where `linalg` has no kernel (`NotImplementedError`), hence the finding in
files that mention `sparse`; and tensors on other devices (MPS), where the older kernels may round differently in the
last bits. A `"nuc"` or `"fro"` norm over the wrong number of dimensions raised before and may compute now.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import Bound, bind, dotted_name, fix_commas, make_kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

FUNCTIONS = ("torch.norm", "torch.functional.norm")
FUNCTION_PARAMS = ("input", "p", "dim", "keepdim", "out", "dtype")
METHOD_PARAMS = ("p", "dim", "keepdim", "dtype")
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# torch functions whose result is a tensor: a receiver built by one of them is visibly a tensor.
TENSOR_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "arange as_tensor cat concat concatenate diag empty eye from_numpy full linspace ones rand randint randn "
        "stack tensor zeros empty_like full_like ones_like rand_like randn_like zeros_like"
    ).split()
)
# Methods and attributes of a tensor that give a tensor of the same kind.
TENSOR_METHODS = frozenset(
    "abs bfloat16 clone contiguous cpu cuda detach double flatten float half reshape squeeze t to unsqueeze view".split()
)
TENSOR_ATTRIBUTES = frozenset({"data", "grad", "T", "mT"})
INF_NAMES = frozenset({"math.inf", "torch.inf", "numpy.inf"})


# `.norm(` not right after `self`/`cls` (modules' norm layers), or an import of the name `norm`: a file without one
# has no site (the text filter spares the many model files whose only `.norm(` is `self.norm(x)` an ast parse).
# Written as two searches that each start with a literal (`norm`, `import`), which the regex engine finds fast; the
# lookbehinds then say what stands before it. The same files as
# `(?<!\bself)(?<!\bcls)\.norm\s*\(|\bimport\b[^;\n]*\bnorm\b|\bimport\s*\([^)]*\bnorm\b`, ten times faster.
_METHOD_SITE = re.compile(r"norm(?<=\.norm)(?<!\bself\.norm)(?<!\bcls\.norm)\s*\(")
_IMPORT_SITE = re.compile(r"import(?<=\bimport)(?:\b[^;\n]*\bnorm\b|\s*\([^)]*\bnorm\b)")


def _has_site(text: str) -> bool:
    return _METHOD_SITE.search(text) is not None or _IMPORT_SITE.search(text) is not None


def _method_site(call: ast.Call) -> bool:
    """``<something>.norm(...)`` that is not ``self.norm(...)`` or ``self.<attr>.norm(...)`` (modules, not tensors)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "norm":
        return False
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return not (isinstance(root, ast.Name) and root.id in ("self", "cls"))


# Sparse tensors: a layout, a constructor, a conversion or the module (`torch.sparse_coo`, `to_sparse()`,
# `torch.sparse.mm`, `sparse_coo_tensor`, `is_sparse`); not the `sparse=` flag of nn.Embedding (dense weights and
# outputs, a sparse gradient only), nor the word in comments of other code.
_SPARSE = re.compile(r"\bsparse_(?:coo|csr|csc|bsr|bsc)\b|to_sparse|\bsparse\.\w|\bsparse_\w*tensor|is_sparse")


PASS = Pass(
    id="torch-norm",
    release="1.8",
    since="2.0",
    kind=DEPRECATION,
    safety=SAFE,
    title='torch.norm(x, p, dim) → torch.linalg.vector_norm(x, p, dim) (matrix_norm for "nuc")',
    evidence=(
        "torch.norm docs deprecation (pytorch/pytorch#45415, #63310); torch.norm dispatches to linalg.vector_norm / "
        "matrix_norm since 2.0 (pytorch/pytorch#81761, #84624); torch 2.13.0 torch/functional.py norm and "
        "torch/_tensor.py Tensor.norm; TorchFix TOR101"
    ),
    # `torch.norm(` / `x.norm(` and the from-import forms
    triggers=(".norm(", "import norm", " norm,", " norm\n", " norm)", "(norm,"),
    qualnames=frozenset(FUNCTIONS),
    method_filter=_method_site,
    text_filter=_has_site,
    examples=[
        Example(
            title="defaults, dim and keepdim, a number",
            before="""
                import torch

                total = torch.norm(grads)
                unit = x / torch.norm(x, dim=-1, keepdim=True)
                l1 = torch.norm(w, p=1, dim=1)
                gn = torch.norm(g, 2, dtype=torch.float32)
            """,
            after="""
                import torch

                total = torch.linalg.vector_norm(grads)
                unit = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
                l1 = torch.linalg.vector_norm(w, ord=1, dim=1)
                gn = torch.linalg.vector_norm(g, 2, dtype=torch.float32)
            """,
        ),
        Example(
            title='"fro", None, infinity, "nuc"; positional out',
            before="""
                import math
                import torch

                a = torch.norm(m, p="fro")
                b = torch.norm(m, "fro", 1)
                c = torch.norm(v, p=None, dim=0)
                d = torch.norm(v, float("inf"))
                e = torch.norm(v, -math.inf, 0)
                f = torch.norm(m, "nuc")
                g = torch.norm(batch, p="nuc", dim=(1, 2), keepdim=True)
                torch.norm(v, 2, 0, False, buf)
            """,
            after="""
                import math
                import torch

                a = torch.linalg.vector_norm(m)
                b = torch.linalg.vector_norm(m, 2, 1)
                c = torch.linalg.vector_norm(v, dim=0)
                d = torch.linalg.vector_norm(v, float("inf"))
                e = torch.linalg.vector_norm(v, -math.inf, 0)
                f = torch.linalg.matrix_norm(m, "nuc")
                g = torch.linalg.matrix_norm(batch, ord="nuc", dim=(1, 2), keepdim=True)
                torch.linalg.vector_norm(v, 2, 0, False, out=buf)
            """,
        ),
        Example(
            title="a call over several lines whose last argument goes",
            before="""
                import torch

                norm = torch.norm(
                    torch.stack([g.norm(p=2) for g in grads]),
                    p="fro",
                )
            """,
            after="""
                import torch

                norm = torch.linalg.vector_norm(
                    torch.stack([g.norm(p=2) for g in grads]),
                )
            """,
        ),
        Example(
            title="import torch as th; from torch import norm",
            before="""
                import torch as th
                from torch import norm

                n1 = th.norm(x, dim=1)
                n2 = norm(y)
            """,
            after="""
                import torch as th

                n1 = th.linalg.vector_norm(x, dim=1)
                n2 = th.linalg.vector_norm(y)
            """,
        ),
        Example(
            title="from torch import norm, without a module import",
            before="""
                from torch import norm

                n = norm(y, p=2, dim=1)
            """,
            after="""
                from torch.linalg import vector_norm

                n = vector_norm(y, ord=2, dim=1)
            """,
        ),
        Example(
            title="tensor methods, where the receiver is visibly a tensor",
            before="""
                import torch
                from torch import Tensor

                def cosine(a: torch.Tensor, b: Tensor) -> torch.Tensor:
                    return (a * b).sum() / (a.norm(dim=-1) * b.norm(p=2, dim=-1))

                def grad_norm(params: list, w: torch.nn.Parameter) -> torch.Tensor:
                    return torch.stack([p.grad.norm() for p in params]).norm() + w.grad.detach().norm(2)
            """,
            after="""
                import torch
                from torch import Tensor

                def cosine(a: torch.Tensor, b: Tensor) -> torch.Tensor:
                    return (a * b).sum() / (torch.linalg.vector_norm(a, dim=-1) * torch.linalg.vector_norm(b, ord=2, dim=-1))

                def grad_norm(params: list, w: torch.nn.Parameter) -> torch.Tensor:
                    return torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params])) + torch.linalg.vector_norm(w.grad.detach(), 2)
            """,
        ),
        Example(
            title="p from a variable, an unknown string, fro over three dims: findings",
            before="""
                import torch

                n = torch.norm(param.grad, p=norm_type)
                m = torch.norm(x, "max")
                k = torch.norm(x, "fro", dim=(0, 1, 2))
            """,
            findings=3,
        ),
        Example(
            title="a file that uses sparse tensors: finding",
            before="""
                import torch

                s = torch.eye(3).to_sparse()
                n = torch.norm(s)
            """,
            findings=1,
        ),
        Example(
            title="nn.Embedding's sparse= flag is no sparse tensor (huggingface/peft)",
            before="""
                import torch
                from torch import nn

                emb = nn.Embedding(3, 4, sparse=layer.sparse)
                n = torch.norm(emb.weight, dim=(0, 1))
            """,
            after="""
                import torch
                from torch import nn

                emb = nn.Embedding(3, 4, sparse=layer.sparse)
                n = torch.linalg.vector_norm(emb.weight, dim=(0, 1))
            """,
        ),
        Unchanged(
            """
            import torch
            from torch import nn

            class Block(nn.Module):
                def __init__(self, dim: int) -> None:
                    super().__init__()
                    self.norm = nn.LayerNorm(dim)

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    x = self.proj(x)
                    return self.norm(x) + x.norm(dim=-1, keepdim=True)

            def clip(model, y):
                return y.norm(), model.norm(2), torch.linalg.norm(y)
            """,
            title="look-alikes: self.norm on a LayerNorm, a reassigned parameter, receivers of unknown type",
        ),
    ],
)

_NUMBER = (cst.Integer, cst.Float)


def _number(node: cst.BaseExpression, t: PassTransformer) -> bool:
    """``node`` is visibly a number: a literal, ``float("inf")``, ``math.inf`` & co., negated or not."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return _number(node.expression, t)
    if isinstance(node, _NUMBER):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float":
        if len(node.args) == 1 and isinstance(node.args[0].value, cst.SimpleString) and t.qualname(node.func) is None:
            return str(node.args[0].value.evaluated_value).strip().lower() in ("inf", "-inf", "+inf", "infinity", "-infinity")
        return False
    if isinstance(node, cst.Attribute | cst.Name):
        return t.qualname(node) in INF_NAMES
    return False


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _literal_dims(node: cst.BaseExpression) -> int | None:
    """How many dimensions a literal ``dim`` names (``1`` → 1, ``(0, 1)`` → 2), or ``None`` when it is not a literal."""
    if isinstance(node, cst.Integer) or (isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer)):
        return 1
    if isinstance(node, cst.Tuple | cst.List):
        return len(node.elements)
    return None


class _Plan:
    """How one call maps: the function to call and its arguments."""

    def __init__(self, function: str, args: list[cst.Arg], message: str) -> None:
        self.function, self.args, self.message = function, args, message


def _keyword(arg: cst.Arg, name: str) -> cst.Arg:
    if arg.keyword is not None:
        return arg.with_changes(keyword=cst.Name(name))
    return make_kwarg(name, arg.value).with_changes(comma=arg.comma)


def _plan(bound: Bound, params: tuple[str, ...], first: cst.Arg, t: PassTransformer) -> _Plan | str:
    """The rewrite of a bound ``torch.norm`` / ``Tensor.norm`` call, or the reason (a finding) why there is none."""
    if bound.star:
        return "torch.norm(*args/**kwargs): write torch.linalg.vector_norm(x, ord, dim, keepdim) (matrix_norm for 'nuc')"
    if not bound.exact:
        return "torch.norm with arguments it does not take: check the call"
    p, dim = bound.get("p"), bound.get("dim")
    positional = {name for name, a in bound.args.items() if a.keyword is None}
    kind = "fro" if p is None else None
    if p is not None:
        text = _string(p.value)
        if _is_none(p.value):
            kind = "none"
        elif text is not None:
            kind = text if text in ("fro", "nuc") else "bad"
        elif _number(p.value, t):
            kind = "number"
    if kind is None:
        return (
            "torch.norm(x, p=<expression>): if p is a number write torch.linalg.vector_norm(x, p, dim, keepdim); "
            "'fro' is vector_norm(x, 2, dim) over at most two dims, 'nuc' is torch.linalg.matrix_norm(x, 'nuc', dim)"
        )
    if kind == "bad":
        return "torch.norm accepts only 'fro' and 'nuc' as strings: this call raises; use torch.linalg.matrix_norm"
    if kind == "fro" and dim is not None and (_literal_dims(dim.value) or 0) > 2:
        return "torch.norm(x, 'fro', dim) over three or more dims raises: use torch.linalg.vector_norm(x, 2, dim) if meant"
    ordered = [name for name in params if name in ("p", "dim", "keepdim")]
    args: list[cst.Arg] = [first]
    function = "torch.linalg.matrix_norm" if kind == "nuc" else "torch.linalg.vector_norm"
    for name in ordered:
        a = bound.get(name)
        if name == "p":
            if kind in ("fro", "none"):  # vector_norm's default ord is 2
                later = any(n in positional for n in ordered[ordered.index("p") + 1 :])
                if a is not None and later:
                    args.append(cst.Arg(cst.Integer("2")))
                continue
            assert a is not None
            args.append(a if a.keyword is None else _keyword(a, "ord"))
            continue
        if a is not None and name == "dim" and kind == "nuc" and _is_none(a.value):
            # torch.norm reads dim=None as every dim (an error unless there are two); matrix_norm takes no None
            if "keepdim" in positional:
                args.append(a.with_changes(value=cst.parse_expression("(-2, -1)")))
            continue
        if a is not None:
            args.append(a)
    for name in ("dtype", "out"):
        a = bound.get(name)
        if a is not None:
            args.append(a if a.keyword is not None else _keyword(a, name))
    old = "torch.norm" if "input" in params else "Tensor.norm"
    return _Plan(function, args, f"{old} → {function} (the call {old} makes since 2.0)")


def detect(file: AstFile) -> Iterator[Site]:
    """A bound on the calls the transformer edits or reports: ``torch.norm(...)`` (any import form), and
    ``x.norm(...)`` where ``x`` may be visibly a tensor by the transformer's rules (a torch constructor, a tensor
    method or attribute of one, a name annotated ``torch.Tensor`` somewhere in the file)."""
    annotated: set[str] | None = None
    for node in file.walk():
        if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
            continue
        func = node.func
        if _dotted(func) and file.qualname(func) in FUNCTIONS:
            yield file.edit(node)
        elif isinstance(func, ast.Attribute) and func.attr == "norm":
            if annotated is None:
                annotated = _tensor_annotated(file)
            if _maybe_tensor(file, func.value, annotated):
                yield file.edit(node)


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _maybe_tensor(file: AstFile, node: ast.expr, annotated: set[str]) -> bool:
    if isinstance(node, ast.Call):
        callee = node.func
        if isinstance(callee, ast.Attribute) and callee.attr in TENSOR_METHODS:
            return _maybe_tensor(file, callee.value, annotated) or (_dotted(callee) and file.qualname(callee) in TENSOR_FUNCTIONS)
        return isinstance(callee, (ast.Name, ast.Attribute)) and _dotted(callee) and file.qualname(callee) in TENSOR_FUNCTIONS
    if isinstance(node, ast.Attribute):
        return node.attr in TENSOR_ATTRIBUTES and _maybe_tensor(file, node.value, annotated)
    return isinstance(node, ast.Name) and node.id in annotated


def _tensor_annotated(file: AstFile) -> set[str]:
    """Names that a parameter or an annotated assignment anywhere in the file annotates with a tensor type."""
    names: set[str] = set()
    for node in file.nodes:
        if isinstance(node, ast.arg) and node.annotation is not None:
            target, annotation = node.arg, node.annotation
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, annotation = node.target.id, node.annotation
        else:
            continue
        if isinstance(annotation, (ast.Name, ast.Attribute)) and file.qualname(annotation) in TENSOR_TYPES:
            names.add(target)
    return names


PASS.analyse = analyser(PASS.id, detect)


@PASS.uses
class Norms(PassTransformer):
    def visit_Module(self, node: cst.Module) -> None:
        # whether the file mentions sparse tensors anywhere (the statements a slice left out too) decides between an
        # edit and a finding
        self._sparse = self.whole_text_has(lambda text: _SPARSE.search(text) is not None)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if not isinstance(func, cst.Name | cst.Attribute) or not self.allowed(original_node):
            return updated_node
        name = self._name(func)
        # decisions look at the original call (metadata lives there); the new call is built from the updated one
        if name in FUNCTIONS:
            bound = bind(original_node, FUNCTION_PARAMS)
            first = bound.get("input")
            if first is None and not bound.star:
                return updated_node
            lead = cst.Arg(cst.Name("_")) if first is None else first.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
            plan: _Plan | str = _plan(bound, FUNCTION_PARAMS, lead, self)
        elif name is None and isinstance(func, cst.Attribute) and func.attr.value == "norm" and self._tensor(func.value):
            bound = bind(original_node, METHOD_PARAMS)
            receiver = updated_node.func.value  # type: ignore[attr-defined]
            plan = _plan(bound, METHOD_PARAMS, cst.Arg(receiver.with_changes(lpar=[], rpar=[]) if _bare(receiver) else receiver), self)
        else:
            return updated_node
        if isinstance(plan, str):
            self.finding(original_node, plan)
            return updated_node
        if self._sparse:
            self.finding(
                original_node,
                "torch.norm in a file that uses sparse tensors: torch.linalg has no sparse kernel; if the input is "
                f"dense, write {plan.function}(...) (the call torch.norm makes since 2.0)",
            )
            return updated_node
        self.edited(original_node, plan.message)
        if name is not None:
            self.drop_imports_of(func)
        args = [_updated(a, original_node, updated_node) for a in plan.args]
        last = original_node.args[-1] if original_node.args else None
        if last is not None and not any(a is last for a in plan.args):  # the last argument went: keep the closing layout
            args[-1] = args[-1].with_changes(comma=last.comma, whitespace_after_arg=last.whitespace_after_arg)
        return cst.Call(
            func=self.ref(plan.function, like=func if name is not None else None),
            args=fix_commas(args),
            lpar=updated_node.lpar,
            rpar=updated_node.rpar,
            whitespace_after_func=updated_node.whitespace_after_func,
            whitespace_before_args=updated_node.whitespace_before_args,
        )

    def _name(self, node: cst.BaseExpression) -> str | None:
        """The import-based name of a plain ``a.b.c`` chain (libcst also names ``torch.stack(x).norm``
        ``torch.stack.norm``: an attribute of a call's result is no import)."""
        return self.qualname(node) if dotted_name(node) is not None else None

    # -- is the receiver visibly a tensor? --
    def _tensor(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            callee = node.func
            if isinstance(callee, cst.Attribute) and callee.attr.value in TENSOR_METHODS and self._name(callee) is None:
                return self._tensor(callee.value)
            return isinstance(callee, cst.Name | cst.Attribute) and self._name(callee) in TENSOR_FUNCTIONS
        if isinstance(node, cst.Attribute):
            return node.attr.value in TENSOR_ATTRIBUTES and self._name(node) is None and self._tensor(node.value)
        if isinstance(node, cst.Name):
            return self._annotated_tensor(node)
        return False

    def _annotated_tensor(self, name: cst.Name) -> bool:
        """``name`` is bound once in its scope, by a parameter or an assignment annotated ``torch.Tensor``."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return False
        assignments = list(scope[name.value])
        if len(assignments) != 1:
            return False
        target = getattr(assignments[0], "node", None)
        annotation: cst.Annotation | None = None
        if isinstance(target, cst.Param):
            annotation = target.annotation
        elif isinstance(target, cst.Name):
            parent = self.get_metadata(ParentNodeProvider, target, None)
            if isinstance(parent, cst.AnnAssign) and parent.target is target:
                annotation = parent.annotation
        if annotation is None:
            return False
        kind = annotation.annotation
        return isinstance(kind, cst.Name | cst.Attribute) and self.qualname(kind) in TENSOR_TYPES


def _updated(arg: cst.Arg, original: cst.Call, updated: cst.Call) -> cst.Arg:
    """``arg`` (built from the original call) with the updated call's version of the expressions it holds."""
    values = {id(o.value): u.value for o, u in zip(original.args, updated.args, strict=True)}
    if isinstance(original.func, cst.Attribute) and isinstance(updated.func, cst.Attribute):
        values[id(original.func.value)] = updated.func.value
    found = values.get(id(arg.value))
    return arg if found is None else arg.with_changes(value=found)


def _bare(node: cst.BaseExpression) -> bool:
    """A parenthesized receiver (``(a * b).norm()``) needs no parentheses as the first argument."""
    return bool(node.lpar) and not isinstance(node, cst.Tuple | cst.GeneratorExp)

