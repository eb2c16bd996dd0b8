"""libcst machinery shared by every pass: name resolution, references to new APIs, guards, suppressions.

Passes never edit import statements by hand. They ask :meth:`PassTransformer.ref` for an expression that names a new
API (it reuses the file's own ``import torch as th`` alias, or schedules an import), and the engine runs libcst's
``AddImportsVisitor`` / :func:`torchmigrate.python.imports.drop_unused_imports` after the pass, so an import that a rewrite
leaves unused goes away. Declarative renames live in :mod:`torchmigrate.python.renames`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

import libcst as cst
from libcst._metadata_dependent import LazyValue
from libcst.metadata import (
    BaseMetadataProvider,
    GlobalScope,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from torchmigrate.core.results import Edit, Finding
from torchmigrate.python.codemod import (
    ADD_IMPORTS_KEY,
    REMOVE_IMPORTS_KEY,
    ModuleImports,
    PassContext,
    add_needed_import,
    module_imports,
    remove_unused_import_by_node,
    resolve_metadata,
    schedule_from_module_imports,
    scope_resolved,
)
from torchmigrate.python.fastnames import UNKNOWN, FastNames
from torchmigrate.python.guards import guarded_imports, is_version_guard, version_flags
from torchmigrate.python.helpers import (
    build_attrs,
    build_dotted,
    chain_root,
    code_of,
    dotted_name,
    keep_layout_in,
    kwarg,
    module_part,
    without_kwargs,
)
from torchmigrate.python.starargs import StarKeys, star_keys

_UNDEFINED: Any = object()
_BINDING_SITES = (cst.Param, cst.FunctionDef, cst.ClassDef, cst.AsName, cst.MatchAs, cst.MatchStar, cst.MatchMapping)
_UNSCOPED_PARTS = (cst.Attribute, cst.Arg, cst.NameItem, cst.Import, cst.ImportFrom, *_BINDING_SITES)
_GUARD, _UNSCOPED = 1, 2
_KINDS: dict[type, int] = {}
"""Per node type, what ``PassTransformer.on_visit`` looks for in it: a possible guard (``_GUARD``: ``If``, ``IfExp``,
``Try``), a part of the tree libcst gives no scope (``_UNSCOPED``). libcst's nodes are ABCs, whose ``isinstance``
goes through ``ABCMeta``: once per type here, not twice per node visited."""


def _kind_of(node_type: type) -> int:
    kind = (_GUARD if issubclass(node_type, PassTransformer._GUARDS) else 0) | (
        _UNSCOPED if issubclass(node_type, _UNSCOPED_PARTS) else 0
    )
    _KINDS[node_type] = kind
    return kind


class _CheckFastNames:
    """Tests turn this on: every scope-free answer is compared with libcst's (and the answers of each kind counted)."""

    enabled = False
    fast = 0
    slow = 0
    mismatches: list[tuple[str, object, object]] = []  # (code, fast answer, libcst's)


CHECK_FAST_NAMES = _CheckFastNames()


class _CheckVisitedParents:
    """Tests turn this on: the parent the visit stack gives each visited node is compared with libcst's
    ``ParentNodeProvider`` (``checked`` counts the nodes; ``answered`` the parent questions the stack answered)."""

    enabled = False
    checked = 0
    answered = 0
    mismatches: list[tuple[str, str, str]] = []  # (node, the stack's parent, libcst's)


CHECK_VISITED_PARENTS = _CheckVisitedParents()


class _CheckImportSchedule:
    """Tests turn this on: ``drop_imports_of`` computes libcst's schedule as well wherever it took the scope-free
    one, and records both when they differ (``fast`` counts the scope-free schedules)."""

    enabled = False
    fast = 0
    mismatches: list[tuple[str, object, object]] = []  # (node, scope-free schedule, libcst's)


CHECK_IMPORT_SCHEDULE = _CheckImportSchedule()
_M = TypeVar("_M")

if TYPE_CHECKING:
    from torchmigrate.core.passes import Pass
    from torchmigrate.python.positions import StatementPositions

__all__ = [
    "CallContext",
    "PassTransformer",
    "Sink",
    "build_dotted",
    "dotted_name",
    "kwarg",
]

