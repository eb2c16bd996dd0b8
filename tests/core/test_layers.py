"""The package's layers import one way (core ← python, project ← notebook ← run ← output ← cli) and no module
imports itself back through others. Function-local imports count; imports under ``if TYPE_CHECKING:`` do not."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "torchmigrate"

# What each layer may import from (besides itself). Passes (codemods) sit beside notebook: they build on the libcst
# machinery and the project-file machinery, and nothing but the registry's discovery by name reaches them.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "python": {"core"},
    "project": {"core"},
    "notebook": {"core", "python", "project"},
    "codemods": {"core", "python", "project"},
    "run": {"core", "python", "project", "notebook"},
    "output": {"core", "python", "project", "notebook", "run"},
    "api": {"core", "python", "run"},
    "cli": {"core", "python", "project", "notebook", "run", "output", "api"},
    "__init__": {"core", "api"},
    # The `migrate` command's entry point: the replay of an unchanged run (run), else the command line.
    "launch": {"run", "cli"},
    "__main__": {"launch"},
    # The release radar (a maintainer tool, `python -m torchmigrate.radar`) reads wheels with the stdlib alone.
    "radar": set(),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, module: str | None = None) -> set[str]:
    """The torchmigrate modules ``path`` (module ``module``) imports, at any depth but under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "torchmigrate")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] == "torchmigrate":
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    found.add(candidate if (PACKAGE.parent / Path(*candidate.split("."))).exists() or
                              (PACKAGE.parent / Path(*candidate.split("."))).with_suffix(".py").exists() else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_each_layer_imports_only_the_layers_below_it() -> None:
    wrong = []
    for module, imported in graph().items():
        for target in imported:
            if target == "torchmigrate":
                wrong.append(f"{module} imports the package root")
                continue
            here, there = layer(module), layer(target)
            if there != here and there not in ALLOWED[here]:
                wrong.append(f"{module} ({here}) imports {target} ({there})")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_import_cycle() -> None:
    edges = graph()
    # A package's __init__ is imported whenever a module below it is: count that edge, as Python runs it — unless that
    # __init__ itself loads the module, directly or through its other modules (a pass package's __init__ importing its
    # analysis and rewrite steps): then the module runs while the __init__ does, the package already in sys.modules.
    imported = {module: set(targets) for module, targets in edges.items()}

    def loaded_by(package: str) -> set[str]:
        seen: set[str] = set()
        todo = [package]
        while todo:
            for target in imported.get(todo.pop(), ()):
                if target.startswith(package + ".") and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    for module in list(edges):
        parts = module.split(".")
        for k in range(2, len(parts)):
            parent = ".".join(parts[:k])
            if parent in edges and parent != module and module not in loaded_by(parent):
                edges[module] = edges[module] | {parent}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in edges:
                continue
            if state.get(target) == 1:
                cycles.append(" → ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(cycles)


def test_the_checker_sees_function_local_and_relative_imports_but_not_type_checking_ones(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from torchmigrate.cli import app\n"
        "def f():\n    from torchmigrate.run import runner\n    import torchmigrate.output.diffs\n"
        "    from ..core.text import split_lines\n"
    )
    assert imports_of(source, "torchmigrate.python.x") == {
        "torchmigrate.run.runner",
        "torchmigrate.output.diffs",
        "torchmigrate.core.text",
    }
