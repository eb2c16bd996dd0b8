"""Maintainer command: the table of torchvision's legacy ``pretrained=`` flags, generated from torchvision's sources.

    python -m torchmigrate.codemods.torchvision.weights_table TORCHVISION_DIR [--model-urls OLD_DIR] [--output FILE]

``TORCHVISION_DIR`` is the ``torchvision`` package folder of an unpacked wheel (``pip download --no-deps
torchvision==X`` and unzip it). Nothing is imported or run: the sources of ``torchvision/models`` are read with the
stdlib ``ast``. The table (``weights.json`` beside this file, read by the ``torchvision-pretrained`` pass) records

- ``builders``: every model builder decorated with ``@handle_legacy_interface`` (torchvision/models/_utils.py), under
  each qualified name it can be called by (its module, and the packages that re-export it), with its keyword
  parameters in order (``kwonly_to_pos_or_kw`` maps positional arguments onto them) and, for each weights parameter,
  the legacy flag (``pretrained`` / ``pretrained_backbone``) and the weights that ``flag=True`` loads — exactly the
  decorator's default: an enum member, ``null`` (no weights: ``True`` raises ``ValueError``), or a condition on another
  argument (``quantize=``, ``backbone_name=``) as the decorator's lambda computes it;
- ``enums``: every ``WeightsEnum`` subclass under its public name, with its members and what ``DEFAULT`` points to;
- ``model_urls``: the module dictionaries torchvision 0.13 and 0.14 kept for compatibility (``resnet.model_urls``,
  ``quantization.resnet.quant_model_urls``, …; removed in 0.15), read from ``OLD_DIR`` (the ``torchvision`` folder of a
  0.14 wheel): each key with the weights member whose ``.url`` it held. Without ``--model-urls`` the section of the
  existing table is kept.

A decorator default this command cannot read statically is recorded as ``{"unsupported": source}``; the pass then
reports a finding instead of guessing.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TABLE", "build_table", "main"]

TABLE = Path(__file__).resolve().parent / "weights.json"
COMMAND = "python -m torchmigrate.codemods.torchvision.weights_table TORCHVISION_DIR --model-urls TORCHVISION_0_14_DIR"

Spec = Any  # str (an enum member's qualified name) | None | dict (a condition, or "unsupported")


@dataclass
class _Module:
    name: str
    tree: ast.Module
    package: bool
    # local name → (origin module, origin name); origin module "" for a name defined here
    bindings: dict[str, tuple[str, str]] = field(default_factory=dict)
    starred: set[str] = field(default_factory=set)  # names bound by a star import
    exports: list[str] | None = None  # a literal __all__, if any


def _load(root: Path) -> dict[str, _Module]:
    modules: dict[str, _Module] = {}
    for path in sorted((root / "models").rglob("*.py")):
        parts = ["torchvision", *path.relative_to(root).with_suffix("").parts]
        package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if package else parts)
        modules[name] = _Module(name, ast.parse(path.read_text(encoding="utf-8")), package)
    return modules


def _absolute(module: _Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.package:
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _resolve(modules: dict[str, _Module], module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[str, str]:
    """The module that defines ``module.name`` and its name there (following imports and re-exports)."""
    if (module, name) in seen or module not in modules:
        return (module, name)
    origin = modules[module].bindings.get(name)
    if origin is None:
        if f"{module}.{name}" in modules:
            return (f"{module}.{name}", "")  # a submodule
        return (module, name)
    if origin[0] == "":
        return (module, name)
    return _resolve(modules, origin[0], origin[1], seen | {(module, name)})


def _bind(modules: dict[str, _Module]) -> None:
    """Fill each module's bindings: its definitions, its imports, and its star imports (in dependency order)."""
    done: set[str] = set()

    def public(module: _Module) -> list[str]:
        if module.exports is not None:
            return module.exports
        return [n for n in module.bindings if not n.startswith("_")]

    def bind(name: str, stack: tuple[str, ...] = ()) -> None:
        if name in done or name in stack or name not in modules:
            return
        module = modules[name]
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.bindings[node.name] = ("", node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        module.bindings[target.id] = ("", target.id)
                        if target.id == "__all__":
                            try:
                                module.exports = list(ast.literal_eval(node.value))
                            except ValueError:
                                module.exports = None
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, node)
                for alias in node.names:
                    if alias.name == "*":
                        bind(source, (*stack, name))
                        if source in modules:
                            for exported in public(modules[source]):
                                module.bindings[exported] = (source, exported)
                                module.starred.add(exported)
                        continue
                    local = alias.asname or alias.name
                    if f"{source}.{alias.name}" in modules:
                        module.bindings[local] = (f"{source}.{alias.name}", "")
                    else:
                        module.bindings[local] = (source, alias.name)
                        module.starred.discard(local)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    module.bindings[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else alias.name.split(".")[0], "")
        done.add(name)

    for name in sorted(modules):
        bind(name)