# Submodules that ``import torch`` (or ``import torchvision``) loads by itself (checked on torch 2.13.0). A reference to
# any other module gets an explicit ``import`` so the rewritten code does not depend on some other file having imported
# it first.
AUTOLOADED = frozenset(
    {
        "torch",
        "torch.accelerator",
        "torch.amp",
        "torch.ao.quantization",
        "torch.autograd",
        "torch.backends.cuda",
        "torch.backends.cudnn",
        "torch.backends.mkldnn",
        "torch.backends.mps",
        "torch.compiler",
        "torch.cpu",
        "torch.cuda",
        "torch.distributed",
        "torch.export",
        "torch.func",
        "torch.fx",
        "torch.fx._symbolic_trace",
        "torch.hub",
        "torch.jit",
        "torch.library",
        "torch.linalg",
        "torch.nn",
        "torch.nn.attention",
        "torch.nn.functional",
        "torch.nn.init",
        "torch.nn.utils",
        "torch.nn.utils.parametrizations",
        "torch.nn.utils.parametrize",
        "torch.onnx",  # loaded lazily on first attribute access
        "torch.optim",
        "torch.optim.lr_scheduler",
        "torch.profiler",
        "torch.serialization",
        "torch.testing",
        "torch.utils.checkpoint",
        "torch.utils.data",
        "torch.utils.dlpack",
        # `import torchvision` loads these too (torchvision 0.28's __init__ files: torchvision/__init__.py imports
        # datasets, io, models, ops, transforms and utils; models/__init__.py its subpackages; transforms.py imports
        # transforms.functional). `torchvision.transforms.v2` is not among them.
        "torchvision",
        "torchvision.datasets",
        "torchvision.io",
        "torchvision.models",
        "torchvision.models.detection",
        "torchvision.models.optical_flow",
        "torchvision.models.quantization",
        "torchvision.models.segmentation",
        "torchvision.models.video",
        "torchvision.ops",
        "torchvision.transforms",
        "torchvision.transforms.functional",
        "torchvision.utils",
    }
)

# --- small helpers passes use -------------------------------------------------------------------------------


# --- version guards -----------------------------------------------------------------------------------------


# --- suppression comments -----------------------------------------------------------------------------------


_Node = TypeVar("_Node", bound=cst.CSTNode)

# --- the transformer base -----------------------------------------------------------------------------------


@dataclass
class Sink:
    """Collects what one pass did to one file."""

    pass_id: str
    safety: str
    suppressed: dict[int, frozenset[str] | None] = field(default_factory=dict)
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    protected: set[str] = field(default_factory=set)  # code of suppressed import statements: imports are not merged

    def allows(self, *lines: int) -> bool:
        for line in lines:
            ids = self.suppressed.get(line, frozenset())
            if ids is None or (ids and self.pass_id in ids):
                return False
        return True


# The attributes libcst's matcher decorators (``@m.visit``, ``@m.call_if_inside``…) set on a method
# (libcst.matchers._visitors): a pass transformer is a plain CSTTransformer, which would silently ignore them.
_MATCHER_MARKERS = ("_call_if_inside_matcher", "_call_if_not_inside_matcher", "_visit_matcher", "_leave_matcher")


