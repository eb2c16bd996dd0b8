"""`torch.ao.quantization` (and its alias `torch.quantization`) is deprecated since PyTorch 2.8: move to torchao.

## What it does
Reports (no edit) each import of `torch.ao.quantization[...]` / `torch.quantization[...]`, and each use spelled from
`import torch` (`torch.ao.quantization.quantize_dynamic(...)`), with the torchao route for the API used:

- eager mode (`quantize`, `quantize_dynamic`, `prepare`, `convert`, qconfigs, observers): torchao's
  `torchao.quantization.quantize_(model, config)` with a config such as `Int8DynamicActivationInt8WeightConfig()`
  (dynamic) or `Int8WeightOnlyConfig()` (weight-only); static quantization goes through torchao's PT2E flow;
- FX graph mode (`quantize_fx.prepare_fx` / `convert_fx`): torchao's PT2E flow,
  `torchao.quantization.pt2e.quantize_pt2e.prepare_pt2e` / `convert_pt2e` on a `torch.export`ed model.

The PT2E modules themselves (`quantize_pt2e`, `pt2e`, `quantizer`) are left to the `pt2e-quant` pass (2.11), which
rewrites their imports.

## Why
2.8 deprecated `torch.ao.quantization` (release notes, Deprecations, pytorch/pytorch#153892; migration guide
pytorch/ao#2259). On torch 2.13 the eager/FX APIs still exist and warn `DeprecationWarning: torch.ao.quantization is
deprecated and will be removed in 2.10` — the removal it announces had not happened by 2.13, so nothing breaks yet.

## Fix safety
Finding only: torchao's APIs take configs instead of qconfig mappings, produce tensor subclasses instead of quantized
modules, and need `torchao` installed — a rewrite cannot be mechanical.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import chain_root, dotted_name
from torchmigrate.python.sites import AstFile, Site, analyser, children_in_source_order
from torchmigrate.python.transform import PassTransformer

PREFIXES = ("torch.ao.quantization", "torch.quantization")
PT2E = ("quantize_pt2e", "pt2e", "quantizer")

EAGER = (
    "torch.ao.quantization is deprecated since 2.8 (still present in 2.13): move to torchao — "
    "torchao.quantization.quantize_(model, Int8DynamicActivationInt8WeightConfig()) for dynamic or "
    "Int8WeightOnlyConfig() for weight-only quantization; static quantization via torchao's PT2E flow"
)
FX = (
    "FX graph mode quantization (torch.ao.quantization.quantize_fx) is deprecated since 2.8: use torchao's PT2E flow — "
    "torchao.quantization.pt2e.quantize_pt2e.prepare_pt2e / convert_pt2e on a torch.export.export(...).module()"
)

PASS = Pass(
    id="ao-quantization",
    release="2.8",
    since="1.8",
    safety=SAFE,
    kind=DEPRECATION,
    title="torch.ao.quantization / torch.quantization deprecated → torchao (finding)",
    evidence=(
        "PyTorch 2.8 release notes, Deprecations (pytorch/pytorch#153892); torch 2.13 DeprecationWarning"
        "; finding only: emits no new form"
    ),
    triggers=("quantization",),
    qualnames=frozenset(PREFIXES),  # it reports uses of names under these only
    examples=[
        Example(
            title="eager dynamic quantization",
            before="""
                import torch
                from torch.ao.quantization import quantize_dynamic

                q = quantize_dynamic(m, {torch.nn.Linear})
            """,
            findings=1,
        ),
        Example(
            title="FX mode and the legacy alias: one finding per import",
            before="""
                import torch.quantization as tq
                from torch.ao.quantization.quantize_fx import prepare_fx, convert_fx

                qconfig = tq.get_default_qconfig('x86')
            """,
            findings=2,
        ),
        Example(
            title="use through `import torch`",
            before="""
                import torch

                q = torch.ao.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
                p = torch.ao.quantization.quantize_pt2e.prepare_pt2e(gm, quantizer)
            """,
            findings=1,
        ),
        Example(
            title="PT2E imports are the pt2e-quant pass's job; other `quantization` modules are not torch's",
            before="""
                from torch.ao.quantization.quantize_pt2e import prepare_pt2e
                from torchao.quantization import quantize_
                import mylib.quantization
            """,
        ),
    ],
)


def _deprecated(module: str) -> str | None:
    """The finding text for a deprecated quantization module path, else None."""
    for prefix in PREFIXES:
        if module == prefix or module.startswith(prefix + "."):
            rest = module[len(prefix) + 1 :].split(".")[0] if module != prefix else ""
            if rest in PT2E:
                return None
            return FX if rest == "quantize_fx" else EAGER
    return None


@PASS.uses
class DeprecatedQuantization(PassTransformer):
    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.module is not None and not node.relative:
            module = dotted_name(node.module) or ""
            star = isinstance(node.names, cst.ImportStar)
            names = None if star else [dotted_name(a.name) or "" for a in node.names]  # type: ignore[union-attr]
            message = _import_from_message(module, names)
            if message is not None:
                self.finding(node, message)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            message = _deprecated(dotted_name(alias.name) or "")
            if message is not None:
                self.finding(node, message)
                break
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        root = chain_root(node)
        if root is None or self.qualname(root) != "torch":
            return True
        name = self.qualname(node) or ""
        if not any(name == p or name.startswith(p + ".") for p in PREFIXES):
            return True
        message = _deprecated(name)
        if message is not None:
            self.finding(node, message)
        return False  # one finding for the whole chain, none for PT2E chains


def _import_from_message(module: str, names: list[str] | None) -> str | None:
    """The finding text for ``from module import names`` (``names`` ``None`` for ``*``), else None."""
    message = _deprecated(module)
    if message is None and module in PREFIXES and names is not None:
        # `from torch.ao.quantization import quantize_fx` names a submodule
        message = next((m for m in (_deprecated(f"{module}.{name}") for name in names) if m is not None), None)
    return message


def _detect(file: AstFile) -> Iterator[Site]:
    """The transformer's findings from the stdlib ast: the same walk (guarded code skipped, an import or a reported
    chain not entered), the same tests."""
    stack: list[ast.AST] = [file.tree]
    while stack:
        node = stack.pop()
        if file.is_version_guard(node):
            continue
        if isinstance(node, ast.ImportFrom):
            if node.module is not None and not node.level:
                star = len(node.names) == 1 and node.names[0].name == "*"
                message = _import_from_message(node.module, None if star else [a.name for a in node.names])
                if message is not None:
                    yield file.finding(node, message)
            continue
        if isinstance(node, ast.Import):
            message = next((m for m in (_deprecated(a.name) for a in node.names) if m is not None), None)
            if message is not None:
                yield file.finding(node, message)
            continue
        if isinstance(node, ast.Attribute):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and file.qualname(root) == "torch":
                name = file.qualname(node) or ""
                if any(name == p or name.startswith(p + ".") for p in PREFIXES):
                    message = _deprecated(name)
                    if message is not None:
                        yield file.finding(node, message)
                    continue
        stack.extend(reversed(children_in_source_order(node)))


PASS.analyse = analyser(PASS.id, _detect, exact=True)