def _public_paths(modules: dict[str, _Module], origin: tuple[str, str]) -> list[str]:
    """Every ``module.name`` that reaches ``origin`` and is meant to: the defining module, packages that bind it, and
    modules that re-export it by a star import. Shortest first."""
    found = {f"{origin[0]}.{origin[1]}"}
    for module in modules.values():
        for local, binding in module.bindings.items():
            if binding[0] == "" or (not module.package and local not in module.starred):
                continue
            if _resolve(modules, module.name, local) == origin:
                found.add(f"{module.name}.{local}")
    return sorted(found, key=lambda p: (p.count("."), p))


def _is_weights_enum(node: ast.ClassDef) -> bool:
    return any(isinstance(b, ast.Name) and b.id == "WeightsEnum" for b in node.bases)


def _enum_members(node: ast.ClassDef) -> tuple[list[str], str | None]:
    members: list[str] = []
    default = None
    for item in node.body:
        if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
            target = item.targets[0].id
            if target == "DEFAULT" and isinstance(item.value, ast.Name):
                default = item.value.id
            elif isinstance(item.value, ast.Call) and isinstance(item.value.func, ast.Name) and item.value.func.id == "Weights":
                members.append(target)
    return members, default


def _legacy_decorator(fn: ast.FunctionDef) -> ast.Call | None:
    for decorator in fn.decorator_list:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) and decorator.func.id == "handle_legacy_interface":
            return decorator
    return None


