"""jit-to-export, step 1: read the file with the stdlib ``ast`` and decide everything — a frozen :class:`Plan`.

:func:`analyse` finds each TorchScript *chain* (a ``torch.jit.trace`` / ``torch.jit.script`` call or an
``@torch.jit.script`` decorator, with what its result is used for: calls, saves, loads of the saved path) and gives each
one of three outcomes:

- **kept on purpose** (silent): TorchScript is the contract — the result escapes (returned, passed on, stored, its
  TorchScript API used), an archive is written for readers outside the file or read from one, the file is a test
  module or extends TorchScript (:mod:`.context`);
- **blocked** (a finding): it would migrate but for something the author can fix — a traced object that is not
  visibly an ``nn.Module`` instance, calls whose input shapes are not visibly the example's, an example whose kind
  cannot be seen, data-dependent control flow in the traced ``forward``, a scripted function that asks
  ``torch.jit.is_scripting()``;
- **migrated** (edits): only when nothing in the file stays TorchScript, so that no file mixes eager or exported code
  with TorchScript tracing or scripting of it.

Legacy-only forms (a ``ScriptModule`` subclass, ``@torch.jit.script_method`` outside a visible one, a TorchScript
class) are reported once each and keep the file's TorchScript. Harmless helpers (``is_scripting``, ``annotate``,
``Final``, ``@ignore``/``@unused``/``@export``) are no sites at all. The plan's spans are libcst positions, so
:mod:`.rewrite` finds its nodes again with ``PositionProvider`` alone.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from torchmigrate.core.results import Finding
from torchmigrate.python.astscope import Scope, Span, names_of, span
from torchmigrate.python.suppress import suppressions

from .context import on_purpose
from .uses import Example, bind, branch_problem, input_kind, module_kind, same_shapes

__all__ = ["ID", "Plan", "ScriptEdit", "TraceEdit", "analyse"]

ID = "jit-to-export"
TRACE, SCRIPT, SAVE, LOAD = "torch.jit.trace", "torch.jit.script", "torch.jit.save", "torch.jit.load"
SCRIPT_MODULES = frozenset({"torch.jit.ScriptModule", "torch.jit._script.ScriptModule"})
SCRIPT_METHOD = "torch.jit.script_method"
IS_SCRIPTING = frozenset({"torch.jit.is_scripting", "torch.jit._script.is_scripting"})

# The parameters of torch.jit.trace and torch.jit.script on torch 2.13.0 (inspect.signature), in order.
TRACE_PARAMS = (
    "func example_inputs optimize check_trace check_inputs check_tolerance strict _force_outplace _module_class "
    "_compilation_unit example_kwarg_inputs _store_inputs"
).split()
TRACE_DROPPED = ("optimize", "check_trace", "check_inputs", "check_tolerance", "strict")
TRACE_KNOWN = frozenset({"func", "example_inputs", "example_kwarg_inputs", *TRACE_DROPPED})
SCRIPT_PARAMS = ("obj", "optimize", "_frames_up", "_rcb", "example_inputs")
SCRIPT_KNOWN = frozenset({"obj", "optimize", "example_inputs"})
SAVE_PARAMS = ("m", "f", "_extra_files")
LOAD_PARAMS = ("f", "map_location", "_extra_files", "_restore_shapes")
# What the module of an exported program (a GraphModule) still does like a loaded ScriptModule.
LOADED_OK = frozenset(
    "to cpu cuda forward parameters named_parameters buffers named_buffers state_dict modules named_modules "
    "children named_children requires_grad_ zero_grad".split()
)
LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
INTENT = re.compile(r"fuse|fusion|jit|script", re.IGNORECASE)  # in a name or comment: scripted on purpose
SPEED = re.compile(r"\bspeed|\bfast|\bperf|kernel", re.IGNORECASE)


@dataclass(frozen=True)
class TraceEdit:
    """``torch.jit.trace(...)`` → ``torch.export.export(...)`` (``.module()`` unless the program is saved)."""

    span: Span
    inputs: str  # "tuple" | "list" | "iterable" | "single" | "none"
    from_forward: bool  # trace(model.forward, x): export the module itself
    dropped: tuple[str, ...]
    keep_program: bool  # saved: keep the ExportedProgram; its calls become .module()(...)


@dataclass(frozen=True)
class ScriptEdit:
    """``torch.jit.script(obj)`` → ``obj`` (``drop``) or ``torch.compile(obj)`` (``compile``)."""

    span: Span
    how: str
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """Everything jit-to-export does to one file. Spans are libcst positions of the nodes to rewrite."""

    traces: tuple[TraceEdit, ...] = ()
    scripts: tuple[ScriptEdit, ...] = ()
    decorators: tuple[Span, ...] = ()  # @torch.jit.script to remove (the decorator expression)
    removed: tuple[Span, ...] = ()  # `f = torch.jit.script(f)` statements that go (the Assign)
    program_calls: tuple[Span, ...] = ()  # calls of a saved ExportedProgram → .module()(...)
    saves: tuple[tuple[Span, bool], ...] = ()  # (the call, whether it is the `.save(...)` method)
    loads: tuple[Span, ...] = ()
    findings: tuple[Finding, ...] = ()
    kept: str = ""  # why the file keeps TorchScript ("" when it does not)

    @property
    def has_edits(self) -> bool:
        return bool(self.traces or self.scripts or self.decorators or self.removed or self.saves or self.loads)


EMPTY = Plan()


@dataclass(eq=False)
class _Chain:
    """One trace/script call or @torch.jit.script decorator and what its result is used for."""

    kind: str  # "trace" | "script" | "decorator"
    node: ast.expr  # the call, or the decorator expression
    label: str
    calls: list[ast.Call] = field(default_factory=list)  # calls of the result
    saves: list[ast.Call] = field(default_factory=list)
    keep: str | None = None  # why it stays TorchScript on purpose (silent)
    problem: str | None = None  # why it stays, and what to do (a finding)
    inputs: str = ""
    from_forward: bool = False
    dropped: tuple[str, ...] = ()
    example: Example | None = None
    how: str = "drop"
    removed: ast.stmt | None = None  # `f = torch.jit.script(f)`: the statement goes
    in_loop: bool = False

    @property
    def stays(self) -> bool:
        return self.keep is not None or self.problem is not None


@dataclass
class _Load:
    call: ast.Call
    key: str | None
    problem: str | None


def _short(node: ast.AST, limit: int = 60) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path_key(expr: ast.AST | None) -> str | None:
    """The path expression as code with formatting ignored (``"m.pt"`` and ``'m.pt'`` are the same key)."""
    return None if expr is None else ast.dump(expr)


class _Analysis:
    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.names = names_of(tree, text)
        self.suppressed = suppressions(text)
        self.findings: list[Finding] = []
        self.legacy: list[str] = []  # legacy-only TorchScript forms found (they keep the file's TorchScript)
        self.loose = ""  # a torch.jit.save / load no chain accounts for: the file keeps TorchScript
        self.script_module_ids: set[int] = set()
        self.methods_reported: set[int] = set()

    # --- small helpers ------------------------------------------------------------------------------------

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 0)

    def finding(self, node: ast.AST, message: str) -> None:
        at = span(node, self.names).start
        if isinstance(node, ast.expr) and at[1] > 0 and isinstance(self.names.parent(node), (ast.FunctionDef, ast.ClassDef)):
            line = self.names.columns.lines[at[0] - 1] if at[0] <= len(self.names.columns.lines) else ""
            at = (at[0], line.rfind("@", 0, at[1])) if "@" in line[: at[1]] else at  # a decorator: at its `@`
        self.findings.append(Finding(at[0], at[1] + 1, ID, message))

    def allowed(self, node: ast.AST) -> bool:
        if not self.suppressed:
            return True
        statement = self.names.statement(node)
        for line in {self.line(node), self.line(statement) if statement is not None else 0}:
            ids = self.suppressed.get(line, frozenset())
            if ids is None or (ids and ID in ids):
                return False
        return True

    def callee(self, call: ast.Call) -> str | None:
        return self.names.qualname(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None

    # --- the whole file -----------------------------------------------------------------------------------

    def run(self) -> Plan:
        if on_purpose(self.tree, self.names) is not None:
            return EMPTY
        chains: list[_Chain] = []
        calls: list[tuple[ast.Call, str]] = []
        decorators: list[tuple[ast.expr, str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]] = []
        for node, qualname in self.names.rooted("torch"):  # the uses of what torch imports bind, in file order
            if not qualname.startswith("torch.jit.") or self.names.guarded(node):
                continue
            parent = self.names.parent(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                owner = self.names.parent(parent)
                if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and parent in owner.decorator_list:
                    decorators.append((parent, qualname, owner))
                else:
                    calls.append((parent, qualname))
            elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node in parent.decorator_list:
                decorators.append((node, qualname, parent))
        for call, name in calls:
            if name == TRACE:
                chains.append(self.trace_chain(call))
            elif name == SCRIPT:
                chains.append(self.script_chain(call))
        self.script_modules([c for c in self.names.classes if not self.names.guarded(c)])
        for decorator, name, owner in decorators:
            if name == SCRIPT:
                chains.append(self.decorator_chain(decorator, owner))
            elif name == SCRIPT_METHOD:
                self.script_method(decorator, owner)
        for chain in chains:
            if not chain.stays and not all(self.allowed(n) for n in (chain.node, *chain.calls, *chain.saves)):
                chain.keep = "a `# migrate: ignore` comment keeps it"
        loads = self.pair_saves_and_loads(chains, [call for call, name in calls if name in (SAVE, LOAD)])
        return self.plan(chains, loads)

    def plan(self, chains: list[_Chain], loads: list[ast.Call]) -> Plan:
        kept = next((c.keep for c in chains if c.keep is not None), None)
        if kept is None and self.loose:
            kept = self.loose
        problems = [c for c in chains if c.problem is not None]
        if kept is not None or problems or self.legacy:
            if kept is None:
                for chain in problems:
                    self.finding(chain.node, chain.problem or "")
            self.findings.sort(key=lambda f: (f.line, f.col))
            return Plan(findings=tuple(self.findings), kept=kept or (self.legacy[0] if self.legacy else "a blocked chain"))
        names = self.names
        traces: list[TraceEdit] = []
        scripts: list[ScriptEdit] = []
        decorators: list[Span] = []
        removed: list[Span] = []
        program_calls: list[Span] = []
        saves: list[tuple[Span, bool]] = []
        for chain in chains:
            if chain.kind == "trace":
                keep_program = bool(chain.saves)
                traces.append(TraceEdit(span(chain.node, names), chain.inputs, chain.from_forward, chain.dropped, keep_program))
                if keep_program:
                    program_calls += [span(c, names) for c in chain.calls]
                saves += [(span(s, names), self.callee(s) != SAVE) for s in chain.saves]
            elif chain.kind == "decorator":
                decorators.append(span(chain.node, names))
            elif chain.removed is not None:
                removed.append(span(chain.removed, names))
            else:
                scripts.append(ScriptEdit(span(chain.node, names), chain.how, chain.dropped))
        return Plan(
            traces=tuple(traces),
            scripts=tuple(scripts),
            decorators=tuple(decorators),
            removed=tuple(removed),
            program_calls=tuple(program_calls),
            saves=tuple(saves),
            loads=tuple(span(load, names) for load in loads),
        )

    # --- legacy-only forms ----------------------------------------------------------------------------------

    def script_modules(self, classes: list[ast.ClassDef]) -> None:
        """One finding per ScriptModule subclass hierarchy rooted in this file."""
        covered: set[int] = set()
        for cls in classes:  # in file order, so a local base class is seen before its subclasses
            local = [self.names.only_binding(b) for b in cls.bases if isinstance(b, ast.Name)]
            if any(id(base) in covered for base in local if base is not None):
                covered.add(id(cls))
            elif any(self.names.qualname(b) in SCRIPT_MODULES for b in cls.bases):
                covered.add(id(cls))
                self.legacy.append(f"the ScriptModule `{cls.name}`")
                self.finding(
                    cls,
                    f"`{cls.name}` subclasses torch.jit.ScriptModule (TorchScript, deprecated): make it a torch.nn.Module "
                    "(drop @torch.jit.script_method); script or export instances where TorchScript is still needed",
                )
        self.script_module_ids = covered

    def script_method(self, decorator: ast.expr, owner: ast.AST) -> None:
        holder = next((a for a in self.names.ancestors(owner) if isinstance(a, (ast.ClassDef, ast.FunctionDef))), None)
        group = holder if isinstance(holder, ast.ClassDef) else owner
        if id(group) in self.script_module_ids or id(group) in self.methods_reported:
            return
        self.methods_reported.add(id(group))
        where = f"`{getattr(group, 'name', '')}`"
        self.legacy.append(f"@torch.jit.script_method in {where}")
        self.finding(
            decorator,
            f"@torch.jit.script_method in {where}, a TorchScript module (its ScriptModule base is not visible here): make "
            "it a torch.nn.Module; script or export instances where TorchScript is still needed",
        )

    # --- one trace --------------------------------------------------------------------------------------------

    def trace_chain(self, call: ast.Call) -> _Chain:
        chain = _Chain("trace", call, "the traced module")
        self.result_uses(chain, call)  # always: the saves it claims are no loose TorchScript saves
        if chain.keep is not None:
            return chain
        bound = bind(call, TRACE_PARAMS)
        unknown = sorted(set(bound.args) - TRACE_KNOWN)
        func, inputs, kwargs = bound.args.get("func"), bound.args.get("example_inputs"), bound.args.get("example_kwarg_inputs")
        if bound.star or bound.extra or bound.unknown or unknown or func is None or (inputs is None) == (kwargs is None):
            chain.keep = "its arguments are TorchScript's own"
            return chain
        chain.dropped = tuple(name for name in TRACE_DROPPED if name in bound.args)
        model = func
        kind, cls = module_kind(model, self.names)
        if kind == "forward":
            chain.from_forward = True
            assert isinstance(model, ast.Attribute)
            model = model.value
        elif kind != "module":
            chain.problem = self.not_a_module(model, kind)
            return chain
        if inputs is None:
            chain.inputs = "none"
            chain.example = Example((), kwargs)
        else:
            found = input_kind(inputs, self.names)
            if found is None:
                example, shown = _short(inputs), _short(model)
                chain.problem = (
                    f"torch.jit.trace not migrated: cannot tell whether `{example}` is one input or a tuple of inputs: "
                    f"write torch.jit.trace({shown}, ({example},)) for one tensor or annotate it `torch.Tensor` / "
                    "`tuple[torch.Tensor, ...]`, so that it can become torch.export.export"
                )
                return chain
            chain.inputs = "iterable" if found == "list" and not isinstance(inputs, ast.List) else found
            chain.example = Example.of(inputs, found, self.names)
        branch = branch_problem(cls, self.names)
        if branch is not None:
            chain.problem = f"torch.jit.trace not migrated: {branch}"
            return chain
        self.check_shapes(chain)
        return chain

    def not_a_module(self, model: ast.expr, kind: str | None) -> str:
        shown = _short(model)
        if kind == "function":
            what = f"the function `{shown}`"
        elif kind == "attribute":
            what = f"`{shown}`, an attribute (a bound method, or an object of unknown type)"
        else:
            what = f"`{shown}`, which is not visibly an nn.Module instance"
        return (
            f"torch.jit.trace not migrated: it traces {what}, and torch.export.export takes only an nn.Module: wrap it "
            "in a small nn.Module whose forward calls it (or annotate a module parameter `torch.nn.Module`), then "
            "export that"
        )

    def check_shapes(self, chain: _Chain) -> None:
        example = chain.example
        if example is None:
            return
        for call in chain.calls:
            if not same_shapes(call, example, self.names):
                shown = ", ".join(_short(a, 30) for a in (*call.args, *call.keywords)) or "no arguments"
                chain.problem = (
                    f"torch.jit.trace not migrated: the traced module is called on line {self.line(call)} with "
                    f"`{shown}`, whose shapes are not visibly the example's; torch.export.export specializes the "
                    "program to the example's shapes: pass dynamic_shapes= for the dimensions that vary (e.g. "
                    "dynamic_shapes=({0: torch.export.Dim.AUTO},)) and migrate by hand"
                )
                return

    # --- one script call / decorator --------------------------------------------------------------------------

    def script_chain(self, call: ast.Call) -> _Chain:
        chain = _Chain("script", call, "the scripted object")
        bound = bind(call, SCRIPT_PARAMS)
        obj = bound.args.get("obj")
        if bound.star or bound.extra or bound.unknown or set(bound.args) - SCRIPT_KNOWN or obj is None:
            chain.keep = "its arguments are TorchScript's own"
            return chain
        target = self.names.only_binding(obj) if isinstance(obj, ast.Name) else None
        if isinstance(target, ast.ClassDef) and module_kind(ast.Call(func=obj, args=[], keywords=[]), self.names)[0] != "module":
            self.legacy.append(f"the TorchScript class `{target.name}`")
            self.finding(
                call,
                f"torch.jit.script(`{target.name}`) makes a TorchScript class (deprecated): use the class as plain Python "
                "where TorchScript is no longer needed",
            )
            chain.keep = "a TorchScript class"
            return chain
        chain.dropped = tuple(name for name in ("optimize", "example_inputs") if name in bound.args)
        self.result_uses(chain, call)
        if chain.stays or chain.saves:
            return chain  # a saved scripted object: see pair_saves_and_loads
        kind, cls = module_kind(obj, self.names)
        function = target if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        chain.problem = self.asks_is_scripting(function or cls)
        if chain.problem is not None:
            return chain
        parent = self.names.parent(call)
        if kind == "module" and chain.in_loop:
            chain.how = "compile"  # a module compiled once and called in a loop: where torch.compile pays off
        elif isinstance(parent, ast.Assign) and isinstance(obj, ast.Name) and ast.unparse(parent.targets[0]) == obj.id:
            chain.removed = parent  # `f = torch.jit.script(f)`: the statement goes
        return chain

    def decorator_chain(self, decorator: ast.expr, owner: ast.AST) -> _Chain:
        if isinstance(owner, ast.ClassDef):
            chain = _Chain("decorator", decorator, f"`{owner.name}`", keep="a TorchScript class")
            self.legacy.append(f"the TorchScript class `{owner.name}`")
            self.finding(
                decorator,
                f"@torch.jit.script on the class `{owner.name}` makes a TorchScript class (deprecated): drop the decorator "
                "and use the class as plain Python where TorchScript is no longer needed",
            )
            return chain
        assert isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef))
        chain = _Chain("decorator", decorator, f"`{owner.name}`")
        if isinstance(decorator, ast.Call):
            chain.keep = "@torch.jit.script(...) with arguments"
            return chain
        scope = self.names.scope(owner)
        if len(scope.bindings.get(owner.name, [])) != 1:
            chain.keep = f"`{owner.name}` is bound more than once"
            return chain
        for use in self.names.uses(scope, owner.name):
            parent = self.names.parent(use)
            if isinstance(parent, ast.Attribute):
                chain.keep = f"its TorchScript API is used (`{owner.name}.{parent.attr}`)"
                return chain
            outer = self.names.parent(parent) if isinstance(parent, ast.keyword) else parent
            if isinstance(outer, ast.Call) and outer.func is not use and (self.callee(outer) or "").startswith("torch.jit."):
                chain.keep = f"it is passed to {self.callee(outer)}"
                return chain
        intent = self.scripted_on_purpose(owner)
        if intent is not None:
            chain.keep = intent
            return chain
        chain.problem = self.asks_is_scripting(owner)
        return chain

    def scripted_on_purpose(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """The author says the scripting is wanted: the name (``fused_gelu``, ``jit_swish``) or a comment right above
        the decorators or on their lines (``# Scripting this brings model speed up 1.4x``) names it."""
        if INTENT.search(function.name):
            return f"its name says it is scripted on purpose (`{function.name}`)"
        lines = self.names.columns.lines
        first = min(d.lineno for d in function.decorator_list)
        texts = [lines[n - 1] for n in range(first, function.lineno + 1) if n <= len(lines)]
        above = first - 1
        while above >= 1 and lines[above - 1].lstrip().startswith("#"):
            texts.append(lines[above - 1])
            above -= 1
        comments = [t[t.index("#") :] for t in texts if "#" in t]
        if any(INTENT.search(c) or SPEED.search(c) for c in comments):
            return "a comment says it is scripted on purpose"
        return None

    def asks_is_scripting(self, owner: ast.AST | None) -> str | None:
        """A finding when the code that would stop being scripted asks whether it is scripted."""
        if owner is None:
            return None
        for node in ast.walk(owner):
            if isinstance(node, ast.Call) and self.callee(node) in IS_SCRIPTING:
                name = getattr(owner, "name", "")
                return (
                    f"@torch.jit.script / torch.jit.script not migrated: `{name}` asks torch.jit.is_scripting() (line "
                    f"{self.line(node)}), which is False once it runs eagerly, so the other branch would run: make "
                    "both branches agree, then drop the scripting"
                )
        return None

    # --- where a result goes ------------------------------------------------------------------------------------

    def result_uses(self, chain: _Chain, call: ast.Call) -> None:
        """Where the result of a trace/script ``call`` goes: bound to a name, called, saved right away, or it escapes."""
        names = self.names
        parent = names.parent(call)
        if isinstance(parent, ast.Assign) and parent.value is call:
            if len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
                target = parent.targets[0]
                chain.label = f"`{target.id}`"
                self.bound_uses(chain, target, parent)
                return
            chain.keep = "unpacked or stored in an attribute"
        elif isinstance(parent, ast.Call) and parent.func is call:
            chain.calls.append(parent)  # called right away: `trace(m, x)(y)`
        elif isinstance(parent, ast.Call) and self.callee(parent) == SAVE and bind(parent, SAVE_PARAMS).args.get("m") is call:
            chain.saves.append(parent)
        elif isinstance(parent, ast.Attribute) and parent.attr == "save" and isinstance(names.parent(parent), ast.Call):
            grand = names.parent(parent)
            assert isinstance(grand, ast.Call)
            if grand.func is parent:
                chain.saves.append(grand)
            else:
                chain.keep = "used as `.save`"
        else:
            chain.keep = "its result is used where this pass cannot see (returned, passed on, stored or checked)"

    def bound_uses(self, chain: _Chain, target: ast.Name, assign: ast.Assign) -> None:
        """Fill ``chain.calls``/``saves`` from the uses of the name bound at ``target``, or keep the chain."""
        names = self.names
        scope = names.scope(target)
        if scope.kind == "class":
            chain.keep = "a class attribute, used where this pass cannot see"
            return
        end = (assign.end_lineno or 0, assign.end_col_offset or 0)
        for other in scope.bindings.get(target.id, []):
            if other is not target and (getattr(other, "lineno", 0), getattr(other, "col_offset", 0)) > end:
                chain.keep = f"{chain.label} is assigned again on line {self.line(other)}"
                return
        function = scope.function()
        for use in names.uses(scope, target.id):
            if names.scope(use) is scope and (use.lineno, use.col_offset) <= end:
                continue  # an earlier value of the same name (`model = trace(model, x)`)
            parent = names.parent(use)
            if isinstance(parent, ast.Call) and parent.func is use:
                chain.calls.append(parent)
                if self.in_loop(parent, function):
                    chain.in_loop = True
            elif isinstance(parent, ast.Call) and self.callee(parent) == SAVE and bind(parent, SAVE_PARAMS).args.get("m") is use:
                chain.saves.append(parent)
            elif isinstance(parent, ast.Attribute) and parent.attr == "save" and isinstance(names.parent(parent), ast.Call):
                chain.saves.append(names.parent(parent))  # type: ignore[arg-type]
            else:
                chain.keep = f"{chain.label} is used where this pass cannot follow it (line {use.lineno})"
                return

    def in_loop(self, call: ast.Call, function: Scope) -> bool:
        """Whether ``call`` runs in a loop of ``function`` (the scope that binds what it calls), not at module level."""
        if function.kind == "module":
            return False
        for ancestor in self.names.ancestors(call):
            if ancestor is function.node:
                return False
            if isinstance(ancestor, LOOPS):
                return True
        return False

    # --- saves and loads ----------------------------------------------------------------------------------------

    def save_path(self, save: ast.Call) -> ast.expr | None:
        is_method = self.callee(save) != SAVE
        bound = bind(save, ("f", "_extra_files") if is_method else SAVE_PARAMS)
        if bound.star or bound.extra or bound.unknown:
            return None
        return bound.args.get("f")

    def pair_saves_and_loads(self, chains: list[_Chain], calls: list[ast.Call]) -> list[ast.Call]:
        """Which loads migrate with the traces whose archives they read; archives for other readers keep TorchScript."""
        claimed = {id(save) for chain in chains for save in chain.saves}
        torchscript_keys: dict[str, int] = {}  # path key → line of a save that stays TorchScript
        loads: list[_Load] = []
        for call in calls:
            name = self.callee(call)
            if name == SAVE and id(call) not in claimed:
                key = _path_key(self.save_path(call))
                if key is not None:
                    torchscript_keys.setdefault(key, self.line(call))
                self.loose = self.loose or f"torch.jit.save of an object this pass cannot follow (line {self.line(call)})"
            elif name == LOAD:
                loads.append(self.load(call))
        load_keys = {load.key for load in loads if load.key is not None}
        written: set[str] = set(torchscript_keys)
        for chain in chains:
            for save in chain.saves:
                key = _path_key(self.save_path(save))
                if key is None:
                    chain.keep = chain.keep or "its save passes arguments this pass cannot map"
                    continue
                written.add(key)
                if key not in load_keys:
                    chain.keep = chain.keep or "it writes an archive that this file does not read back (for readers elsewhere)"
            if chain.kind == "script" and chain.saves and not chain.stays:
                chain.problem = (
                    f"torch.jit.script not migrated: {chain.label} is saved as TorchScript and read back in this file "
                    f"(line {self.line(chain.saves[0])}): torch.jit.script has no example inputs, so it cannot become "
                    "torch.export; export the module with torch.export.export(model, example_args), save it with "
                    "torch.export.save and load it with torch.export.load(path).module()"
                )
        changed = True
        export_keys: dict[str, int] = {}
        while changed:
            changed = False
            export_keys = {}
            for chain in chains:
                keys = [k for k in (_path_key(self.save_path(s)) for s in chain.saves) if k is not None]
                if chain.stays or chain.kind != "trace":
                    for key in keys:
                        torchscript_keys.setdefault(key, self.line(chain.node))
                    continue
                for key in keys:
                    if key in torchscript_keys:
                        chain.keep = f"the archive path is also written as TorchScript on line {torchscript_keys[key]}"
                        changed = True
                        break
                    if any(load.key == key and not self.allowed(load.call) for load in loads):
                        chain.keep = "a load of its archive is kept by a `# migrate: ignore` comment"
                        changed = True
                        break
                    blocker = next((load for load in loads if load.key == key and load.problem is not None), None)
                    if blocker is not None:
                        chain.problem = (
                            f"torch.jit.trace not migrated with its archive: the load on line {self.line(blocker.call)} "
                            f"cannot migrate ({blocker.problem})"
                        )
                        changed = True
                        break
                else:
                    for key in keys:
                        export_keys.setdefault(key, self.line(chain.node))
        migrated: list[ast.Call] = []
        for load in loads:
            if load.key in export_keys and load.key not in torchscript_keys and load.problem is None and self.allowed(load.call):
                migrated.append(load.call)
            elif load.key not in written:
                self.loose = self.loose or f"torch.jit.load of an archive this file does not write (line {self.line(load.call)})"
        return migrated

    def load(self, call: ast.Call) -> _Load:
        bound = bind(call, LOAD_PARAMS)
        f = bound.args.get("f")
        key = _path_key(f)
        if bound.star or bound.extra or bound.unknown or f is None:
            return _Load(call, key, "its arguments cannot be mapped")
        if "map_location" in bound.args:
            return _Load(
                call,
                key,
                "`map_location` has no torch.export.load equivalent: move the module with `.to(device)` after loading",
            )
        if "_restore_shapes" in bound.args:
            return _Load(call, key, "`_restore_shapes` has no torch.export.load equivalent")
        use = self.loaded_use(call)
        if use is not None:
            return _Load(
                call,
                key,
                f"the loaded module is used as `{use}`, which the module of an exported program does not support "
                "(`.eval()`/`.train()` raise NotImplementedError: an exported program keeps the mode it was exported in)",
            )
        return _Load(call, key, None)

    def loaded_use(self, call: ast.Call) -> str | None:
        """The first attribute used on a loaded module that an exported program's module lacks."""
        names = self.names
        parent = names.parent(call)
        if isinstance(parent, ast.Attribute) and parent.value is call:
            return None if parent.attr in LOADED_OK else f".{parent.attr}"
        if isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1:
            target = parent.targets[0]
            if not isinstance(target, ast.Name):
                return None
            scope = names.scope(target)
            end = (parent.end_lineno or 0, parent.end_col_offset or 0)
            for use in names.uses(scope, target.id):
                used = names.parent(use)
                if isinstance(used, ast.Attribute) and used.attr not in LOADED_OK and (use.lineno, use.col_offset) > end:
                    return f"{target.id}.{used.attr}"
        return None


def analyse(text: str, tree: ast.Module) -> Plan:
    """The plan for ``text`` (whose stdlib ``ast`` is ``tree``): edits to make and findings to report."""
    return _Analysis(text, tree).run()
