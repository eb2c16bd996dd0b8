"""Version guards: code under a check of *torch's* version, or in a torch import fallback, is legacy on purpose.

Exactly these count (everything else — another package's ``__version__``, ``sys.version_info``, ``hasattr(self.cfg,
…)``, ``getattr(config, …)`` — is ordinary code, and migrated):

- a condition that reads torch's own version: ``torch.__version__`` or ``torch.version.*`` (any alias of ``torch``,
  also inside ``packaging.version.parse(...)``, ``LooseVersion(...)``, ``digit_version(...)``), a name that says it is
  torch's version or a comparison with it (``TORCH_VERSION``, ``torch_version()``, ``TORCH_GE_2_4``,
  ``_TORCH_GREATER_EQUAL_2_1``, ``is_torch_version(">=", "2.4")``), or a module-level flag computed from one of those
  (``_NEW_API = version.parse(torch.__version__) >= version.parse("2.4")``);
- ``hasattr(obj, name)`` / ``getattr(obj, name, None)`` where ``obj`` is a torch module or object (``torch``,
  ``torch.distributed``, ``dist`` for ``import torch.distributed as dist``, ``F.scaled_dot_product_attention``), and
  ``"name" in dir(obj)`` for such an ``obj`` (NVIDIA/apex shims missing collectives this way);
- ``try`` / ``except (ImportError, ModuleNotFoundError, AttributeError)`` whose body imports from torch
  (``from torch… import``, ``import torch.x``: not a bare ``import torch``, which checks that torch is installed; the
  same for torchvision, torchaudio, torchtext and torchdata, whose removals the companion passes migrate), and
  a ``try`` whose body only imports (one of them from torch), whatever it catches.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable

import libcst as cst

from torchmigrate.python.helpers import child_statements, code_of, dotted_name
from torchmigrate.python.precheck import ast_chain, call_arguments, walk

__all__ = ["QualnameOf", "guarded_imports", "is_version_guard", "reads_torch_version", "version_flags"]

QualnameOf = Callable[[cst.CSTNode], "str | None"]
"""The import-based qualified name of a node (``torch.distributed`` for ``dist``), or ``None``."""

# An identifier that names torch (not torchvision, torchaudio…) and a version or a version comparison.
_TORCH_WORD = re.compile(r"(?:^|[^a-z])(?:py)?torch(?![a-z])", re.IGNORECASE)
_VERSION_WORD = re.compile(
    r"version|(?:^|_)(?:major|minor)(?:_|$)|(?:^|_)(?:ge|gt|lt|le|eq|geq|leq)(?:_|\d|$)|greater|less|newer|older|at_?least|before|after|\d_\d",
    re.IGNORECASE,
)
_GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})


def _names_torch_version(identifier: str) -> bool:
    return bool(_TORCH_WORD.search(identifier) and _VERSION_WORD.search(identifier))


def _resolve(node: cst.CSTNode, qualname: QualnameOf | None) -> str | None:
    """``node``'s qualified name, or (without a resolver, or when it gives none) its spelling when that starts with
    ``torch``."""
    found = qualname(node) if qualname is not None else None
    if found is not None:
        return found
    spelled = dotted_name(node)
    return spelled if spelled is not None and (spelled == "torch" or spelled.startswith("torch.")) else None


# torch and the companion packages released with it: an import fallback around one of them keeps older releases working
_TORCH_FAMILY = ("torch", "torchvision", "torchaudio", "torchtext", "torchdata")


def _is_torch(name: str | None) -> bool:
    return name is not None and name.split(".")[0] == "torch"


def _is_torch_family(name: str | None) -> bool:
    return name is not None and name.split(".")[0] in _TORCH_FAMILY


class _Reads(cst.CSTVisitor):
    def __init__(self, qualname: QualnameOf | None, flags: frozenset[str]) -> None:
        super().__init__()
        self.qualname = qualname
        self.flags = flags
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.found:
            return False
        name = _resolve(node, self.qualname)
        if name is not None and (name == "torch.__version__" or name == "torch.version" or name.startswith("torch.version.")):
            self.found = True
        elif _names_torch_version(node.attr.value) or node.attr.value in self.flags:
            self.found = True
        return not self.found

    def visit_Name(self, node: cst.Name) -> bool:
        if not self.found and (node.value in self.flags or _names_torch_version(node.value)):
            self.found = True
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if self.found:
            return False
        if isinstance(node.func, cst.Name) and node.func.value in ("hasattr", "getattr") and node.args:
            default_none = (
                node.func.value == "hasattr"
                or (len(node.args) == 3 and isinstance(node.args[2].value, cst.Name) and node.args[2].value.value == "None")
            )
            if default_none and _is_torch(_resolve(node.args[0].value, self.qualname)):
                self.found = True
                return False
        if isinstance(node.func, cst.Name) and node.func.value == "dir" and len(node.args) == 1:
            if _is_torch(_resolve(node.args[0].value, self.qualname)):  # `"name" in dir(torch.distributed)`
                self.found = True
                return False
        return True


def reads_torch_version(expression: cst.CSTNode, qualname: QualnameOf | None = None, flags: frozenset[str] = frozenset()) -> bool:
    """Whether ``expression`` tests torch's version (or the presence of a torch API): see the module docstring.
    ``flags``: module-level names known to hold such a test (:func:`version_flags`)."""
    reads = _Reads(qualname, flags)
    expression.visit(reads)
    return reads.found


def _module_statements(body: Iterable[cst.BaseStatement]) -> Iterable[cst.BaseSmallStatement]:
    """The small statements that run at module level: top level, and in module-level ``if`` / ``try`` / ``with``
    blocks (not in functions or classes)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            blocks: list[cst.BaseSuite] = [statement.body]
            if isinstance(statement, cst.If) and statement.orelse is not None:
                orelse = statement.orelse
                blocks.append(orelse.body if isinstance(orelse, cst.Else) else cst.IndentedBlock(body=[orelse]))
            if isinstance(statement, cst.Try):
                blocks.extend(handler.body for handler in statement.handlers)
                if statement.orelse is not None:
                    blocks.append(statement.orelse.body)
            for block in blocks:
                if isinstance(block, cst.IndentedBlock):
                    yield from _module_statements(block.body)
                elif isinstance(block, cst.SimpleStatementSuite):
                    yield from block.body