def _kwargs_key(node: ast.expr) -> str | None:
    """``"k"`` for ``kwargs["k"]``."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "kwargs"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.slice.value
    return None


class _Tables:
    def __init__(self, modules: dict[str, _Module]) -> None:
        self.modules = modules
        self.enums: dict[tuple[str, str], ast.ClassDef] = {}
        for module in modules.values():
            for node in module.tree.body:
                if isinstance(node, ast.ClassDef) and _is_weights_enum(node):
                    self.enums[(module.name, node.name)] = node
        self.enum_names = {origin: _public_paths(modules, origin)[0] for origin in self.enums}

    def member(self, module: str, node: ast.expr) -> Spec:
        """``Cls.MEMBER`` (an expression in ``module``) as the member's public qualified name."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            origin = _resolve(self.modules, module, node.value.id)
            if origin in self.enums and node.attr in _enum_members(self.enums[origin])[0]:
                return f"{self.enum_names[origin]}.{node.attr}"
        return {"unsupported": ast.unparse(node)}

    def weights_enum_of(self, module: str, fn: ast.FunctionDef) -> tuple[str, str] | None:
        """The enum class a builder's ``weights`` parameter is annotated with (``Optional[ResNet18_Weights]``)."""
        for arg in fn.args.kwonlyargs:
            if arg.arg == "weights" and isinstance(arg.annotation, ast.Subscript):
                inner = arg.annotation.slice
                if isinstance(inner, ast.Name):
                    origin = _resolve(self.modules, module, inner.id)
                    return origin if origin in self.enums else None
        return None

    def spec(self, module: str, node: ast.expr) -> Spec:
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if isinstance(node, ast.Attribute):
            return self.member(module, node)
        if isinstance(node, ast.Lambda):
            return self.condition(module, node.body)
        return {"unsupported": ast.unparse(node)}

    def condition(self, module: str, body: ast.expr) -> Spec:
        if isinstance(body, ast.IfExp):
            test = body.test
            then, other = self.spec(module, body.body), self.spec(module, body.orelse)
            if (  # kwargs.get("quantize", False)
                isinstance(test, ast.Call)
                and isinstance(test.func, ast.Attribute)
                and isinstance(test.func.value, ast.Name)
                and test.func.value.id == "kwargs"
                and test.func.attr == "get"
                and len(test.args) == 2
                and all(isinstance(a, ast.Constant) for a in test.args)
            ):
                key, default = (a.value for a in test.args if isinstance(a, ast.Constant))
                return {"kwarg": key, "default": default, "then": then, "else": other}
            if (  # kwargs["pretrained"] == "legacy"
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
                and _kwargs_key(test.left) is not None
                and isinstance(test.comparators[0], ast.Constant)
            ):
                return {"kwarg": _kwargs_key(test.left), "equals": test.comparators[0].value, "then": then, "else": other}
        if (  # _get_enum_from_fn(resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]
            isinstance(body, ast.Subscript)
            and isinstance(body.slice, ast.Constant)
            and isinstance(body.value, ast.Call)
            and isinstance(body.value.func, ast.Name)
            and body.value.func.id == "_get_enum_from_fn"
            and len(body.value.args) == 1
        ):
            lookup = body.value.args[0]
            if (
                isinstance(lookup, ast.Subscript)
                and isinstance(lookup.value, ast.Attribute)
                and lookup.value.attr == "__dict__"
                and isinstance(lookup.value.value, ast.Name)
                and _kwargs_key(lookup.slice) is not None
            ):
                source = _resolve(self.modules, module, lookup.value.value.id)[0]
                member = body.slice.value
                choices: dict[str, str] = {}
                # the module's __dict__: what it defines and what it imports (mobilenet.py star-imports mobilenetv2/v3)
                bound = self.modules[source].bindings if source in self.modules else {}
                for local in sorted(n for n in bound if not n.startswith("_")):
                    where, name = _resolve(self.modules, source, local)
                    fn = next(
                        (n for n in self.modules[where].tree.body if isinstance(n, ast.FunctionDef) and n.name == name),
                        None,
                    ) if where in self.modules and name else None
                    origin = self.weights_enum_of(where, fn) if fn is not None else None
                    if origin is not None and member in _enum_members(self.enums[origin])[0]:
                        choices[local] = f"{self.enum_names[origin]}.{member}"
                return {"by": _kwargs_key(lookup.slice), "choices": choices}
        return {"unsupported": ast.unparse(body)}


def _version(root: Path) -> str:
    version_file = root / "version.py"
    text = version_file.read_text(encoding="utf-8") if version_file.exists() else ""
    match = re.search(r"__version__\s*=\s*['\"]([^'\"+]+)", text)
    return match.group(1) if match else "unknown"


def model_urls(old_root: Path, enum_names: dict[tuple[str, str], str]) -> dict[str, dict[str, str]]:
    """``{"torchvision.models.resnet.model_urls": {"resnet18": "torchvision.models.ResNet18_Weights.IMAGENET1K_V1"}}``
    from the compatibility dictionaries of an old torchvision (0.13/0.14), whose values are ``Enum.MEMBER.url``;
    ``enum_names`` maps (defining module, class) to the class's public name in the current torchvision."""
    modules = _load(old_root)
    _bind(modules)
    found: dict[str, dict[str, str]] = {}
    for module in modules.values():
        for node in module.tree.body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            call = node.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "_ModelURLs"):
                continue
            if not (call.args and isinstance(call.args[0], ast.Dict)):
                continue
            entries: dict[str, str] = {}
            for key, value in zip(call.args[0].keys, call.args[0].values, strict=True):
                if not (isinstance(key, ast.Constant) and isinstance(value, ast.Attribute) and value.attr == "url"):
                    continue  # e.g. shufflenetv2_x1.5: None (no weights)
                member = value.value
                if isinstance(member, ast.Attribute) and isinstance(member.value, ast.Name):
                    origin = _resolve(modules, module.name, member.value.id)
                    if origin in enum_names:
                        entries[str(key.value)] = f"{enum_names[origin]}.{member.attr}"
            found[f"{module.name}.{node.targets[0].id}"] = entries
    return dict(sorted(found.items()))


