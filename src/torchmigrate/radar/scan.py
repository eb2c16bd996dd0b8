"""What one release's sources say about its API, read statically with the stdlib ``ast`` (never imported).

For every module of the package: the names it binds and exports, its functions and classes with their signatures,
the functions that only raise (a removed API left as an error stub), the deprecation warnings it emits
(``warnings.warn`` / ``warn``, ``@deprecated``), the errors it raises, and — for config modules (files that call
``install_config_module``) — its keys with their defaults, aliases and deprecations. :mod:`.compare` diffs two scans.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from torchmigrate.radar.sources import Source

__all__ = ["ConfigKey", "Function", "Module", "Param", "Raise", "Scan", "Warn", "scan"]

DEPRECATION_CATEGORIES = frozenset({"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"})
_DEPRECATION_WORDS = re.compile(r"deprecat|will be removed|no longer (?:supported|used)|is removed", re.IGNORECASE)

# Files skipped whole: test helpers that are neither API nor always valid syntax for this Python.
SKIPPED = re.compile(r"/testing/_internal/|/_vendor/|/third_party/")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "posonly", "pos", "*", "kwonly", "**"
    default: str | None = None

    def __str__(self) -> str:
        prefix = {"*": "*", "**": "**"}.get(self.kind, "")
        return f"{prefix}{self.name}" + (f"={self.default}" if self.default is not None else "")


@dataclass
class Function:
    qualname: str
    path: str
    line: int
    params: tuple[Param, ...]
    stub: str | None = None  # "RuntimeError: <first line>" when the body only raises
    wraps: str | None = None  # the function it only calls and returns (a thin wrapper), as a qualified name
    overload: bool = False
    local: bool = False  # defined inside another function (not reachable as API)

    def signature(self) -> str:
        return f"({', '.join(str(p) for p in self.params)})"


@dataclass(frozen=True)
class Warn:
    scope: str
    path: str
    line: int
    category: str
    message: str
    how: str = "warn"  # "warn" (warnings.warn) or "decorator" (@deprecated)

    @property
    def key(self) -> tuple[str, str]:
        return (self.scope, self.message)


@dataclass(frozen=True)
class Raise:
    scope: str
    path: str
    line: int
    exception: str
    message: str


@dataclass(frozen=True)
class ConfigKey:
    module: str
    key: str
    path: str
    line: int
    default: str | None = None
    alias: str | None = None
    deprecated: bool = False
    message: str | None = None

    @property
    def name(self) -> str:
        return f"{self.module}.{self.key}"


@dataclass
class Module:
    name: str
    path: str
    bound: dict[str, int] = field(default_factory=dict)  # every name bound at module level → line
    exported: dict[str, int] = field(default_factory=dict)  # its public names → line
    imports: dict[str, str] = field(default_factory=dict)  # local name → qualified name, for from-imports of the package
    defined: set[str] = field(default_factory=set)  # names it defines itself (def, class, assignment)
    stars: list[tuple[str, int]] = field(default_factory=list)  # ``from X import *`` of the package's modules, with lines
    declared: list[str] | None = None  # its static ``__all__`` (None: no __all__, or a computed one)
    lazy: bool = False  # a module-level __getattr__ may produce names it does not bind
    config: bool = False  # a config module (its keys are compared as config keys, not as names)
    stub_path: str | None = None  # its .pyi, when it has one beside the .py
    stub_names: set[str] = field(default_factory=set)  # names only the .pyi binds

    def where(self, name: str) -> str:
        """The file that binds ``name``."""
        return self.stub_path if name in self.stub_names and self.stub_path else self.path

    @property
    def public(self) -> bool:
        return is_public_module(self.name)


@dataclass
class Scan:
    label: str
    package: str
    metadata: dict[str, list[str]] = field(default_factory=dict)
    modules: dict[str, Module] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    classes: dict[str, dict[str, int]] = field(default_factory=dict)  # qualified class name → member → line
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: list[Warn] = field(default_factory=list)
    raises: list[Raise] = field(default_factory=list)
    config: dict[str, ConfigKey] = field(default_factory=dict)
    unparsed: list[str] = field(default_factory=list)
    public_aliases: dict[str, list[str]] = field(default_factory=dict)  # qualified name → public names that re-export it

    def members(self, cls: str, seen: frozenset[str] = frozenset()) -> dict[str, int]:
        """A class's members, inherited ones included (bases resolved within the package)."""
        own = dict(self.classes.get(cls, {}))
        for base in self.bases.get(cls, ()):
            if base in self.classes and base not in seen:
                for name, line in self.members(base, seen | {cls}).items():
                    own.setdefault(name, line)
        return own

    def is_public(self, qualname: str) -> bool:
        return is_public_name(self.shown(qualname)) or qualname.endswith(".__init__") and is_public_name(qualname)

    def shown(self, qualname: str) -> str:
        """The shortest public spelling of ``qualname``: ``torch.cholesky`` for ``torch._linalg_utils.cholesky``,
        ``torch.Tensor.qr`` for ``torch._tensor.Tensor.qr``, ``torch.profiler.profile`` for
        ``torch.profiler.profiler.profile`` (re-exports of it or of a prefix of it); a constructor is shown as its class."""
        parts = qualname.split(".")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        best = ".".join(parts) if is_public_name(".".join(parts)) else None
        for cut in range(len(parts), 1, -1):
            for alias in self.public_aliases.get(".".join(parts[:cut]), ()):
                candidate = ".".join([alias, *parts[cut:]])
                if best is None or (candidate.count("."), candidate) < (best.count("."), best):
                    best = candidate
        return best or ".".join(parts)