def version_flags(module: cst.Module, qualname: QualnameOf | None = None) -> frozenset[str]:
    """Module-level names assigned a torch version test: ``TORCH_2 = version.parse(torch.__version__).major >= 2``."""
    flags: set[str] = set()
    for small in _module_statements(module.body):
        targets: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        if isinstance(small, cst.Assign):
            targets, value = [t.target for t in small.targets], small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets, value = [small.target], small.value
        names = [t.value for t in targets if isinstance(t, cst.Name)]
        if names and value is not None and reads_torch_version(value, qualname, frozenset(flags)):
            flags.update(names)
    return frozenset(flags)


def _imports_torch(body: cst.BaseSuite) -> tuple[bool, bool]:
    """(whether the block imports from torch, whether it holds nothing but imports)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    torch_import, only_imports = False, True
    for statement in statements:
        smalls = statement.body if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
        if smalls is None:
            only_imports = False
            continue
        for small in smalls:
            if isinstance(small, cst.Import):  # `import torch` alone is an availability check, not a version fallback
                torch_import |= any(
                    "." in (name := dotted_name(alias.name) or "") and _is_torch_family(name) for alias in small.names
                )
            elif isinstance(small, cst.ImportFrom):
                module = dotted_name(small.module) if small.module is not None else None
                torch_import |= not small.relative and _is_torch_family(module)
            elif not isinstance(small, cst.Pass):
                only_imports = False
    return torch_import, only_imports


def is_version_guard(node: cst.CSTNode, qualname: QualnameOf | None = None, flags: frozenset[str] = frozenset()) -> bool:
    """A branch chosen by a check of torch's version or of a torch API's presence, or a torch import fallback.

    Code inside such a guard is legacy on purpose (it keeps older releases working), so passes leave it alone, as ruff
    does for code behind ``sys.version_info`` checks. ``qualname`` resolves names through the file's imports (without
    it, only names spelled ``torch…`` are taken for torch); ``flags`` are the module's version flags.
    """
    if isinstance(node, (cst.If, cst.IfExp)):
        return reads_torch_version(node.test, qualname, flags)
    if isinstance(node, cst.Try):
        torch_import, only_imports = _imports_torch(node.body)
        if not torch_import:
            return False
        if only_imports:
            return True
        for handler in node.handlers:
            if handler.type is not None and set(re.findall(r"[A-Za-z_]\w*", code_of(handler.type))) & _GUARD_EXCEPTIONS:
                return True
    return False


def guarded_imports(module: cst.Module, is_guard: Callable[[cst.CSTNode], bool]) -> dict[int, frozenset[str]]:
    """The import statements inside version guards (by ``id``) with the names they bind: code that uses those names
    relies on the guard's choice, so passes leave it alone. Statements are walked, never expressions."""
    found: dict[int, frozenset[str]] = {}
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            if guarded and not isinstance(node.names, cst.ImportStar):
                found[id(node)] = frozenset(_bound(alias, isinstance(node, cst.Import)) for alias in node.names)
            continue
        if not guarded and isinstance(node, (cst.If, cst.Try)) and is_guard(node):
            guarded = True
        stack.extend((child, guarded) for child in reversed(child_statements(node)))
    return found


def _bound(alias: cst.ImportAlias, straight: bool) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name = dotted_name(alias.name) or ""
    return name.split(".")[0] if straight else name


# Every condition the rule accepts spells one of these in a name or attribute (torch's version, a torch-version
# name or flag, hasattr / getattr, `in dir(...)`): a cheap test that spares the libcst rule all other conditions.
_VERSION_ISH = re.compile(r"version|torch|hasattr|getattr|^dir$", re.IGNORECASE)