def build_table(root: Path, old_root: Path | None = None, urls: dict[str, Any] | None = None) -> dict[str, Any]:
    """The table for the torchvision package folder ``root`` (see the module docstring); ``model_urls`` from
    ``old_root`` (a torchvision 0.14 folder) when given, else ``urls`` as they are."""
    modules = _load(root)
    _bind(modules)
    tables = _Tables(modules)
    builders: dict[str, Any] = {}
    for module in modules.values():
        for node in module.tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            decorator = _legacy_decorator(node)
            if decorator is None:
                continue
            legacy: dict[str, Any] = {}
            for keyword in decorator.keywords:
                value = keyword.value
                if keyword.arg is None or not isinstance(value, ast.Tuple) or len(value.elts) != 2:
                    continue
                flag = value.elts[0]
                if isinstance(flag, ast.Constant) and isinstance(flag.value, str):
                    legacy[keyword.arg] = {"flag": flag.value, "true": tables.spec(module.name, value.elts[1])}
            builders[f"{module.name}.{node.name}"] = {
                "names": _public_paths(modules, (module.name, node.name)),
                "params": [a.arg for a in node.args.kwonlyargs],
                "legacy": legacy,
            }
    enums = {}
    for origin, node in sorted(tables.enums.items()):
        members, default = _enum_members(node)
        enums[tables.enum_names[origin]] = {"module": origin[0], "members": members, "DEFAULT": default}
    table: dict[str, Any] = {
        "torchvision": _version(root),
        "source": "torchvision/models/**/*.py of the torchvision wheel: @handle_legacy_interface decorators "
        "(torchvision/models/_utils.py) and WeightsEnum classes, read with the stdlib ast",
        "command": COMMAND,
        "builders": dict(sorted(builders.items())),
        "enums": enums,
    }
    if old_root is not None:
        table["model_urls_source"] = f"torchvision {_version(old_root)}: the _ModelURLs dictionaries of torchvision/models"
        table["model_urls"] = model_urls(old_root, tables.enum_names)
    elif urls is not None:
        table["model_urls_source"], table["model_urls"] = urls["model_urls_source"], urls["model_urls"]
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchmigrate.codemods.torchvision.weights_table", description=__doc__.split("\n")[0])
    parser.add_argument("torchvision", type=Path, help="the torchvision package folder of an unpacked wheel")
    parser.add_argument("--model-urls", type=Path, help="the torchvision folder of a 0.14 wheel (the model_urls dictionaries)")
    parser.add_argument("--output", type=Path, default=TABLE, help="where to write the table (default: the shipped weights.json)")
    args = parser.parse_args(argv)
    for folder in filter(None, (args.torchvision, args.model_urls)):
        if not (folder / "models" / "_utils.py").is_file():
            print(f"{folder}: not a torchvision package folder (no models/_utils.py)", file=sys.stderr)
            return 2
    kept = None
    if args.model_urls is None and args.output.exists():
        previous = json.loads(args.output.read_text(encoding="utf-8"))
        kept = previous if "model_urls" in previous else None
    table = build_table(args.torchvision, args.model_urls, kept)
    args.output.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    urls = sum(len(v) for v in table.get("model_urls", {}).values())
    print(
        f"{args.output}: torchvision {table['torchvision']}, {len(table['builders'])} builders, "
        f"{len(table['enums'])} weight enums, {urls} model_urls entries"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
