"""TorchScript (`torch.jit.trace` / `script` / `save` / `load`) is deprecated since PyTorch 2.10: use `torch.export` or `torch.compile`.

## What it does
- `traced = torch.jit.trace(model, x)` whose result is only called becomes
  `traced = torch.export.export(model, (x,)).module()`, so `traced(x)` keeps working. A tuple of example inputs stays
  the tuple, a single input becomes a 1-tuple, a list `[a, b]` becomes `(a, b)`; `example_kwarg_inputs=` becomes
  `kwargs=`. `check_trace`, `check_inputs`, `check_tolerance`, `strict` and `optimize` have no torch.export
  equivalent and are dropped (the edit says so).
- When the traced result is saved (`torch.jit.save(traced, path)` or `traced.save(path)`), the `ExportedProgram` is
  kept: `traced = torch.export.export(model, (x,))`, the save becomes `torch.export.save(traced, path)`
  (`_extra_files=` → `extra_files=`) and calls become `traced.module()(x)`.
- `torch.jit.load(path)` becomes `torch.export.load(path).module()` when it *pairs* with a rewritten save: the
  same path expression (compared as code, formatting ignored, e.g. the literal `"model.pt"` or the name `path`) is
  passed to a `torch.jit.save` that this pass rewrote in the same file, and no save to that expression stays
  TorchScript. Any other `torch.jit.load` reads an existing TorchScript archive, which `torch.export.load` cannot
  read: a finding.
- `scripted = torch.jit.script(obj)` whose result is only called becomes `torch.compile(obj)`; a function decorated
  with `@torch.jit.script` that is only called gets `@torch.compile`.
- The kind of the example input must be visible: a tuple/list literal, a tensor factory call (`torch.randn(...)`,
  `torch.zeros(...)`, ...), a name with one visible assignment of such a value, or a parameter annotated
  `torch.Tensor` / `tuple[...]`. Otherwise the pass does not guess: a finding says how to write the call.

Findings instead of edits (where TorchScript stays, the finding names the route:
`torch.export.export(..., dynamic_shapes=...)` + `torch.export.save`, then AOTInductor or ExecuTorch to deploy):
- a traced or scripted result used in ways the pass cannot follow: returned, passed on, `.graph`, reassigned;
- a scripted object that is saved (`torch.jit.script` has no example inputs to export with);
- a `torch.jit.ScriptModule` subclass: one finding per class, covering its `@torch.jit.script_method`s;
- `@torch.jit.ignore` / `unused` / `export` in a file that also scripts (one finding per class or function); in a
  file that does not script they get no finding (they matter only if another file scripts that class);
- an `if`/`while` on the data of a tensor argument in the `forward` of a traced model defined in the same file
  (tracing recorded one branch; export rejects it): use `torch.cond`;
- tracing a plain function or lambda (`torch.export` takes only an `nn.Module`);
- a `torch.jit.load` of an archive the file does not write with torch.export.

Harmless helpers — `torch.jit.is_scripting()`, `torch.jit.is_tracing()`, `torch.jit.annotate`,
`isinstance(m, torch.jit.ScriptModule)` — get no finding. A file that keeps TorchScript scripting (a `ScriptModule`
subclass or a scripted object that is saved) keeps all of it: its other `torch.jit.script` uses get a finding rather
than `torch.compile`, because the remaining TorchScript code may call them.

## Why
PyTorch 2.10 deprecated the user-facing `torch.jit` API (pytorch/pytorch#167669): TorchScript is not guaranteed to
work on Python 3.14, and `torch.jit.trace/script/save/load` warn "`torch.jit.trace` is deprecated. Please switch to
`torch.compile` or `torch.export`." (checked on 2.13.0, where they still exist). `torch.export` is the whole-graph
capture for deployment; `torch.compile` is the just-in-time replacement for scripting.

## Fix safety
Review. The common case behaves the same, but an exported program is not a TorchScript module: see
"What to review". Code that cannot be migrated without guessing is reported, never edited.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import Assignment, ParentNodeProvider, PositionProvider, ScopeProvider
from libcst.metadata.scope_provider import ClassScope

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass
from torchmigrate.python.guards import is_version_guard
from torchmigrate.python.helpers import build_dotted, chain_root, dotted_name, fix_commas
from torchmigrate.python.transform import PassTransformer

REVIEW_NOTE = """\
- Static shapes: `torch.export.export` specializes the program to the example's shapes. A traced module often
  accepted another batch size; the exported one raises "Guard failed: x.size()[0] == 2". Mark the dimensions that
  vary, e.g. `torch.export.export(model, (x,), dynamic_shapes=({0: torch.export.Dim.AUTO},))`.
- An `ExportedProgram` is not callable: call `ep.module()(x)`. The module it returns cannot switch modes:
  `.module().train()` and `.module().eval()` raise NotImplementedError — export the model in the mode you need.