def _may_test_a_version(test: ast.expr) -> bool:
    for sub in walk(test):
        word = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if word is not None and _VERSION_ISH.search(word):
            return True
    return False


def is_version_guard_ast(node: ast.AST) -> bool:
    """:func:`is_version_guard` for the stdlib ``ast`` (passes that decide from the ``ast``: ``Pass.analyse``), by the
    same rule without import-based qualified names or module-level flags (so a guard read through an alias such as
    ``dist`` is missed): what the libcst rule answers for the statement as ``ast.unparse`` spells it, which
    ``tests/python/test_guards.py`` checks on every ``if`` and ``try`` of the pass examples and of real files. Written
    on the ast, it costs no libcst parse of each candidate statement (a tenth of the detectors' time on torch's
    sources)."""
    if isinstance(node, (ast.If, ast.IfExp)):
        return _ast_reads_torch_version(node.test)
    if isinstance(node, ast.Try):
        return _ast_import_fallback(node)
    return False


def _ast_is_torch(node: ast.expr) -> bool:
    """``_is_torch(_resolve(node, None))``: a Name/Attribute chain spelled from ``torch``."""
    spelled = ast_chain(node)
    return spelled is not None and spelled.split(".")[0] == "torch"


_VERSION_PATHS = ("torch.__version__", "torch.version")


def _ast_reads_torch_version(test: ast.expr) -> bool:
    """:func:`reads_torch_version` without a resolver or flags: any node of ``test`` that ``_Reads`` accepts (libcst's
    ``Name`` nodes are the ast's names, attributes' ``attr``, keyword names and parameters). As before it was written
    on the ast, the libcst rule is asked only where a name or attribute passes ``_may_test_a_version``: a keyword
    name or a parameter alone (``f(torch_version=1)``) does not count."""
    named = False  # a keyword name or a parameter names torch's version
    for sub in walk(test):
        kind = type(sub)
        if kind is ast.Name:
            if _names_torch_version(sub.id):  # type: ignore[attr-defined]
                return True
        elif kind is ast.Attribute:
            spelled = ast_chain(sub)  # type: ignore[arg-type]
            if spelled is not None and (spelled in _VERSION_PATHS or spelled.startswith("torch.version.")):
                return True
            if _names_torch_version(sub.attr):  # type: ignore[attr-defined]
                return True
        elif kind is ast.keyword:
            named = named or (sub.arg is not None and _names_torch_version(sub.arg))  # type: ignore[attr-defined]
        elif kind is ast.arg:
            named = named or _names_torch_version(sub.arg)  # type: ignore[attr-defined]
        elif kind is ast.Call:
            func = sub.func  # type: ignore[attr-defined]
            if not isinstance(func, ast.Name) or func.id not in ("hasattr", "getattr", "dir"):
                continue
            values = call_arguments(sub)  # type: ignore[arg-type]
            if func.id == "dir":
                if len(values) == 1 and _ast_is_torch(values[0]):
                    return True
                continue
            default_none = func.id == "hasattr" or (
                len(values) == 3 and isinstance(values[2], ast.Constant) and values[2].value is None
            )
            if values and default_none and _ast_is_torch(values[0]):
                return True
    return named and _may_test_a_version(test)


def _ast_import_fallback(node: ast.Try) -> bool:
    """The ``try`` half of :func:`is_version_guard` (``_imports_torch`` and the handlers' exception names)."""
    torch_import, only_imports = False, True
    for statement in node.body:
        if isinstance(statement, ast.Import):
            torch_import |= any("." in alias.name and _is_torch_family(alias.name) for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            torch_import |= not statement.level and _is_torch_family(statement.module)
        elif not isinstance(statement, ast.Pass):
            only_imports = False
    if not torch_import:
        return False
    if only_imports:
        return True
    for handler in node.handlers:
        if handler.type is None:
            continue
        try:
            spelled = ast.unparse(handler.type)
        except RecursionError:
            return False  # (the libcst rule could not be asked either)
        if set(re.findall(r"[A-Za-z_]\w*", spelled)) & _GUARD_EXCEPTIONS:
            return True
    return False


def is_version_guard_via_libcst(node: ast.AST) -> bool:
    """The reference :func:`is_version_guard_ast` keeps to: the statement spelled again by ``ast.unparse`` and judged by
    the libcst rule (what it did before it was written on the ast)."""
    try:
        if isinstance(node, (ast.If, ast.IfExp)):
            if not _may_test_a_version(node.test):
                return False
            statement = cst.parse_statement(f"if {ast.unparse(node.test)}:\n    pass\n")
        elif isinstance(node, ast.Try):
            if not any(isinstance(child, (ast.Import, ast.ImportFrom)) for child in node.body):
                return False  # both import-fallback rules need an import in the try body
            statement = cst.parse_statement(ast.unparse(node) + "\n")
        else:
            return False
    except (RecursionError, cst.ParserSyntaxError, ValueError):  # too deep to spell, or not spelled back: no guard
        return False
    return is_version_guard(statement)
