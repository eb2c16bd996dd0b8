"""Where TorchScript is the file's purpose: the contexts in which the TorchScript passes neither edit nor report.

Read from the stdlib ``ast`` (:class:`torchmigrate.python.astscope.Names`), shared by ``jit-to-export`` and
``jit-utilities``. A file keeps TorchScript on purpose when it

- is a test module (pytest ``test_*`` functions, classes with ``test_*`` methods, ``unittest.TestCase`` subclasses,
  pytest fixtures): a test that scripts or traces checks TorchScript support, and rewriting it would make it test
  something else;
- patches, tunes or extends TorchScript: it reaches private TorchScript APIs (``torch.jit._*``, ``torch._C._jit_*``,
  ``torch._jit_internal``), assigns to ``torch.jit`` attributes, names TorchScript's own types (``ScriptFunction``,
  ``RecursiveScriptModule``, ``TracedModule``, ``TracerWarning``, ``isinstance(m, torch.jit.ScriptModule)``…), or
  filters TorchScript's warnings (``warnings.filterwarnings(..., "...torch.jit...")``, ``TracerWarning``).

A pytest configuration that filters TorchScript's deprecation warning only concerns the tests, which the first rule
already leaves alone, so the passes do not read configuration files (the engine stays a pure function of the text).
"""

from __future__ import annotations

import ast
import re

from torchmigrate.python.astscope import Names

__all__ = ["on_purpose"]

# TorchScript's own types: code that names them handles TorchScript objects on purpose. (``ScriptModule`` as a base
# class is a ScriptModule subclass, which jit-to-export reports; anywhere else it is such a reference.)
TORCHSCRIPT_TYPES = frozenset(
    f"torch.jit.{name}"
    for name in (
        "ScriptModule ScriptFunction RecursiveScriptModule RecursiveScriptClass ScriptObject TracedModule "
        "TopLevelTracedModule TracerWarning CompilationUnit Error"
    ).split()
) | frozenset({"torch._C.ScriptModule", "torch._C.ScriptFunction", "torch._C.ScriptMethod", "torch._C.Graph"})
_PRIVATE = re.compile(r"^torch\.(?:jit\._|_C\._jit|_jit_internal|jit\.frontend\b|jit\.annotations\b|jit\.supported_ops\b)")
_WARNING_TEXT = re.compile(r"torch\.jit|TorchScript|jit\.", re.IGNORECASE)
_FILTERS = frozenset({"warnings.filterwarnings", "warnings.simplefilter", "pytest.mark.filterwarnings"})


def _is_test_module(tree: ast.Module, names: Names) -> bool:
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name.startswith("test"):
                return True
            for decorator in statement.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if (names.qualname(target) or "").startswith("pytest.fixture"):
                    return True
        elif isinstance(statement, ast.ClassDef):
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test_") for s in statement.body):
                return True  # a test class (its base may be any fixture: `class RpcTest(RpcAgentTestFixture)`)
            for base in statement.bases:
                shown = (names.qualname(base) or _dotted(base) or "").rsplit(".", 1)[-1]
                if shown.endswith("TestCase"):
                    return True
    return False


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def on_purpose(tree: ast.Module, names: Names) -> str | None:
    """Why this file keeps TorchScript on purpose (see the module docstring), or ``None``. Looks only at the module's
    top-level definitions, its imports and the uses of names that imports bind (``Names.rooted``)."""
    if _is_test_module(tree, names):
        return "a test module (its TorchScript uses test TorchScript support)"
    for statement in names.imports:
        if isinstance(statement, ast.ImportFrom):
            if statement.level == 0 and statement.module:
                for alias in statement.names:
                    if _PRIVATE.match(f"{statement.module}.{alias.name}"):
                        return f"it uses TorchScript internals ({statement.module}.{alias.name})"
        else:
            for alias in statement.names:
                if _PRIVATE.match(alias.name + "."):
                    return f"it uses TorchScript internals ({alias.name})"
    bases = {id(b) for cls in names.classes for b in cls.bases}
    for node, qualname in names.rooted("torch", "warnings", "pytest"):
        parent = names.parent(node)
        if qualname in _FILTERS:
            if isinstance(parent, ast.Call) and parent.func is node:
                for arg in (*parent.args, *(k.value for k in parent.keywords)):
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _WARNING_TEXT.search(arg.value):
                        return "it filters TorchScript's warnings"
            continue
        if not qualname.startswith("torch."):
            continue
        if _PRIVATE.match(qualname):
            return f"it uses TorchScript internals ({qualname})"
        if qualname in TORCHSCRIPT_TYPES and id(node) not in bases:
            return f"it handles TorchScript objects ({qualname})"
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and qualname.startswith("torch.jit."):
            return f"it patches TorchScript ({qualname} = ...)"
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id == "setattr"
            and parent.args[:1] == [node]
            and qualname.startswith("torch.jit")
        ):
            return "it patches TorchScript (setattr on torch.jit)"
    return None