class PassTransformer(cst.CSTTransformer):
    """Base class of every pass transformer. Subclasses override ``leave_*`` methods and use the helpers here.

    Metadata is resolved on the *original* tree: look names up on ``original_node``, build on ``updated_node``.
    """

    METADATA_DEPENDENCIES = ()
    # Resolved on first use only: each provider is a whole extra visit of the tree (PositionProvider alone costs about
    # a third of the scope analysis), and most files that reach libcst need few positions or parents, and qualified
    # names that :mod:`torchmigrate.python.fastnames` gives without the scope analysis.
    LAZY_METADATA = (PositionProvider, ParentNodeProvider, QualifiedNameProvider, ScopeProvider)
    # The plan of a pass that decides from the stdlib ast (``Pass.analyse``), set by the engine before the visit.
    plan: Any = None
    # The scope-free qualified names of the text being visited, set by the engine (``None``: ask libcst).
    fast_names: FastNames | None = None
    # PositionProvider's table made per top-level statement (torchmigrate.python.positions), when the engine has one
    positions: StatementPositions | None = None
    # When the engine runs the pass on a slice of the file: the text of the statements the slice left out (the
    # passes never change it). See ``whole_text_has``.
    outside_text: str = ""

    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        # A plain CSTTransformer with a PassContext (libcst's CodemodContext fields), not libcst's
        # ContextAwareTransformer: its matcher-decorator support inspects every member of the class on each
        # instantiation and evaluates matchers at every node, which cost more than most passes' own work, and
        # importing it loads libcst's matchers (see torchmigrate.python.codemod). No pass uses matcher decorators
        # (``__init_subclass__`` refuses them).
        cst.CSTTransformer.__init__(self)
        self.context = context
        self.pass_ = pass_
        self.sink = sink
        self._global_names: set[str] | None = None
        self._module_imports: list[tuple[str, str]] | None = None
        self._removed: list[cst.SimpleStatementLine] = []
        self._version_flags: frozenset[str] | None = None
        self._guarded_imports: dict[int, frozenset[str]] | None = None
        self._guarded_names: frozenset[str] = frozenset()
        self._unscoped: set[int] = set()  # ids of nodes libcst gives no scope (see _mark_unscoped)
        self._binding_sites: set[int] = set()  # ids of the names of parameters, definitions, `as` targets, patterns
        # The nodes being visited, root first: the current node and its ancestors. Their parents are what
        # ParentNodeProvider would say (libcst visits a node's children from the node itself), so the walks up from the
        # current node that passes make need no extra visit of the whole tree. See _visited_parent.
        self._visiting: list[cst.CSTNode] = []
        self._module_import_table: ModuleImports | None = None

    def _visiting_index(self, node: cst.CSTNode) -> int | None:
        """Where ``node`` is on the stack of nodes being visited (it is the current node or one of its ancestors)."""
        visiting = self._visiting
        for index in range(len(visiting) - 1, -1, -1):
            if visiting[index] is node:
                return index
        return None

    def _visited_parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of ``node`` when it is the current node or one of its ancestors (else ``None``: ask libcst)."""
        index = self._visiting_index(node)
        return self._visiting[index - 1] if index else None

    def _check_visited_parent(self, node: cst.CSTNode) -> None:
        wrapper = self.context.wrapper
        if wrapper is None:
            return
        expected = resolve_metadata(wrapper, ParentNodeProvider).get(node)  # not kept in self.metadata: the stack stays in use
        got = self._visited_parent(node)
        CHECK_VISITED_PARENTS.checked += 1
        if got is not expected:
            CHECK_VISITED_PARENTS.mismatches.append((type(node).__name__, type(got).__name__, type(expected).__name__))

    def get_metadata(self, key: type[BaseMetadataProvider[_M]], node: cst.CSTNode, default: _M = _UNDEFINED) -> _M:
        if key is ParentNodeProvider and ParentNodeProvider not in self.metadata:
            parent = self._visited_parent(node)
            if parent is not None:
                CHECK_VISITED_PARENTS.answered += CHECK_VISITED_PARENTS.enabled
                return cast(_M, parent)
        if key is PositionProvider and key not in self.metadata and self.positions is not None:
            wrapper = self.context.wrapper
            if wrapper is None or PositionProvider not in wrapper._metadata:  # libcst's table, where made, is free
                if len(self._visiting) > 1:
                    self.positions.prepare(self._visiting[1])  # the top-level statement being visited
                positions = self.positions
                return cast(_M, positions[node] if default is _UNDEFINED else positions.get(node, default))
        if key in self.LAZY_METADATA and key not in self.metadata:
            wrapper = self.context.wrapper
            if wrapper is None:
                raise KeyError(f"{key.__name__}: no MetadataWrapper")
            self.metadata = {**self.metadata, key: resolve_metadata(wrapper, key)}
        if key in self.LAZY_METADATA:
            table = self.metadata[key]
            value = table[node] if default is _UNDEFINED else table.get(node, default)
            return cast(_M, value() if isinstance(value, LazyValue) else value)
        if default is _UNDEFINED:
            return super().get_metadata(key, node)
        return super().get_metadata(key, node, default)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in vars(cls).items():
            if any(hasattr(value, marker) for marker in _MATCHER_MARKERS):
                raise TypeError(f"{cls.__name__}.{name}: pass transformers do not support libcst matcher decorators")

    # Guarded legacy code is skipped whole.
    def on_visit(self, node: cst.CSTNode) -> bool:
        self._visiting.append(node)  # popped by on_leave, which libcst calls for every node it calls this for
        if CHECK_VISITED_PARENTS.enabled:
            self._check_visited_parent(node)
        kind = _KINDS.get(type(node))
        if kind is None:
            kind = _kind_of(type(node))
        if kind & _GUARD and self.is_guard(node):
            return False
        if kind & _UNSCOPED and self.fast_names is not None:
            self._mark_unscoped(node)
        if self.sink.suppressed and isinstance(node, (cst.Import, cst.ImportFrom)) and not self.allowed(node):
            self.sink.protected.add(code_of(node))
        return cst.CSTTransformer.on_visit(self, node)

    _GUARDS = (cst.If, cst.IfExp, cst.Try)

    def _mark_unscoped(self, node: cst.CSTNode) -> None:
        """Names libcst's scope analysis gives no scope, hence no qualified name: an attribute's ``attr``, a keyword
        argument's name, a ``global`` / ``nonlocal`` name, everything in an import statement. Marked as their parent
        is visited, so that :meth:`qualname` answers ``None`` for them as libcst does."""
        unscoped = self._unscoped
        if isinstance(node, cst.Attribute):
            unscoped.add(id(node.attr))
        elif isinstance(node, cst.Arg):
            if node.keyword is not None:
                unscoped.add(id(node.keyword))
        elif isinstance(node, cst.NameItem):
            unscoped.add(id(node.name))
        elif isinstance(node, _BINDING_SITES):  # a name that binds, not an expression: libcst answers for it
            name = getattr(node, "rest", None) if isinstance(node, cst.MatchMapping) else getattr(node, "name", None)
            if isinstance(name, cst.Name):
                self._binding_sites.add(id(name))
        else:  # an import statement
            stack: list[cst.CSTNode] = [node]
            while stack:
                current = stack.pop()
                unscoped.add(id(current))
                stack.extend(current.children)

    def is_guard(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is a torch version guard (:mod:`torchmigrate.python.guards`): names resolve through the
        file's imports, and the module's version flags (``TORCH_2 = version.parse(torch.__version__) >= …``) count."""
        if self._version_flags is None:
            module = self.context.module
            self._version_flags = version_flags(module, self.qualname) if module is not None else frozenset()
        return is_version_guard(node, self.qualname, self._version_flags)

    # Suppression comments are enforced here for every pass, also for transformers that forget to ask ``allowed``:
    # a rewrite of a node on a suppressed line is undone, with the edits, imports and removals it scheduled.
    _WIDE = (cst.Module, cst.BaseSuite, cst.BaseCompoundStatement)

    def on_leave(self, original_node: _Node, updated_node: _Node) -> _Node | cst.RemovalSentinel:
        try:
            return self._leave(original_node, updated_node)
        finally:
            self._visiting.pop()

    def _leave(self, original_node: _Node, updated_node: _Node) -> _Node | cst.RemovalSentinel:
        if not self.sink.suppressed or isinstance(original_node, self._WIDE):
            return cast("_Node | cst.RemovalSentinel", cst.CSTTransformer.on_leave(self, original_node, updated_node))
        scratch = self.context.scratch
        marks = {key: len(scratch.get(key, ())) for key in (ADD_IMPORTS_KEY, REMOVE_IMPORTS_KEY)}
        edits, findings, removed = len(self.sink.edits), len(self.sink.findings), len(self._removed)
        result = cast("_Node | cst.RemovalSentinel", cst.CSTTransformer.on_leave(self, original_node, updated_node))
        changed = result is not updated_node or len(self._removed) != removed
        if changed and not self.allowed(original_node):
            del self.sink.edits[edits:]
            del self.sink.findings[findings:]
            del self._removed[removed:]
            for key, mark in marks.items():
                scheduled = scratch.get(key)
                if isinstance(scheduled, list):
                    del scheduled[mark:]
            return updated_node
        return result

    def whole_text_has(self, test: Callable[[str], bool]) -> bool:
        """Whether ``test`` holds for the file's text — the module's code, or, when the engine handed the pass a
        slice, the statements the slice left out: for a pass that reads a fact of the whole file ("it uses the
        profiler") and is sliced all the same. ``test`` must look within lines (statements are left out whole)."""
        module = self.context.module
        return (module is not None and test(module.code)) or (bool(self.outside_text) and test(self.outside_text))

    # -- names --
    def qualname(self, node: cst.CSTNode) -> str | None:
        """The single import-based qualified name of ``node`` (``torch.jit.trace`` for ``th.jit.trace``), or None.

        Names that are ambiguous (bound by two different imports, as in a try/except fallback) and names the file
        defines itself give ``None``: look-alikes such as ``self.norm`` or a user function ``load`` never match.
        """
        if self.fast_names is None:
            answer: object = UNKNOWN
        elif id(node) in self._unscoped:
            answer = None
        else:
            answer = self.fast_names.lookup(node, binding=id(node) in self._binding_sites)
        if answer is UNKNOWN:
            names = self._libcst_names(node)
            found = {q.name for q in names if q.source is QualifiedNameSource.IMPORT}
            answer = found.pop() if len(found) == 1 else None
            if CHECK_FAST_NAMES.enabled:
                CHECK_FAST_NAMES.slow += 1
                reference = self.get_metadata(QualifiedNameProvider, node, set())
                if set(names) != set(reference):
                    CHECK_FAST_NAMES.mismatches.append((code_of(node), names, reference))
        elif CHECK_FAST_NAMES.enabled:
            names = self.get_metadata(QualifiedNameProvider, node, set())
            found = {q.name for q in names if q.source is QualifiedNameSource.IMPORT}
            expected = found.pop() if len(found) == 1 else None
            CHECK_FAST_NAMES.fast += 1
            if answer != expected:
                CHECK_FAST_NAMES.mismatches.append((code_of(node), answer, expected))
        if answer is None or self._bound_under_guard(node):
            return None  # (bound by an import under a version guard: code using it relies on the guard's choice)
        return answer  # type: ignore[return-value]

    def _libcst_names(self, node: cst.CSTNode) -> Collection[QualifiedName]:
        """What libcst's ``QualifiedNameProvider`` gives ``node``, for this node only: the provider is a visit of the
        whole tree that asks each node's scope for it (lazily), several seconds on a big file for the few names the
        scope-free answers leave open, and resolved again after each rewrite."""
        scope = self.get_metadata(ScopeProvider, node, None)
        return scope.get_qualified_names_for(node) if scope is not None else set()

    def _bound_under_guard(self, node: cst.CSTNode) -> bool:
        """Whether the name at the root of ``node`` is bound by an import inside a version guard (``try: from
        torch.cuda.amp import autocast`` / ``except ImportError: ...``)."""
        if self._guarded_imports is None:
            self._guarded_imports = {}  # while the scan below resolves names itself
            module = self.context.module
            found = guarded_imports(module, self.is_guard) if module is not None else {}
            self._guarded_imports, self._guarded_names = found, frozenset().union(*found.values())
        if not self._guarded_names:
            return False
        root = chain_root(node)
        if root is None or root.value not in self._guarded_names:
            return False
        scope = self.get_metadata(ScopeProvider, root, None)
        if scope is None:
            return False
        return any(id(getattr(assignment, "node", None)) in self._guarded_imports for assignment in scope[root.value])

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        try:
            start = self.get_metadata(PositionProvider, node).start
        except KeyError:
            return (0, 0)
        return (start.line, start.column + 1)

    def statement_line(self, node: cst.CSTNode) -> int:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.get_metadata(ParentNodeProvider, current, None)
        return self.position(current)[0] if current is not None else self.position(node)[0]

    def allowed(self, node: cst.CSTNode) -> bool:
        """False when a ``# migrate: ignore`` comment suppresses this pass at ``node``."""
        if not self.sink.suppressed:
            return True
        return self.sink.allows(self.position(node)[0], self.statement_line(node))

    def finding(self, node: cst.CSTNode, message: str) -> None:
        if self.allowed(node):
            line, col = self.position(node)
            self.sink.findings.append(Finding(line, col, self.pass_.id, message))

    def edited(self, node: cst.CSTNode, message: str) -> None:
        line, col = self.position(node)
        self.sink.edits.append(Edit(line, col, self.pass_.id, message, self.pass_.safety.value, self.pass_.note_for_edits))

    # -- references to new APIs --
    def global_names(self) -> set[str]:
        if self._global_names is None:
            module = self.context.module
            names: set[str] = set()
            if module is not None:
                scope = self.get_metadata(ScopeProvider, module, None)
                if scope is not None:
                    names = {a.name for a in scope.assignments}
            self._global_names = names
        return self._global_names

    def module_imports(self) -> list[tuple[str, str]]:
        """``(dotted module, local name)`` for each module-level ``import X`` / ``import X as Y``."""
        if self._module_imports is None:
            found: list[tuple[str, str]] = []
            module = self.context.module
            for statement in module.body if module is not None else ():
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        if isinstance(small, cst.Import):
                            for alias in small.names:
                                full = dotted_name(alias.name) or ""
                                if alias.asname is not None:
                                    found.append((full, dotted_name(alias.asname.name) or full))
                                else:
                                    root = full.split(".")[0]
                                    found.append((root, root))
            self._module_imports = found
        return self._module_imports

    def ref(self, qualname: str, like: cst.CSTNode | None = None) -> cst.BaseExpression:
        """An expression naming ``qualname`` that is valid at the place ``like`` stood, scheduling imports as needed.

        Reuses the alias the original code used (``th.jit.trace`` → ``th.export.export``), else a module-level
        ``import torch`` / ``import torch as th``, else adds ``from module import name`` (or ``import module`` when that
        name is already taken in the file).
        """
        module_name, _, name = qualname.rpartition(".")
        if like is not None and isinstance(like, cst.Attribute):
            root = chain_root(like)
            root_q = self.qualname(root) if root is not None else None
            if root is not None and root_q and qualname.startswith(root_q + "."):
                if module_part(module_name) != root_q:  # `import a.b as x`: x.name needs no other import
                    self._ensure_module(module_name)
                return build_dotted(root.value + qualname[len(root_q) :])
        best: tuple[str, str] | None = None
        for full, local in self.module_imports():
            if qualname.startswith(full + ".") and (best is None or len(full) > len(best[0])):
                if full == local or "." not in full:
                    best = (full, local)
        if best is not None:
            if module_name != best[0]:
                self._ensure_module(module_name)
            return build_dotted(best[1] + qualname[len(best[0]) :])
        owner = module_part(module_name)
        if owner != module_name:  # a class member (an enum value): name the class, then the member
            cls, _, rest = qualname[len(owner) + 1 :].partition(".")
            return build_attrs(self.ref(f"{owner}.{cls}"), rest)
        if module_name and not self._bound_locally(name, like):
            if name not in self.global_names():
                add_needed_import(self.context, module_name, name)
                return cst.Name(name)
            if self._global_import_of(name) == qualname:  # `from module import name` is already there
                return cst.Name(name)
        needed = module_name if module_name not in AUTOLOADED else qualname.split(".")[0]
        add_needed_import(self.context, needed)
        return build_dotted(qualname)

    def _global_import_of(self, name: str) -> str | None:
        """The qualified name a module-level import binds ``name`` to, if that is its only binding."""
        module = self.context.module
        scope = self.get_metadata(ScopeProvider, module, None) if module is not None else None
        if scope is None:
            return None
        found = scope.get_qualified_names_for(name)
        if len(found) != 1:
            return None
        only = next(iter(found))
        return only.name if only.source is QualifiedNameSource.IMPORT else None

    def _bound_locally(self, name: str, like: cst.CSTNode | None) -> bool:
        """Whether ``name`` is bound in a function or class scope around ``like`` (say a function-local
        ``from torch import X``): a module-level import of that name would be shadowed there."""
        scope = self.get_metadata(ScopeProvider, like, None) if like is not None else None
        return scope is not None and not isinstance(scope, GlobalScope) and bool(scope[name])

    def _ensure_module(self, module_name: str) -> None:
        module_name = module_part(module_name)
        if module_name and module_name not in AUTOLOADED and "." in module_name:
            add_needed_import(self.context, module_name)

    def remove_statement(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """Mark a whole statement line for deletion (done by the enclosing block, which keeps its comments and
        blank lines on the next statement, and puts ``pass`` in a block left empty)."""
        self.drop_imports_of(original)
        self._removed.append(updated)
        return updated

    def _drop_removed(self, body: Sequence[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        kept: list[cst.BaseStatement] = []
        carry: list[cst.EmptyLine] = []
        for statement in body:
            if any(statement is r for r in self._removed):
                assert isinstance(statement, cst.SimpleStatementLine)
                carry.extend(statement.leading_lines)
                continue
            if carry and isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                statement = statement.with_changes(leading_lines=[*carry, *statement.leading_lines])
                carry = []
            kept.append(statement)
        if carry and not kept:
            kept.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carry))
            carry = []
        return kept, carry

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self._removed:
            body, carry = self._drop_removed(updated_node.body)
            carry = [line for line in carry if line.comment is not None]  # no blank lines at the end of the file (W391)
            return updated_node.with_changes(body=body, footer=[*carry, *updated_node.footer])
        return updated_node

    def drop_imports_of(self, node: cst.CSTNode) -> None:
        """Remove imports that ``node`` referenced once nothing else uses them."""
        if not isinstance(node, (cst.Import, cst.ImportFrom)) and not scope_resolved(self.context.wrapper):
            ancestors = self._visited_ancestors(node)
            if ancestors is not None and schedule_from_module_imports(self.context, node, ancestors, self._imports()):
                if CHECK_IMPORT_SCHEDULE.enabled:
                    self._check_import_schedule(node, ancestors)
                return
        remove_unused_import_by_node(self.context, node)

    def _check_import_schedule(self, node: cst.CSTNode, ancestors: list[cst.CSTNode]) -> None:
        """Both schedules of ``node`` on scratch contexts; libcst's from a wrapper of its own, so that the scope
        analysis it resolves does not switch the scope-free path off for the rest of the file."""
        wrapper = self.context.wrapper
        assert wrapper is not None
        reference = getattr(self, "_reference_wrapper", None)
        if reference is None:
            reference = self._reference_wrapper = MetadataWrapper(wrapper.module, unsafe_skip_copy=True)
        fast = replace(self.context, scratch={}, warnings=[])
        slow = replace(self.context, scratch={}, warnings=[], wrapper=reference)
        schedule_from_module_imports(fast, node, ancestors, self._imports())
        remove_unused_import_by_node(slow, node)
        CHECK_IMPORT_SCHEDULE.fast += 1
        got, expected = (set(c.scratch.get(REMOVE_IMPORTS_KEY, [])) for c in (fast, slow))
        if got != expected:
            CHECK_IMPORT_SCHEDULE.mismatches.append((code_of(node), got, expected))

    def _imports(self) -> ModuleImports:
        if self._module_import_table is None:
            module = self.context.module
            self._module_import_table = module_imports(module) if module is not None else ModuleImports()
        return self._module_import_table

    def _visited_ancestors(self, node: cst.CSTNode, budget: int = 4000) -> list[cst.CSTNode] | None:
        """The ancestors of ``node`` (the module first) when it is a node of the tree being visited: the current
        node, one of its ancestors or a node below the current one (found looking at no more than ``budget`` nodes);
        ``None`` otherwise (a node a pass built, say)."""
        visiting = self._visiting
        if not visiting:
            return None
        index = self._visiting_index(node)
        if index is not None:
            return visiting[:index]
        parents: dict[int, cst.CSTNode] = {}
        pending: list[cst.CSTNode] = [visiting[-1]]
        while pending and budget > 0:
            current = pending.pop()
            if current is node:
                path: list[cst.CSTNode] = []
                while current is not visiting[-1]:
                    current = parents[id(current)]
                    path.append(current)
                return [*visiting[:-1], *reversed(path)]
            budget -= 1
            for child in current.children:
                parents[id(child)] = current
                pending.append(child)
        return None

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        # Removing statements must never leave a block empty: that would not parse.
        body, carry = self._drop_removed(updated_node.body) if self._removed else (list(updated_node.body), [])
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=body, footer=[*carry, *updated_node.footer])

    # -- call rewriting --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        rewriters = self.pass_.call_rewriters
        if not rewriters or not isinstance(original_node.func, cst.Name | cst.Attribute):
            return updated_node  # libcst names ``f(a)(b)``'s outer call after ``f`` too: only real callees match
        name = self.qualname(original_node.func)
        rewrite = rewriters.get(name) if name else None
        if rewrite is None or not self.allowed(original_node):
            return updated_node
        ctx = CallContext(self, original_node, name or "")
        result = rewrite(updated_node, ctx)
        if result is None or result.deep_equals(updated_node):
            return updated_node
        result = keep_layout_in(result, updated_node)  # arguments one per line stay so, whatever the rewriter built
        self.edited(original_node, ctx.message or f"{name} → migrated")
        self.drop_imports_of(original_node.func)
        return result


