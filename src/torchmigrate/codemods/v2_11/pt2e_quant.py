"""The PT2E quantization flow left PyTorch in 2.11: import it from `torchao.quantization.pt2e`.

## What it does
Rewrites imports and qualified uses of the removed modules to their torchao homes:

| PyTorch ≤ 2.10 | torchao |
|---|---|
| `torch.ao.quantization.quantize_pt2e` (`prepare_pt2e`, `convert_pt2e`, `prepare_qat_pt2e`) | `torchao.quantization.pt2e.quantize_pt2e` |
| `torch.ao.quantization.quantizer[.x86_inductor_quantizer, .xnnpack_quantizer, …]` | `torchao.quantization.pt2e.quantizer[…]` |
| `torch.ao.quantization.pt2e.{export_utils, graph_utils, lowering, prepare, qat_utils, utils, _numeric_debugger, _affine_quantization}` | `torchao.quantization.pt2e.{same name}` |
| `torch.ao.quantization.pt2e.port_metadata_pass` / `.duplicate_dq_pass` | `torchao.quantization.pt2e.quantizer.{same name}` |
| `torch.ao.quantization.pt2e.representation.rewrite` | `torchao.quantization.pt2e.reference_representation_rewrite` |

Any other `torch.ao.quantization.pt2e…` module (no verified torchao counterpart) gets a finding.

## Why
2.11 removed `torch.ao.quantization.pt2e` and `torch.ao.quantization.quantizer` (release notes, BC-breaking,
pytorch/pytorch#169151): "Users relying on the PT2E quantization flow should migrate to the `torchao` package",
with `from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import X86InductorQuantizer` as the example.
On torch 2.13 importing `torch.ao.quantization.quantize_pt2e`, `.pt2e` or `.quantizer` raises
`ModuleNotFoundError`. The torchao module paths were checked against the pytorch/ao source tree
(`torchao/quantization/pt2e/quantize_pt2e.py`, `quantizer/__init__.py` exporting `Quantizer`, `QuantizationSpec`,
`DuplicateDQPass`, `PortNodeMetaForQDQ`, …).

## Fix safety
Safe for the code (same functions, moved), but the project gains a dependency: add `torchao` to your requirements.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import dotted_name
from torchmigrate.python.transform import PassTransformer

OLD_PT2E = "torch.ao.quantization.pt2e"
NEW_PT2E = "torchao.quantization.pt2e"

RENAMES = {
    "torch.ao.quantization.quantize_pt2e": f"{NEW_PT2E}.quantize_pt2e",
    "torch.ao.quantization.quantizer": f"{NEW_PT2E}.quantizer",
    **{
        f"{OLD_PT2E}.{name}": f"{NEW_PT2E}.{name}"
        for name in (
            "export_utils",
            "graph_utils",
            "lowering",
            "prepare",
            "qat_utils",
            "utils",
            "_numeric_debugger",
            "_affine_quantization",
        )
    },
    f"{OLD_PT2E}.port_metadata_pass": f"{NEW_PT2E}.quantizer.port_metadata_pass",
    f"{OLD_PT2E}.duplicate_dq_pass": f"{NEW_PT2E}.quantizer.duplicate_dq_pass",
    f"{OLD_PT2E}.representation.rewrite": f"{NEW_PT2E}.reference_representation_rewrite",
}

PASS = Pass(
    id="pt2e-quant",
    release="2.11",
    since="2.7",
    safety=SAFE,
    kind=REMOVAL,
    title="torch.ao.quantization.quantize_pt2e / .pt2e / .quantizer → torchao.quantization.pt2e[...]",
    evidence=(
        "PyTorch 2.11 release notes, BC-breaking Quantization (pytorch/pytorch#169151); pytorch/ao source tree"
        "; since 2.7: torchao 0.11.0, the first with torchao.quantization.pt2e, folds quantized constants only on torch "
        ">= 2.7 (torchao/quantization/pt2e/quantize_pt2e.py:11, :262)"
    ),
    triggers=("quantize_pt2e", "quantization.pt2e", "quantization.quantizer", "quantization import"),
    renames=RENAMES,
    qualnames=frozenset({OLD_PT2E}),  # LeftOverPT2E reports the rest of this package
    review_note="add torchao to the project's dependencies",
    examples=[
        Example(
            title="the release note's example",
            before="""
                from torch.ao.quantization.quantize_pt2e import prepare_pt2e, convert_pt2e
                from torch.ao.quantization.quantizer.x86_inductor_quantizer import X86InductorQuantizer
            """,
            after="""
                from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, convert_pt2e
                from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import X86InductorQuantizer
            """,
        ),
        Example(
            title="module import with alias, moved submodules",
            before="""
                import torch.ao.quantization.quantizer.xnnpack_quantizer as xq
                from torch.ao.quantization.pt2e.port_metadata_pass import PortNodeMetaForQDQ
                from torch.ao.quantization.pt2e.export_utils import _WrapperModule

                quantizer = xq.XNNPACKQuantizer()
            """,
            after="""
                import torchao.quantization.pt2e.quantizer.xnnpack_quantizer as xq
                from torchao.quantization.pt2e.quantizer.port_metadata_pass import PortNodeMetaForQDQ
                from torchao.quantization.pt2e.export_utils import _WrapperModule

                quantizer = xq.XNNPACKQuantizer()
            """,
        ),
        Example(
            title="from the package",
            before="""
                from torch.ao.quantization.quantizer import QuantizationSpec, Quantizer
            """,
            after="""
                from torchao.quantization.pt2e.quantizer import QuantizationSpec, Quantizer
            """,
        ),
        Example(
            title="a pt2e module without a verified torchao home: finding",
            before="""
                from torch.ao.quantization.pt2e.eval_utils import _replace_dropout
            """,
            findings=1,
        ),
        Example(
            title="eager and FX quantization are still in torch 2.13: untouched here",
            before="""
                from torch.ao.quantization import quantize_dynamic
                from torch.ao.quantization.quantize_fx import prepare_fx
            """,
        ),
    ],
)


def _left_over(module: str) -> bool:
    return module == OLD_PT2E or module.startswith(OLD_PT2E + ".")


@PASS.uses
class LeftOverPT2E(PassTransformer):
    """Reports `torch.ao.quantization.pt2e…` imports the rename table could not place."""

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None and not node.relative else None
        if module and _left_over(module):
            self._report(node, module)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            module = dotted_name(alias.name) or ""
            if _left_over(module):
                self._report(node, module)

    def _report(self, node: cst.CSTNode, module: str) -> None:
        self.finding(
            node,
            f"{module} was removed in PyTorch 2.11 and has no verified torchao counterpart: look for it under "
            f"torchao.quantization.pt2e (pip install torchao)",
        )