- `torch.export.export` takes only an `nn.Module`: wrap a traced function in a small module.
- Dropped arguments: `check_trace`, `check_inputs`, `check_tolerance`, `strict` (TorchScript's container check, not
  export's `strict=`) and `optimize` have no equivalent. `torch.compile(obj)` compiles on the first call and again
  for new shapes; on CPU it needs a C compiler.
- Saved files are now torch.export archives (conventionally `.pt2`): `torch.export.load` reads only those, and C++
  consumers of TorchScript (`torch::jit::load`) need AOTInductor (`torch._inductor.aoti_compile_and_package`) or
  ExecuTorch instead. A `torch.jit.load` is rewritten only when it reads a path expression that a rewritten save in the
  same file writes (same code, formatting ignored)."""

PASS = Pass(
    sliceable=False,  # it follows a traced or scripted function or class to its definition, wherever that is in the file
    id="jit-to-export",
    release="2.10",
    since="2.2",
    kind=DEPRECATION,  # still present (with a DeprecationWarning) in 2.13: also runs for projects already on 2.10+
    safety=REVIEW,
    title="torch.jit.trace/save/load → torch.export; torch.jit.script → torch.compile",
    evidence=(
        "PyTorch 2.10 release notes, jit deprecations (pytorch/pytorch#167669)"
        "; since 2.2: ExportedProgram.module() (torch 2.2.2 wheel, torch/export/exported_program.py:349) and "
        "export(strict=); torch.export.save/load from 2.1, torch.compile from 2.0"
    ),
    triggers=("jit",),
    review_note=REVIEW_NOTE,
    examples=[
        Example(
            title="traced module that is only called",
            before="""
                import torch

                model = Net().eval()
                x = torch.randn(2, 4)
                traced = torch.jit.trace(model, x)
                y = traced(x)
            """,
            after="""
                import torch

                model = Net().eval()
                x = torch.randn(2, 4)
                traced = torch.export.export(model, (x,)).module()
                y = traced(x)
            """,
        ),
        Example(
            title="trace, save and load: the ExportedProgram is kept",
            before="""
                import torch

                traced = torch.jit.trace(model, (torch.randn(1, 3), torch.randn(1, 3)), check_trace=False)
                out = traced(a, b)
                torch.jit.save(traced, "model.pt")
                loaded = torch.jit.load("model.pt")
                out2 = loaded(a, b)
            """,
            after="""
                import torch

                traced = torch.export.export(model, (torch.randn(1, 3), torch.randn(1, 3)))
                out = traced.module()(a, b)
                torch.export.save(traced, "model.pt")
                loaded = torch.export.load("model.pt").module()
                out2 = loaded(a, b)
            """,
        ),
        Example(
            title="from torch import jit; .save method; a parameter annotated torch.Tensor",
            before="""
                import torch
                from torch import jit


                def save(model: torch.nn.Module, example: torch.Tensor, path):
                    traced = jit.trace(model, example)
                    traced.save(path)


                def load(path):
                    return jit.load(path)
            """,
            after="""
                import torch


                def save(model: torch.nn.Module, example: torch.Tensor, path):
                    traced = torch.export.export(model, (example,))
                    torch.export.save(traced, path)


                def load(path):
                    return torch.export.load(path).module()
            """,
        ),
        Example(
            title="import torch as th, example_kwarg_inputs and a list of inputs",
            before="""
                import torch as th

                f = th.jit.trace(model, example_kwarg_inputs={'x': x})
                g = th.jit.trace(model, [x, y], strict=False)
                f(x=x), g(x, y)
            """,
            after="""
                import torch as th

                f = th.export.export(model, (), kwargs={'x': x}).module()
                g = th.export.export(model, (x, y)).module()
                f(x=x), g(x, y)
            """,
        ),
        Example(
            title="from torch.jit import trace as tr, imported inside a function",
            before="""
                def run(model, batch):
                    from torch.jit import trace as tr
                    inputs = (batch,)
                    fast = tr(model, inputs)
                    return [fast(b) for b in batch]
            """,
            after="""
                from torch.export import export

                def run(model, batch):
                    inputs = (batch,)
                    fast = export(model, inputs).module()
                    return [fast(b) for b in batch]
            """,
        ),
        Example(
            title="torch.jit.script of a module and @torch.jit.script on a function, only called",
            before="""
                import torch


                @torch.jit.script
                def gelu(x):
                    return x * torch.sigmoid(1.702 * x)


                scripted = torch.jit.script(model)
                y = scripted(gelu(x))
            """,
            after="""
                import torch


                @torch.compile
                def gelu(x):
                    return x * torch.sigmoid(1.702 * x)


                scripted = torch.compile(model)
                y = scripted(gelu(x))
            """,
        ),
        Example(
            title="the example input's kind is not visible: finding",
            before="""
                import torch


                def export(model, example):
                    return_value = torch.jit.trace(model, example)
            """,
            findings=1,
        ),
        Example(
            title="traced result used in a way the pass cannot follow: finding",
            before="""
                import torch

                traced = torch.jit.trace(model, (x,))
                print(traced.graph)
            """,
            findings=1,
        ),
        Example(
            title="script then save, and the load of that archive: findings",
            before="""
                import torch

                scripted = torch.jit.script(model)
                torch.jit.save(scripted, "m.pt")
                m = torch.jit.load("m.pt")
            """,
            findings=2,
        ),
        Example(
            title="data-dependent control flow in the traced model's forward: finding",
            before="""
                import torch


                class Gate(torch.nn.Module):
                    def forward(self, x, scale: float = 1.0):
                        if x.sum() > 0:
                            return x * scale
                        return -x


                traced = torch.jit.trace(Gate(), torch.ones(3))
            """,
            findings=1,
        ),
        Example(
            title="ScriptModule subclass and @torch.jit.ignore in a file that scripts: one finding each",
            before="""
                import torch


                class Old(torch.jit.ScriptModule):
                    @torch.jit.script_method
                    def forward(self, x):
                        return x + 1


                class New(torch.nn.Module):
                    @torch.jit.ignore
                    def debug(self, x):
                        return x

                    @torch.jit.unused
                    def slow(self, x):
                        return x
            """,
            findings=2,
        ),
        Example(
            title="harmless helpers and a file that does not script: nothing to do",
            before="""
                import torch


                class Net(torch.nn.Module):
                    @torch.jit.ignore
                    def debug(self, x):
                        return x

                    def forward(self, x):
                        if torch.jit.is_scripting() or torch.jit.is_tracing():
                            return x
                        return self.debug(x)
            """,
        ),
        Example(
            title="look-alikes: self.trace(...), user functions named trace and script, module.script()",
            before="""
                import torch


                def trace(m, x):
                    return m


                def script(f):
                    return f


                class Tracer:
                    def run(self, m, x):
                        jit = self.trace(m, x)
                        return script(jit), trace(m, x), module.script(), torch.jit.is_scripting()
            """,
        ),
        Example(
            title="a TorchScript archive the file does not write: finding",
            before="""
                import torch

                model = torch.jit.load("pretrained.pt", map_location="cpu")
            """,
            findings=1,
        ),
    ],
)

TRACE = "torch.jit.trace"
SCRIPT = "torch.jit.script"
SAVE = "torch.jit.save"
LOAD = "torch.jit.load"
SCRIPT_MODULES = frozenset({"torch.jit.ScriptModule", "torch.jit._script.ScriptModule"})
SCRIPT_METHOD = "torch.jit.script_method"
TORCHSCRIPT_DECORATORS = frozenset({"torch.jit.ignore", "torch.jit.unused", "torch.jit.export"})

ROUTE = (
    "route: torch.export.export(model, args, dynamic_shapes=...) + torch.export.save, then AOTInductor "
    "(torch._inductor.aoti_compile_and_package) or ExecuTorch to deploy"
)

# trace(func, example_inputs, optimize, check_trace, check_inputs, check_tolerance, strict, ...) on torch 2.13.0
TRACE_POSITIONAL = ("func", "example_inputs", "optimize", "check_trace", "check_inputs", "check_tolerance", "strict")
TRACE_DROPPED = ("optimize", "check_trace", "check_inputs", "check_tolerance", "strict")
TRACE_KNOWN = frozenset(TRACE_POSITIONAL) | {"example_kwarg_inputs"}
SCRIPT_POSITIONAL = ("obj", "optimize")
SCRIPT_DROPPED = ("optimize", "example_inputs")

TENSOR_FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "randn rand zeros ones empty full tensor as_tensor arange linspace eye randint randperm from_numpy stack cat "
        "randn_like rand_like zeros_like ones_like empty_like full_like randint_like"
    ).split()
)
TENSOR_METHODS = frozenset(
    "to cuda cpu float half double long int bool bfloat16 contiguous detach clone requires_grad_ unsqueeze view "
    "reshape permute transpose".split()
)
MODULE_METHODS = frozenset({"eval", "train", "to", "cpu", "cuda", "float", "half", "double", "requires_grad_"})
# What the module of an exported program (a GraphModule) still does like a loaded ScriptModule.
LOADED_OK = frozenset(
    "to cpu cuda forward parameters named_parameters buffers named_buffers state_dict modules named_modules "
    "children named_children requires_grad_ zero_grad".split()
)
STATIC_ATTRS = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse"})
STATIC_METHODS = frozenset({"size", "dim", "numel", "is_floating_point", "is_contiguous", "get_device", "nelement"})
STATIC_FUNCS = frozenset({"isinstance", "len", "hasattr", "type", "callable", "getattr"})

_EMPTY = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def _short(node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(_code(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path_key(expr: cst.BaseExpression) -> str | None:
    """The path expression as code with formatting ignored (``"m.pt"`` and ``'m.pt'`` are the same key)."""
    try:
        return ast.dump(ast.parse("(" + _code(expr) + ")", mode="eval"))
    except SyntaxError:  # pragma: no cover - libcst only hands us valid expressions
        return None


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _bind(call: cst.Call, positional: Sequence[str]) -> tuple[dict[str, cst.Arg], list[str]]:
    """Arguments by parameter name, and what could not be bound (``*args``, ``**kwargs``, too many positionals)."""
    bound: dict[str, cst.Arg] = {}
    problems: list[str] = []
    for index, a in enumerate(_positional(call)):
        if index < len(positional):
            bound[positional[index]] = a
        else:
            problems.append(f"positional argument {index + 1}")
    for a in call.args:
        if a.star:
            problems.append(a.star + "…")
        elif a.keyword is not None:
            bound[a.keyword.value] = a
    return bound, problems


def _positional_arg(a: cst.Arg) -> cst.Arg:
    return a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)


def _keyword_arg(a: cst.Arg, name: str) -> cst.Arg:
    return a.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def _finish_args(call: cst.Call, args: list[cst.Arg]) -> list[cst.Arg]:
    """Re-punctuate ``args``; when the old last argument was dropped, the new last one takes its (multi-line) comma."""
    args = fix_commas(args)
    if not call.args or not args or args[-1] is call.args[-1]:
        return args
    old = call.args[-1].comma
    new = args[-1].comma
    if isinstance(old, cst.Comma) and isinstance(old.whitespace_after, cst.ParenthesizedWhitespace):
        if isinstance(new, cst.Comma) and isinstance(new.whitespace_after, cst.ParenthesizedWhitespace):
            # keep this argument's own comment, but close the call where the old last argument closed it
            closing = new.whitespace_after.with_changes(
                indent=old.whitespace_after.indent, last_line=old.whitespace_after.last_line
            )
            args[-1] = args[-1].with_changes(comma=new.with_changes(whitespace_after=closing))
        else:
            args[-1] = args[-1].with_changes(comma=old)
    elif isinstance(new, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def _one_tuple(value: cst.BaseExpression) -> cst.Tuple:
    return cst.Tuple([cst.Element(value, comma=cst.Comma())])


def _module_call(expr: cst.BaseExpression) -> cst.Call:
    """``expr.module()``."""
    return cst.Call(func=cst.Attribute(value=expr, attr=cst.Name("module")))


@dataclass
class _Chain:
    """One ``torch.jit.trace``/``script`` call (or ``@torch.jit.script`` decorator) and what its result is used for."""

    kind: str  # "trace" | "script"
    node: cst.CSTNode  # the call, or the decorator
    label: str  # how messages name the result
    calls: list[cst.Call] = field(default_factory=list)  # calls of the bound name
    saves: list[cst.Call] = field(default_factory=list)  # torch.jit.save(name, p) / name.save(p)
    problem: str | None = None  # why it is not migrated (a finding); "" when suppressed by a comment
    from_forward: bool = False  # trace(model.forward, x): export the module itself
    inputs: str = ""  # "tuple" | "list" | "single" | "iterable" | "none"
    dropped: list[str] = field(default_factory=list)

    @property
    def keep_program(self) -> bool:
        return bool(self.saves)


@dataclass
class _Load:
    call: cst.Call
    key: str | None
    problem: str | None


class _Collector(cst.CSTVisitor):
    """The calls, decorators and classes outside version-guarded code, in file order."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.decorators: list[tuple[cst.Decorator, cst.FunctionDef | cst.ClassDef]] = []
        self.classes: list[cst.ClassDef] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if is_version_guard(node):
            return False
        return super().on_visit(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.decorators.extend((d, node) for d in node.decorators)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)
        self.decorators.extend((d, node) for d in node.decorators)


class _BranchFinder(cst.CSTVisitor):
    """The first ``if``/``while``/ternary in a ``forward`` whose test depends on the *data* of a tensor argument."""

    def __init__(self, tensors: set[str]) -> None:
        self.tensors = tensors
        self.found: tuple[cst.CSTNode, str] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _check(self, node: cst.CSTNode, keyword: str, test: cst.BaseExpression) -> None:
        if self.found is None and self.depends(test):
            self.found = (test, f"{keyword} {_short(test)}")

    def visit_If(self, node: cst.If) -> None:
        self._check(node, "if", node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node, "while", node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node, "if", node.test)

    def depends(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in self.tensors
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in STATIC_ATTRS:
                return False
            return self.depends(expr.value)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in STATIC_FUNCS:
                return False
            if isinstance(func, cst.Attribute) and func.attr.value in STATIC_METHODS:
                return False
            return self.depends(func) or any(self.depends(a.value) for a in expr.args)
        if isinstance(expr, cst.Comparison):
            if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in expr.comparisons):
                return False
            return self.depends(expr.left) or any(self.depends(c.comparator) for c in expr.comparisons)
        if isinstance(expr, cst.Subscript):
            return self.depends(expr.value)
        if isinstance(expr, cst.BooleanOperation | cst.BinaryOperation):
            return self.depends(expr.left) or self.depends(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return self.depends(expr.expression)
        return False


@PASS.uses
class JitToExport(PassTransformer):
    """Analyses the whole file first (traces, their uses, saves, loads), then rewrites what is consistent."""


    def visit_Module(self, node: cst.Module) -> bool:
        self.trace_plans: dict[cst.Call, _Chain] = {}
        self.script_calls: dict[cst.Call, _Chain] = {}
        self.script_decorators: set[cst.Decorator] = set()
        self.wrapped_calls: set[cst.Call] = set()
        self.saves: set[cst.Call] = set()
        self.loads: set[cst.Call] = set()
        collector = _Collector()
        node.visit(collector)
        self._analyse(collector)
        return True

    # --- small lookups on the original tree ---------------------------------------------------------------

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get_metadata(ParentNodeProvider, node, None)

    def _start(self, node: cst.CSTNode) -> tuple[int, int]:
        try:
            start = self.get_metadata(PositionProvider, node).start
        except KeyError:
            return (0, 0)
        return (start.line, start.column)

    def _end(self, node: cst.CSTNode) -> tuple[int, int]:
        try:
            end = self.get_metadata(PositionProvider, node).end
        except KeyError:
            return (0, 0)
        return (end.line, end.column)

    def _callee(self, call: cst.Call) -> str | None:
        """The qualified name of what ``call`` calls, for a name or attribute chain only (not ``f(a)(b)``'s outer call)."""
        return self.qualname(call.func) if isinstance(call.func, cst.Name | cst.Attribute) else None

    def _line(self, node: cst.CSTNode) -> int:
        return self._start(node)[0]

    def _referent(self, name: cst.Name) -> cst.CSTNode | None:
        """The node that binds ``name`` here when exactly one assignment is visible (a Name, Param, def, class…)."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        for access in scope.accesses[name]:
            if access.node is name:
                referents = list(access.referents)
                if len(referents) == 1 and isinstance(referents[0], Assignment):
                    return referents[0].node
        return None

    def _assigned_value(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        """For the target Name of ``name = value`` (one target), ``value``."""
        parent = self._parent(target)
        if isinstance(parent, cst.AssignTarget):
            assign = self._parent(parent)
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                return assign.value
        if isinstance(parent, cst.AnnAssign) and parent.target is target:
            return parent.value
        return None

    def _annotation(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        if isinstance(target, cst.Param) and target.annotation is not None:
            return target.annotation.annotation
        parent = self._parent(target)
        if isinstance(parent, cst.AnnAssign) and parent.target is target:
            return parent.annotation.annotation
        return None

    # --- what the example inputs are ----------------------------------------------------------------------

    def _input_kind(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """``tuple``, ``list``, ``single`` (one value: it becomes a 1-tuple), or None when it cannot be seen."""
        if isinstance(expr, cst.Tuple):
            return "tuple"
        if isinstance(expr, cst.List):
            return "list"
        if isinstance(expr, cst.Dict | cst.DictComp):
            return "single"  # jit.trace wraps a dict like a tensor
        if isinstance(expr, cst.Call):
            if self._callee(expr) in TENSOR_FACTORIES:
                return "single"
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS and depth < 4:
                return "single" if self._input_kind(func.value, depth + 1) == "single" else None
            return None
        if isinstance(expr, cst.Name) and depth < 4:
            target = self._referent(expr)
            if target is None:
                return None
            annotation = self._annotation(target)
            if annotation is not None:
                return self._annotation_kind(annotation)
            value = self._assigned_value(target)
            return None if value is None else self._input_kind(value, depth + 1)
        return None

    def _annotation_kind(self, annotation: cst.BaseExpression) -> str | None:
        if self.qualname(annotation) == "torch.Tensor":
            return "single"
        base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        if dotted_name(base) in {"tuple", "Tuple", "typing.Tuple"} or self.qualname(base) == "typing.Tuple":
            return "tuple"
        return None

    # --- the traced model, for visible data-dependent control flow -----------------------------------------

    def _model_class(self, expr: cst.BaseExpression, depth: int = 0) -> cst.ClassDef | None:
        if depth > 4:
            return None
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in MODULE_METHODS:
                return self._model_class(func.value, depth + 1)
            if isinstance(func, cst.Name):
                target = self._referent(func)
                return target if isinstance(target, cst.ClassDef) else None
            return None
        if isinstance(expr, cst.Name):
            target = self._referent(expr)
            value = None if target is None else self._assigned_value(target)
            return None if value is None else self._model_class(value, depth + 1)
        return None

    def _data_dependent_branch(self, model: cst.BaseExpression) -> str | None:
        cls = self._model_class(model)
        if cls is None:
            return None
        forward = next(
            (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"),
            None,
        )
        if forward is None:
            return None
        params = [*forward.params.params, *forward.params.kwonly_params][1:]
        tensors: set[str] = set()
        for param in params:
            annotation = param.annotation.annotation if param.annotation is not None else None
            if annotation is not None:
                if "Tensor" in _code(annotation):
                    tensors.add(param.name.value)
            elif param.default is None:
                tensors.add(param.name.value)
        finder = _BranchFinder(tensors)
        forward.body.visit(finder)
        if finder.found is None:
            return None
        test, text = finder.found
        return (
            f"`{cls.name.value}.forward` branches on tensor data (`{text}`, line {self._line(test)}): torch.jit.trace "
            "recorded only the branch its example took, and torch.export.export rejects data-dependent control flow. "
            "Express the branch with torch.cond (or torch.where), then export; " + ROUTE
        )

    # --- the uses of a bound result ------------------------------------------------------------------------

    def _use(self, name: cst.Name) -> tuple[str, cst.Call | None, str]:
        """("call" | "save" | "other", the call, a description of an other use)."""
        parent = self._parent(name)
        if isinstance(parent, cst.Call) and parent.func is name:
            return ("call", parent, "")
        if isinstance(parent, cst.Arg):
            call = self._parent(parent)
            if isinstance(call, cst.Call):
                if self._callee(call) == SAVE and parent.value is name:
                    bound, _ = _bind(call, ("m", "f", "_extra_files"))
                    if bound.get("m") is parent:
                        return ("save", call, "")
                return ("other", None, f"passed to `{_short(call.func)}(...)`")
            return ("other", None, "passed on")
        if isinstance(parent, cst.Attribute) and parent.value is name:
            grand = self._parent(parent)
            if parent.attr.value == "save" and isinstance(grand, cst.Call) and grand.func is parent:
                return ("save", grand, "")
            return ("other", None, f"used as `{name.value}.{parent.attr.value}`")
        if isinstance(parent, cst.Return):
            return ("other", None, "returned")
        if isinstance(parent, cst.Element | cst.DictElement):
            return ("other", None, "put in a container")
        where = parent if parent is not None else name
        return ("other", None, f"used in `{_short(where)}`")

    def _bound_uses(self, chain: _Chain, target: cst.CSTNode, name: str, after: tuple[int, int]) -> None:
        """Fill ``chain.calls``/``saves`` from the accesses of ``name`` bound at ``target``, or set a problem."""
        scope = self.get_metadata(ScopeProvider, target, None)
        if scope is None:
            chain.problem = f"{chain.label} cannot be followed"
            return
        if isinstance(scope, ClassScope):
            chain.problem = f"{chain.label} is a class attribute, used where this pass cannot see"
            return
        assignments = [a for a in scope.assignments[name] if isinstance(a, Assignment)]
        mine = next((a for a in assignments if a.node is target), None)
        if mine is None:
            chain.problem = f"{chain.label} cannot be followed"
            return
        for other in assignments:
            if other is not mine and self._start(other.node) > after and chain.problem is None:
                chain.problem = self._by_hand(chain, f"assigned again on line {self._line(other.node)}")
        for access in sorted(mine.references, key=lambda a: self._start(a.node)):
            node = access.node
            if access.scope is scope and self._start(node) <= after:
                continue  # an earlier value of the same name (``model = trace(model, x)``)
            if not isinstance(node, cst.Name):
                chain.problem = chain.problem or self._by_hand(chain, f"used as `{_short(node)}` (line {self._line(node)})")
                continue
            kind, call, what = self._use(node)
            if kind == "call" and call is not None:
                chain.calls.append(call)
            elif kind == "save" and call is not None:
                chain.saves.append(call)
            elif chain.problem is None:
                chain.problem = self._by_hand(chain, f"{what} (line {self._line(node)})")

    def _by_hand(self, chain: _Chain, what: str) -> str:
        subject = "the result" if chain.label.startswith("the ") else chain.label
        if chain.kind == "trace":
            how = (
                "ep = torch.export.export(model, args) is an ExportedProgram, not a ScriptModule: call ep.module()(x), "
                "save with torch.export.save(ep, path)"
            )
        else:
            how = "torch.compile(obj) returns a callable that only stands in for calls, not for TorchScript APIs"
        return f"{subject} is {what}, which this pass cannot follow; migrate it by hand ({how})"

    def _result_uses(self, chain: _Chain, call: cst.Call) -> None:
        """Where the result of a trace/script ``call`` goes: bound to a name, called, saved right away, or lost."""
        parent = self._parent(call)
        if isinstance(parent, cst.Assign) and parent.value is call:
            targets = parent.targets
            if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
                target = targets[0].target
                chain.label = f"`{target.value}`"
                self._bound_uses(chain, target, target.value, self._end(parent))
                return
            chain.problem = self._by_hand(chain, "unpacked or stored in an attribute")
            return
        if isinstance(parent, cst.Call) and parent.func is call:
            return  # called right away: ``trace(m, x)(y)`` → ``export(m, (x,)).module()(y)``
        if isinstance(parent, cst.Arg):
            outer = self._parent(parent)
            if isinstance(outer, cst.Call) and self._callee(outer) == SAVE:
                bound, _ = _bind(outer, ("m", "f", "_extra_files"))
                if bound.get("m") is parent:
                    chain.saves.append(outer)
                    return
        if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == "save":
            grand = self._parent(parent)
            if isinstance(grand, cst.Call) and grand.func is parent:
                chain.saves.append(grand)
                return
        if isinstance(parent, cst.Return):
            what = "returned"
        elif isinstance(parent, cst.AnnAssign):
            what = "assigned with a type annotation"
        elif isinstance(parent, cst.Attribute) and parent.value is call:
            what = f"used as `.{parent.attr.value}`"
        elif isinstance(parent, cst.Arg) and isinstance(self._parent(parent), cst.Call):
            outer = self._parent(parent)
            assert isinstance(outer, cst.Call)
            what = f"passed to `{_short(outer.func)}(...)`"
        else:
            what = "stored in a container or expression"
        chain.problem = self._by_hand(chain, what)

    # --- one trace / script -------------------------------------------------------------------------------

    def _trace_chain(self, call: cst.Call) -> _Chain:
        chain = _Chain("trace", call, "the traced module")
        problem = self._trace_arguments(chain, call)
        self._result_uses(chain, call)  # always: the saves it claims get no finding of their own
        if problem is not None:
            chain.problem = problem
        return chain

    def _trace_arguments(self, chain: _Chain, call: cst.Call) -> str | None:
        """Check and record how the trace's arguments map onto torch.export.export; a problem stops the rewrite."""
        bound, unbound = _bind(call, TRACE_POSITIONAL)
        unknown = sorted(set(bound) - TRACE_KNOWN)
        func = bound.get("func")
        inputs = bound.get("example_inputs")
        kwargs = bound.get("example_kwarg_inputs")
        if unbound or unknown:
            return f"it gets {', '.join(unbound + unknown)}, which this pass cannot map"
        if func is None:
            return "no module to trace"
        if inputs is not None and kwargs is not None:
            return "it gets both example_inputs and example_kwarg_inputs"
        if inputs is None and kwargs is None:
            return "no example inputs"
        chain.dropped = [name for name in TRACE_DROPPED if name in bound]
        model = func.value
        if isinstance(model, cst.Attribute) and model.attr.value == "forward":
            chain.from_forward = True
            model = model.value
        target = self._referent(model) if isinstance(model, cst.Name) else None
        if isinstance(model, cst.Lambda) or isinstance(target, cst.FunctionDef):
            return (
                f"it traces the function `{_short(model)}`, and torch.export.export takes only an nn.Module: wrap "
                "the function in a small nn.Module whose forward calls it, then export that"
            )
        if inputs is None:
            chain.inputs = "none"
        else:
            kind = self._input_kind(inputs.value)
            if kind is None:
                example, shown = _short(inputs.value), _short(model)
                return (
                    f"cannot tell whether `{example}` is one input or a tuple of inputs: write "
                    f"torch.export.export({shown}, ({example},)) for one tensor or "
                    f"torch.export.export({shown}, {example}) for a tuple (or annotate it `torch.Tensor`)"
                )
            chain.inputs = "iterable" if kind == "list" and not isinstance(inputs.value, cst.List) else kind
        return self._data_dependent_branch(model)

    def _script_chain(self, call: cst.Call) -> _Chain:
        chain = _Chain("script", call, "the scripted object")
        bound, unbound = _bind(call, SCRIPT_POSITIONAL)
        unknown = sorted(set(bound) - {"obj", *SCRIPT_DROPPED})
        obj = bound.get("obj")
        if unbound or unknown or obj is None:
            chain.problem = f"torch.jit.script gets {', '.join(unbound + unknown) or 'no object'}"
            return chain
        target = self._referent(obj.value) if isinstance(obj.value, cst.Name) else None
        if isinstance(target, cst.ClassDef):
            chain.problem = (
                f"scripts the class `{target.name.value}` (a TorchScript class): torch.compile compiles functions "
                "and module instances; use the class as plain Python"
            )
            return chain
        chain.dropped = [name for name in SCRIPT_DROPPED if name in bound]
        self._result_uses(chain, call)
        return chain

    def _decorator_chain(self, decorator: cst.Decorator, function: cst.FunctionDef) -> _Chain:
        name = function.name.value
        chain = _Chain("script", decorator, f"`{name}`")
        if isinstance(decorator.decorator, cst.Call):
            chain.problem = "@torch.jit.script(...) with arguments"
            return chain
        self._bound_uses(chain, function, name, self._start(function))
        return chain

    # --- the whole file -----------------------------------------------------------------------------------

    def _analyse(self, found: _Collector) -> None:
        chains: list[_Chain] = []
        keeps_scripting: list[tuple[cst.CSTNode, str]] = []  # TorchScript compilation that stays in the file
        scripts = False
        script_module_classes: set[cst.ClassDef] = set()
        for call in found.calls:
            name = self._callee(call)
            if name == TRACE:
                chains.append(self._trace_chain(call))
            elif name == SCRIPT:
                scripts = True
                chains.append(self._script_chain(call))
        for cls in found.classes:  # in file order, so a local base class is seen before its subclasses
            bases = [base.value for base in cls.bases]
            local = [self._referent(b) for b in bases if isinstance(b, cst.Name)]
            if any(base in script_module_classes for base in local):
                script_module_classes.add(cls)  # covered by its base class's finding
            elif any(self.qualname(b) in SCRIPT_MODULES for b in bases):
                scripts = True
                script_module_classes.add(cls)
                keeps_scripting.append((cls, f"the ScriptModule `{cls.name.value}`"))
                self.finding(
                    cls,
                    f"`{cls.name.value}` subclasses torch.jit.ScriptModule (TorchScript): make it a torch.nn.Module "
                    "(drop @torch.jit.script_method), then torch.compile it or export it; " + ROUTE,
                )
        ts_decorators: list[tuple[cst.Decorator, cst.FunctionDef | cst.ClassDef]] = []
        script_methods_reported: set[cst.CSTNode] = set()
        for decorator, owner in found.decorators:
            expr = decorator.decorator
            name = self.qualname(expr.func if isinstance(expr, cst.Call) else expr)
            if name == SCRIPT:
                scripts = True
                if isinstance(owner, cst.ClassDef):
                    keeps_scripting.append((owner, f"the TorchScript class `{owner.name.value}`"))
                    self.finding(
                        decorator,
                        f"@torch.jit.script on the class `{owner.name.value}` makes a TorchScript class: drop the "
                        "decorator and use it as plain Python (torch.compile and torch.export trace through it)",
                    )
                else:
                    chains.append(self._decorator_chain(decorator, owner))
            elif name == SCRIPT_METHOD:
                holder = self._enclosing_class(owner)
                if holder not in script_module_classes and (holder or owner) not in script_methods_reported:
                    script_methods_reported.add(holder or owner)
                    scripts = True
                    where = f"`{(holder or owner).name.value}`"
                    self.finding(
                        decorator,
                        f"@torch.jit.script_method in {where}, a TorchScript module (its ScriptModule base is not "
                        "visible here): make it a torch.nn.Module, then torch.compile it or export it; " + ROUTE,
                    )
            elif name in TORCHSCRIPT_DECORATORS:
                ts_decorators.append((decorator, owner))
        for chain in chains:
            if chain.problem is None and not all(self.allowed(n) for n in (chain.node, *chain.calls, *chain.saves)):
                chain.problem = ""  # suppressed with a comment: leave the whole chain alone, silently
            if chain.kind == "script" and chain.problem is None and chain.saves:
                chain.problem = (
                    f"{chain.label} is saved as TorchScript (line {self._line(chain.saves[0])}): torch.jit.script has "
                    "no example inputs, so it cannot become torch.export; export the module with "
                    "torch.export.export(model, example_args) and torch.export.save instead; " + ROUTE
                )
            if chain.kind == "script" and chain.problem is not None:
                keeps_scripting.append((chain.node, f"{chain.label} on line {self._line(chain.node)}"))
        held = [c for c in chains if c.kind == "script" and c.problem is None] if keeps_scripting else []
        held.sort(key=lambda c: self._start(c.node))
        for chain in held:
            chain.problem = ""  # one finding for all of them, below: not one per function
        if held:
            _, what = keeps_scripting[0]
            names = ", ".join(f"{c.label} (line {self._line(c.node)})" for c in held[:5])
            more = f" and {len(held) - 5} more" if len(held) > 5 else ""
            self.finding(
                held[0].node,
                f"torch.jit.script not migrated here: this file keeps TorchScript ({what}), which may call the "
                f"scripted {names}{more}; migrate the scripting in this file together, then use torch.compile",
            )
        self._decorator_findings(ts_decorators, scripts, script_module_classes)
        self._pair_saves_and_loads(chains, found.calls)
        for chain in chains:
            if chain.problem:
                what = "@torch.jit.script" if isinstance(chain.node, cst.Decorator) else f"torch.jit.{chain.kind}"
                self.finding(chain.node, f"{what} not migrated: {chain.problem}")
        self._plan(chains)

    def _enclosing_class(self, node: cst.CSTNode) -> cst.ClassDef | None:
        parent = self._parent(node)
        while parent is not None and not isinstance(parent, cst.ClassDef | cst.FunctionDef):
            parent = self._parent(parent)
        return parent if isinstance(parent, cst.ClassDef) else None

    def _decorator_findings(
        self,
        decorators: list[tuple[cst.Decorator, cst.FunctionDef | cst.ClassDef]],
        scripts: bool,
        covered: set[cst.ClassDef],
    ) -> None:
        """``@torch.jit.ignore/unused/export`` count as TorchScript only in a file that scripts: one finding per class."""
        if not scripts:
            return
        reported: set[cst.CSTNode] = set()
        for decorator, owner in decorators:
            group: cst.CSTNode = self._enclosing_class(owner) or owner
            if group in reported or group in covered:
                continue
            reported.add(group)
            expr = decorator.decorator
            shown = _short(expr.func if isinstance(expr, cst.Call) else expr)
            where = f"`{group.name.value}`" if isinstance(group, cst.ClassDef | cst.FunctionDef) else "here"
            self.finding(
                decorator,
                f"@{shown} (and any other TorchScript-only decorators in {where}) steers torch.jit.script, which this "
                "file uses: once the scripting is migrated they do nothing and can go; code they keep away from the "
                "compiler must be traceable by torch.export (torch.cond for data-dependent branches) or marked "
                "@torch.compiler.disable for torch.compile",
            )

    def _pair_saves_and_loads(self, chains: list[_Chain], calls: list[cst.Call]) -> None:
        """Decide which saves and loads migrate together (see the module docstring's pairing rule)."""
        claimed = {save for chain in chains for save in chain.saves}
        torchscript_keys: dict[str, int] = {}  # path key → line of a save that stays TorchScript

        def save_path(save: cst.Call) -> cst.BaseExpression | None:
            is_method = isinstance(save.func, cst.Attribute) and self._callee(save) != SAVE
            bound, unbound = _bind(save, ("f",) if is_method else ("m", "f", "_extra_files"))
            if unbound or set(bound) - {"m", "f", "_extra_files"}:
                return None
            f = bound.get("f")
            return None if f is None else f.value

        loads: list[_Load] = []
        for call in calls:
            name = self._callee(call)
            if name == SAVE and call not in claimed:
                f = save_path(call)
                key = None if f is None else _path_key(f)
                if key is not None:
                    torchscript_keys.setdefault(key, self._line(call))
                self.finding(
                    call,
                    "torch.jit.save writes a TorchScript archive of a module this pass cannot follow here: export it "
                    "with torch.export.export(model, example_args) and save that with torch.export.save; " + ROUTE,
                )
            elif name == LOAD and self.allowed(call):
                loads.append(self._load(call))
        for chain in chains:
            if chain.kind != "trace":
                continue
            for save in chain.saves:
                f = save_path(save)
                key = None if f is None else _path_key(f)
                if key is None and chain.problem is None:
                    chain.problem = f"the save on line {self._line(save)} passes arguments this pass cannot map"
        blocked_loads: dict[str, _Load] = {}
        for load in loads:
            if load.key is not None and load.problem is not None:
                blocked_loads.setdefault(load.key, load)
        changed = True
        while changed:
            changed = False
            export_keys: dict[str, int] = {}
            for chain in chains:
                keys = [k for k in (_path_key(f) for f in map(save_path, chain.saves) if f is not None) if k]
                if chain.problem is not None or chain.kind != "trace":
                    for key in keys:
                        torchscript_keys.setdefault(key, self._line(chain.node))
                    continue
                for key in keys:
                    if key in torchscript_keys:
                        chain.problem = (
                            f"it is saved to the same path as the TorchScript archive written on line "
                            f"{torchscript_keys[key]}, so the loads of that path could not tell them apart"
                        )
                    elif key in blocked_loads:
                        load = blocked_loads[key]
                        chain.problem = (
                            f"the archive is loaded on line {self._line(load.call)}, where {load.problem}; "
                            "migrate that load and this trace together"
                        )
                    if chain.problem is not None:
                        changed = True
                        break
                else:
                    for key in keys:
                        export_keys.setdefault(key, self._line(chain.node))
        traced_keys = {k for c in chains if c.kind == "trace" for k in map(_path_key, filter(None, map(save_path, c.saves)))}
        for load in loads:
            if load.key in export_keys and load.key not in torchscript_keys and load.problem is None:
                self.loads.add(load.call)
            elif load.key in traced_keys and load.problem is not None:
                self.finding(load.call, f"torch.jit.load not migrated: {load.problem}")
            else:
                self.finding(
                    load.call,
                    "torch.jit.load reads a TorchScript archive that this file does not write with torch.export, and "
                    "torch.export.load cannot read it: re-export the model from its Python code "
                    "(torch.export.export + torch.export.save) and load that with torch.export.load(path).module(); " + ROUTE,
                )

    def _load(self, call: cst.Call) -> _Load:
        bound, unbound = _bind(call, ("f", "map_location", "_extra_files", "_restore_shapes"))
        f = bound.get("f")
        key = None if f is None else _path_key(f.value)
        if unbound or f is None:
            return _Load(call, key, "its arguments cannot be mapped")
        if "map_location" in bound:
            return _Load(
                call,
                key,
                "`map_location` has no torch.export.load equivalent (move the module with `.to(device)` after "
                "loading, once the archive was saved from the device you need)",
            )
        if "_restore_shapes" in bound:
            return _Load(call, key, "`_restore_shapes` has no torch.export.load equivalent")
        use = self._loaded_use(call)
        if use is not None:
            return _Load(
                call,
                key,
                f"the loaded module is used as `{use}`, which the module of an exported program does not support "
                "(`.eval()`/`.train()` raise NotImplementedError: an exported program keeps the mode it was exported in)",
            )
        return _Load(call, key, None)

    def _loaded_use(self, call: cst.Call) -> str | None:
        """The first attribute used on a loaded module that an exported program's module lacks."""
        parent = self._parent(call)
        if isinstance(parent, cst.Attribute) and parent.value is call:
            return None if parent.attr.value in LOADED_OK else f".{parent.attr.value}"
        if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
            target = parent.targets[0].target
            if not isinstance(target, cst.Name):
                return None
            scope = self.get_metadata(ScopeProvider, target, None)
            if scope is None:
                return None
            for assignment in scope.assignments[target.value]:
                if not isinstance(assignment, Assignment) or assignment.node is not target:
                    continue
                for access in assignment.references:
                    used = self._parent(access.node)
                    if (
                        isinstance(used, cst.Attribute)
                        and used.value is access.node
                        and used.attr.value not in LOADED_OK
                        and self._start(access.node) > self._end(parent)
                    ):
                        return f"{target.value}.{used.attr.value}"
        return None

    def _plan(self, chains: list[_Chain]) -> None:
        for chain in chains:
            if chain.problem is not None:
                continue
            if chain.kind == "trace":
                assert isinstance(chain.node, cst.Call)
                self.trace_plans[chain.node] = chain
                self.saves.update(chain.saves)
                if chain.keep_program:
                    self.wrapped_calls.update(chain.calls)
            elif isinstance(chain.node, cst.Decorator):
                self.script_decorators.add(chain.node)
            else:
                assert isinstance(chain.node, cst.Call)
                self.script_calls[chain.node] = chain

    # --- rewriting ----------------------------------------------------------------------------------------

    def _torch_ref(self, qualname: str, like: cst.CSTNode) -> cst.BaseExpression:
        """Like :meth:`ref`, but never ``from torch import compile`` (it would shadow the builtin)."""
        if qualname == "torch.compile":
            root = chain_root(like) if isinstance(like, cst.Attribute) else None
            uses_torch = root is not None and self.qualname(root) == "torch"
            imported = any(full == "torch" for full, _ in self.module_imports())
            if not uses_torch and not imported and "torch" not in self.global_names():
                AddImportsVisitor.add_needed_import(self.context, "torch")
                return build_dotted("torch.compile")
        return self.ref(qualname, like=like)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not isinstance(result, cst.Call):
            return result
        if original_node in self.trace_plans:
            return self._rewrite_trace(original_node, result, self.trace_plans[original_node])
        if original_node in self.script_calls:
            return self._rewrite_script(original_node, result, self.script_calls[original_node])
        if original_node in self.wrapped_calls:
            self.edited(original_node, "call of the ExportedProgram → .module()(...)")
            return result.with_changes(func=_module_call(result.func))
        if original_node in self.saves:
            return self._rewrite_save(original_node, result)
        if original_node in self.loads:
            return self._rewrite_load(original_node, result)
        return result

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        if original_node not in self.script_decorators:
            return updated_node
        self.edited(original_node, "@torch.jit.script → @torch.compile (review: compiles on first call)")
        self.drop_imports_of(original_node.decorator)
        return updated_node.with_changes(decorator=self._torch_ref("torch.compile", original_node.decorator))

    def _rewrite_trace(self, original: cst.Call, call: cst.Call, chain: _Chain) -> cst.BaseExpression:
        bound, _ = _bind(call, TRACE_POSITIONAL)
        model = _positional_arg(bound["func"])
        if chain.from_forward:
            value = model.value
            assert isinstance(value, cst.Attribute)
            model = model.with_changes(value=value.value)
        args = [model]
        if chain.inputs == "none":
            args.append(cst.Arg(cst.Tuple([]), comma=model.comma))
        else:
            inputs = _positional_arg(bound["example_inputs"])
            value = inputs.value
            if chain.inputs == "list" and isinstance(value, cst.List):
                elements = list(value.elements)
                if len(elements) == 1:
                    elements[0] = elements[0].with_changes(comma=cst.Comma())
                inputs = inputs.with_changes(value=cst.Tuple(elements))
            elif chain.inputs == "iterable":
                inputs = inputs.with_changes(value=cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value)]))
            elif chain.inputs == "single":
                inputs = inputs.with_changes(value=_one_tuple(value))
            args.append(inputs)
        if "example_kwarg_inputs" in bound:
            args.append(_keyword_arg(bound["example_kwarg_inputs"], "kwargs"))
        exported: cst.BaseExpression = call.with_changes(
            func=self.ref("torch.export.export", like=original.func), args=_finish_args(call, args)
        )
        message = "torch.jit.trace → torch.export.export"
        if not chain.keep_program:
            exported = _module_call(exported)
            message += "(...).module()"
        else:
            message += " (the ExportedProgram is saved; calls use .module())"
        if chain.dropped:
            message += f"; dropped {', '.join(chain.dropped)} (no torch.export equivalent)"
        message += "; review: export specializes shapes (dynamic_shapes=), the module cannot .train()/.eval()"
        self.edited(original, message)
        self.drop_imports_of(original.func)
        return exported

    def _rewrite_script(self, original: cst.Call, call: cst.Call, chain: _Chain) -> cst.BaseExpression:
        bound, _ = _bind(call, SCRIPT_POSITIONAL)
        obj = _positional_arg(bound["obj"])
        message = "torch.jit.script → torch.compile (review: compiles on first call)"
        if chain.dropped:
            message += f"; dropped {', '.join(chain.dropped)}"
        self.edited(original, message)
        self.drop_imports_of(original.func)
        return call.with_changes(func=self._torch_ref("torch.compile", original.func), args=_finish_args(call, [obj]))

    def _rewrite_save(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        if self._callee(original) == SAVE:
            bound, _ = _bind(call, ("m", "f", "_extra_files"))
            program = _positional_arg(bound["m"])
            func = self.ref("torch.export.save", like=original.func)
            self.drop_imports_of(original.func)
        else:
            assert isinstance(call.func, cst.Attribute)
            bound, _ = _bind(call, ("f",))
            program = cst.Arg(call.func.value)
            func = self.ref("torch.export.save")
        args = [program, bound["f"]]
        if "_extra_files" in bound:
            args.append(_keyword_arg(bound["_extra_files"], "extra_files"))
        self.edited(original, "torch.jit.save → torch.export.save (an ExportedProgram archive)")
        return call.with_changes(func=func, args=_finish_args(call, args))

    def _rewrite_load(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        bound, _ = _bind(call, ("f", "map_location", "_extra_files"))
        args = [bound["f"]]
        if "_extra_files" in bound:
            args.append(_keyword_arg(bound["_extra_files"], "extra_files"))
        self.edited(original, "torch.jit.load → torch.export.load(...).module() (pairs with a rewritten save)")
        self.drop_imports_of(original.func)
        loaded = call.with_changes(func=self.ref("torch.export.load", like=original.func), args=_finish_args(call, args))
        return _module_call(loaded)