class CallContext:
    """What a call rewriter gets besides the (updated) call: lookups, references and reporting."""

    def __init__(self, transformer: PassTransformer, original: cst.Call, qualname: str) -> None:
        self.transformer = transformer
        self.original = original
        self.qualname = qualname
        self.message = ""

    def ref(self, qualname: str) -> cst.BaseExpression:
        return self.transformer.ref(qualname, like=self.original.func)

    def finding(self, message: str, node: cst.CSTNode | None = None) -> None:
        self.transformer.finding(node or self.original, message)

    def qualname_of(self, node: cst.CSTNode) -> str | None:
        """Qualified name of a node of the *original* call (``ctx.original.args[i].value`` and below)."""
        return self.transformer.qualname(node)

    def star_keys(self) -> StarKeys:
        """The keyword names the call's ``**kwargs`` visibly set (a dict built in the same function)."""
        return star_keys(self.transformer, self.original)

    def parent(self, node: cst.CSTNode | None = None) -> cst.CSTNode | None:
        return self.transformer.get_metadata(ParentNodeProvider, node or self.original, None)


class RemoveConfigOption(PassTransformer):
    """Deletes a config option a release made meaningless, in every form code sets it:

    ``torch._dynamo.config.opt = v`` (any alias of the config module) is deleted, and
    ``config.patch(opt=v)`` loses that keyword. Reading the option gets a finding. Subclasses set the class attributes.
    """

    CONFIG_MODULE = ""
    OPTION = ""
    WHY = ""

    def _is_option(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Attribute) and node.attr.value == self.OPTION and self.qualname(node.value) == self.CONFIG_MODULE
        )

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if len(original_node.body) != 1 or not self.allowed(original_node):
            return updated_node
        statement = original_node.body[0]
        targets: list[cst.BaseExpression] = []
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
            targets = [statement.target]
        if targets and all(self._is_option(t) for t in targets):
            self.edited(original_node, f"removed {self.CONFIG_MODULE}.{self.OPTION} ({self.WHY})")
            return self.remove_statement(original_node, updated_node)
        return updated_node

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self._is_option(node):
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return
        self.finding(node, f"{self.CONFIG_MODULE}.{self.OPTION} is read here: {self.WHY}; remove the dependency on it")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node or not isinstance(original_node.func, cst.Attribute):
            return result
        func = original_node.func
        if func.attr.value != "patch" or self.qualname(func.value) != self.CONFIG_MODULE:
            return result
        if kwarg(updated_node, self.OPTION) is None or not self.allowed(original_node):
            return result
        self.edited(original_node, f"dropped {self.OPTION}= from {self.CONFIG_MODULE}.patch ({self.WHY})")
        return without_kwargs(updated_node, [self.OPTION])