def is_public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def is_public_name(qualname: str) -> bool:
    parts = qualname.split(".")
    return all(not p.startswith("_") or p == "__init__" for p in parts)


def module_of(path: str) -> str:
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


# --- expressions ----------------------------------------------------------------------------------------------


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def text_of(node: ast.AST | None) -> str:
    """The text a message expression spells: string pieces joined, ``{…}`` for each value formatted in."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(text_of(v) if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return text_of(node.left) + text_of(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return text_of(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return text_of(node.func.value)
    return "{" + ast.unparse(node) + "}"


def normalized(text: str) -> str:
    return " ".join(text.split())


def _params(args: ast.arguments) -> tuple[Param, ...]:
    found: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, a in enumerate(positional):
        default = defaults[i]
        kind = "posonly" if i < len(args.posonlyargs) else "pos"
        found.append(Param(a.arg, kind, None if default is None else ast.unparse(default)))
    if args.vararg is not None:
        found.append(Param(args.vararg.arg, "*"))
    for a, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        found.append(Param(a.arg, "kwonly", None if kw_default is None else ast.unparse(kw_default)))
    if args.kwarg is not None:
        found.append(Param(args.kwarg.arg, "**"))
    if found and found[0].name in ("self", "cls") and found[0].kind in ("pos", "posonly"):
        found = found[1:]
    return tuple(found)


def _body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """``"RuntimeError: first line"`` when the function can only raise (a removed API's error stub)."""
    body = _body(node)
    if not body or not isinstance(body[-1], ast.Raise) or body[-1].exc is None:
        return None
    if not all(isinstance(s, (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom)) for s in body[:-1]):
        return None
    exc = body[-1].exc
    name = dotted(exc.func if isinstance(exc, ast.Call) else exc) or ast.unparse(exc)
    message = text_of(exc.args[0]) if isinstance(exc, ast.Call) and exc.args else ""
    first = message.strip().splitlines()[0] if message.strip() else ""
    return f"{name.rpartition('.')[2]}: {first}".rstrip(": ")


def _wrapped(node: ast.FunctionDef | ast.AsyncFunctionDef, module_imports: Mapping[str, str], module: str,
             module_defs: Iterable[str]) -> str | None:
    """The qualified name of the function this one only calls and returns (``return cholesky(self, upper=upper)``
    after ``from ._linalg_utils import cholesky``), if that is all it does."""
    body = _body(node)
    local: dict[str, str] = {}
    for statement in body[:-1]:
        if not isinstance(statement, ast.ImportFrom):
            return None
        base = _absolute(statement, module, package_module=False)
        for alias in statement.names:
            local[alias.asname or alias.name] = f"{base}.{alias.name}"
    if not body or not isinstance(body[-1], ast.Return) or not isinstance(body[-1].value, ast.Call):
        return None
    func = dotted(body[-1].value.func)
    if func is None:
        return None
    head, _, rest = func.partition(".")
    for table in (local, module_imports):
        if head in table:
            return table[head] + (f".{rest}" if rest else "")
    if not rest and head in module_defs:
        return f"{module}.{head}"
    return None


def _absolute(node: ast.ImportFrom, module: str, package_module: bool) -> str:
    """The absolute module a ``from X import …`` names, relative imports resolved against ``module``."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if package_module else 0)
    base = parts[: max(keep, 0)]
    return ".".join([*base, node.module] if node.module else base)


def _static_all(tree: ast.Module) -> list[str] | None:
    names: list[str] | None = None
    for statement in tree.body:
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            value, names = statement.value, []
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id == "__all__":
            value, names = statement.value, []
        elif (isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
              and statement.target.id == "__all__"):
            value = statement.value
            names = names or []
        elif (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
              and isinstance(statement.value.func, ast.Attribute) and dotted(statement.value.func.value) == "__all__"
              and names is not None):
            call = statement.value
            if call.func.attr == "append" and call.args:  # type: ignore[attr-defined]
                value = ast.List(elts=[call.args[0]])
            elif call.func.attr == "extend" and call.args:  # type: ignore[attr-defined]
                value = call.args[0]
        if value is not None and names is not None:
            if isinstance(value, (ast.List, ast.Tuple)):
                names += [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            # else: computed (``__all__.append(name)`` in a loop): the literal names are a lower bound
    return names


def _top_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, including those under ``if`` / ``try`` / ``with`` (conditional definitions)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _top_statements(statement.body)
            yield from _top_statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_statements(statement.body)
            for handler in statement.handlers:
                yield from _top_statements(handler.body)
            yield from _top_statements(statement.orelse)
            yield from _top_statements(statement.finalbody)
        elif isinstance(statement, ast.With):
            yield from _top_statements(statement.body)


def _targets(statement: ast.stmt) -> Iterator[ast.Name]:
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node


def _is_type_checking(node: ast.If) -> bool:
    return dotted(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any((dotted(d) or "").rpartition(".")[2] == "overload" for d in node.decorator_list)


# --- one module ---------------------------------------------------------------------------------------------------


class _ModuleScanner(ast.NodeVisitor):
    def __init__(self, scan: Scan, module: Module, package_module: bool) -> None:
        self.scan = scan
        self.module = module
        self.package_module = package_module
        self.scopes: list[str] = [module.name]
        self.in_function = 0
        self.warn_names = {"warnings.warn", "warnings.warn_explicit"}
        self._plain_imports: set[str] = set()  # names bound by imports of other packages (not this one's API)
        self.deprecated_names = {"typing_extensions.deprecated", "warnings.deprecated", "deprecated"}

    @property
    def scope(self) -> str:
        return ".".join(self.scopes)

    def run(self, tree: ast.Module) -> None:
        module = self.module
        for statement in _top_statements(tree.body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.bound.setdefault(statement.name, statement.lineno)
                module.defined.add(statement.name)
                if statement.name == "__getattr__":
                    module.lazy = True
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                self._import(statement)
            else:
                for name in _targets(statement):
                    module.bound.setdefault(name.id, statement.lineno)
                    module.defined.add(name.id)
        module.declared = _static_all(tree)
        self.generic_visit(tree)
        if any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
               and (dotted(s.value.func) or "").endswith("install_config_module") for s in tree.body):
            module.config = True
            self._config(tree.body, "")

    def _import(self, statement: ast.Import | ast.ImportFrom) -> None:
        module = self.module
        root = self.scan.package
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                local = alias.asname or alias.name.split(".")[0]
                module.bound.setdefault(local, statement.lineno)
                self._plain_imports.add(local)
            return
        base = _absolute(statement, module.name, self.package_module)
        for alias in statement.names:
            if alias.name == "*":
                if base.split(".")[0] == root:
                    module.stars.append((base, statement.lineno))
                continue
            local = alias.asname or alias.name
            module.bound.setdefault(local, statement.lineno)
            if base.split(".")[0] == root:
                module.imports[local] = f"{base}.{alias.name}"
            else:
                self._plain_imports.add(local)
            if base == "warnings" and alias.name == "warn":
                self.warn_names.add(local)
            if alias.name == "deprecated":
                self.deprecated_names.add(local)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = f"{self.scope}.{node.name}"
        members: dict[str, int] = {}
        for statement in _top_statements(node.body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                members.setdefault(statement.name, statement.lineno)
            else:
                for name in _targets(statement):
                    members.setdefault(name.id, statement.lineno)
        self.scan.classes[qualname] = members
        self.scan.bases[qualname] = tuple(self._resolve(b) for b in node.bases if dotted(b))
        self._decorators(node, qualname)
        self.scopes.append(node.name)
        self.generic_visit(node)
        self.scopes.pop()

    def _resolve(self, node: ast.expr) -> str:
        name = dotted(node) or ""
        head, _, rest = name.partition(".")
        if head in self.module.imports:
            return self.module.imports[head] + (f".{rest}" if rest else "")
        if head in self.module.bound and not rest:
            return f"{self.module.name}.{head}"
        return name

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = f"{self.scope}.{node.name}"
        overload = _is_overload(node)
        known = self.scan.functions.get(qualname)
        if known is None or known.overload or not overload:
            self.scan.functions[qualname] = Function(
                qualname,
                self.module.path,
                node.lineno,
                _params(node.args),
                stub=_stub(node),
                wraps=_wrapped(node, self.module.imports, self.module.name, self.module.bound),
                overload=overload,
                local=self.in_function > 0,
            )
        self._decorators(node, qualname)
        self.scopes.append(node.name)
        self.in_function += 1
        self.generic_visit(node)
        self.in_function -= 1
        self.scopes.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, qualname: str) -> None:
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) or dotted(decorator.func) not in self.deprecated_names:
                continue
            category = "DeprecationWarning"
            for keyword in decorator.keywords:
                if keyword.arg == "category":
                    category = (dotted(keyword.value) or ast.unparse(keyword.value)).rpartition(".")[2]
            message = normalized(text_of(decorator.args[0])) if decorator.args else ""
            self.scan.warnings.append(Warn(qualname, self.module.path, decorator.lineno, category, message, "decorator"))

    def visit_Call(self, node: ast.Call) -> None:
        if dotted(node.func) in self.warn_names:
            category = "UserWarning"
            if len(node.args) > 1:
                category = dotted(node.args[1]) or ast.unparse(node.args[1])
            for keyword in node.keywords:
                if keyword.arg == "category":
                    category = dotted(keyword.value) or ast.unparse(keyword.value)
            category = category.rpartition(".")[2]
            message = normalized(text_of(node.args[0])) if node.args else ""
            if category in DEPRECATION_CATEGORIES or _DEPRECATION_WORDS.search(message):
                self.scan.warnings.append(Warn(self.scope, self.module.path, node.lineno, category, message))
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args and len(self.scopes) > 1:
            name = (dotted(exc.func) or "").rpartition(".")[2]
            message = normalized(text_of(exc.args[0]))
            if name and message and not message.startswith("{"):
                self.scan.raises.append(Raise(self.scope, self.module.path, node.lineno, name, message))
        self.generic_visit(node)

    # -- config modules --
    def _config(self, body: Iterable[ast.stmt], prefix: str) -> None:
        for statement in body:
            if isinstance(statement, ast.If) and _is_type_checking(statement):
                continue
            if isinstance(statement, ast.ClassDef):
                self._config(statement.body, f"{prefix}{statement.name}.")
                continue
            if isinstance(statement, ast.If):
                self._config(statement.body, prefix)
                self._config(statement.orelse, prefix)
                continue
            value: ast.expr | None = None
            names: list[str] = []
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                names, value = [statement.targets[0].id], statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
                names, value = [statement.target.id], statement.value
            for name in names:
                if name.startswith("_") or name.isupper() or value is None:
                    continue
                self._config_key(prefix + name, value, statement.lineno)

    def _config_key(self, key: str, value: ast.expr, line: int) -> None:
        default: str | None = ast.unparse(value)
        alias = message = None
        deprecated = False
        if isinstance(value, ast.Call) and (dotted(value.func) or "").rpartition(".")[2] == "Config":
            default = None
            given = {k.arg: k.value for k in value.keywords if k.arg}
            if value.args:
                given.setdefault("default", value.args[0])
            if "default" in given:
                default = ast.unparse(given["default"])
            if "alias" in given:
                alias = text_of(given["alias"])
            flag = given.get("deprecated")
            deprecated = isinstance(flag, ast.Constant) and flag.value is True
            if "deprecation_message" in given:
                message = normalized(text_of(given["deprecation_message"]))
        entry = ConfigKey(self.module.name, key, self.module.path, line, default, alias, deprecated, message)
        self.scan.config[entry.name] = entry


# --- a whole release ---------------------------------------------------------------------------------------------


def scan(source: Source) -> Scan:
    """Read every module of ``source``. A ``.py`` file wins over the ``.pyi`` stub of the same module; names that
    only the stub binds are added (see :func:`_merged`)."""
    result = Scan(source.label, source.package, dict(source.metadata))
    chosen: dict[str, str] = {}
    for path in source.paths():
        if SKIPPED.search("/" + path):
            continue
        name = module_of(path)
        if name not in chosen or chosen[name].endswith(".pyi"):
            chosen[name] = path
    for name, path in sorted(chosen.items()):
        stub = path[:-3] + ".pyi" if path.endswith(".py") and path[:-3] + ".pyi" in source.files else None
        module = None
        for each in [stub, path] if stub else [path]:
            assert each is not None
            try:
                tree = ast.parse(source.read(each))
            except (SyntaxError, ValueError):
                result.unparsed.append(each)
                continue
            read = Module(name, each)
            _ModuleScanner(result, read, package_module=each.endswith(("__init__.py", "__init__.pyi"))).run(tree)
            module = read if module is None else _merged(read, module)
        if module is not None:
            result.modules[name] = module
    _stars(result)
    for module in result.modules.values():
        if module.declared is not None:
            module.exported = {n: module.bound.get(n, 1) for n in module.declared}
        else:
            module.exported = {n: module.bound[n] for n in module.defined | set(module.imports) if not n.startswith("_")}
    _aliases(result)
    return result


def _merged(module: Module, stub: Module) -> Module:
    """A module whose ``.py`` builds names at run time (``torch/return_types.py``) and whose ``.pyi`` declares them:
    names only the stub binds count too, with the stub as their evidence."""
    for name, line in stub.bound.items():
        if name not in module.bound:
            module.bound[name] = line
            module.stub_names.add(name)
            if name in stub.defined:
                module.defined.add(name)
    module.stub_path = stub.path
    if module.declared is not None or stub.declared is not None:
        module.declared = sorted(set(module.declared or ()) | set(stub.declared or ()))
    return module


def _star_names(module: Module) -> set[str]:
    if module.declared is not None:
        return set(module.declared)
    return {n for n in module.bound if not n.startswith("_")}


def _stars(result: Scan) -> None:
    """``from X import *`` binds X's public names (its ``__all__``, else its names without an underscore)."""
    for _ in range(4):  # chains of star imports settle in a few rounds
        grew = False
        for module in result.modules.values():
            for target, line in module.stars:
                source = result.modules.get(target)
                if source is None:
                    continue
                for name in _star_names(source):
                    if name not in module.bound:
                        module.bound[name] = line
                        module.imports.setdefault(name, f"{target}.{name}")
                        grew = True
        if not grew:
            break


def _aliases(result: Scan) -> None:
    """Public names that re-export a private definition (``torch.cholesky`` → ``torch._linalg_utils.cholesky``): any
    name without an underscore that a public module imports from the package can be imported from there."""
    for module in result.modules.values():
        if not module.public:
            continue
        for local, target in module.imports.items():
            if not local.startswith("_") and target != f"{module.name}.{local}":
                result.public_aliases.setdefault(target, []).append(f"{module.name}.{local}")
