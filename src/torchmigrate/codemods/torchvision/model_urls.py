"""The `model_urls` dictionaries of torchvision's model modules were removed in torchvision 0.15: use `Weights.X.url`.

## What it does
Rewrites a lookup with a literal key into the URL of the weights it held:
`torchvision.models.resnet.model_urls["resnet50"]` → `ResNet50_Weights.IMAGENET1K_V1.url`, and likewise for
`quantization.*.quant_model_urls["resnet18_fbgemm"]`, `detection.ssd.backbone_urls["vgg16_features"]`, … (every
entry of torchvision 0.14's dictionaries, recorded in `weights.json`). Any other use of the dictionaries (a key that is
not a literal, iteration, an import that stays in use) gets a finding that names the weights enums.

## Why
torchvision 0.13 (for torch 1.12) replaced the dictionaries by the weights enums and kept them, warning "Accessing the
model URLs via the internal dictionary of the module is deprecated since 0.13", until 0.15 (for torch 2.0) removed
them: `from torchvision.models.resnet import model_urls` raises `ImportError`.

## Fix safety
Safe: in torchvision 0.13 and 0.14 each entry was defined as that member's `.url` (`"resnet50":
ResNet50_Weights.IMAGENET1K_V1.url`), so the same string results.
"""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import chain_root
from torchmigrate.python.transform import PassTransformer

from .pretrained_weights import _DATA

MODEL_URLS: dict[str, dict[str, str]] = _DATA["model_urls"]


def _short(member: str) -> str:
    return ".".join(member.split(".")[-2:])


PASS = Pass(
    id="torchvision-model-urls",
    release="1.12",
    package="torchvision 0.13",
    kind=DEPRECATION,
    removed_in="2.0",
    safety=SAFE,
    since="1.12",
    title='torchvision models\' model_urls["name"] → <Model>_Weights.<weights>.url',
    evidence=f"torchvision 0.14 models/*.py (_ModelURLs dictionaries of Weights members' .url, deprecated since 0.13); "
    f"gone from the 0.15 wheel; {_DATA.get('model_urls_source', '')}"
    "; since 1.12: the Weights enums and their .url first ship in torchvision 0.13, released with torch 1.12",
    qualnames=frozenset(MODEL_URLS),
    examples=[
        Example(
            """
            from torch.hub import load_state_dict_from_url
            from torchvision.models.resnet import model_urls

            state = load_state_dict_from_url(model_urls["resnet50"])
            """,
            """
            from torch.hub import load_state_dict_from_url
            from torchvision.models import ResNet50_Weights

            state = load_state_dict_from_url(ResNet50_Weights.IMAGENET1K_V1.url)
            """,
        ),
        Example(
            title="through the module",
            before="""
            import torchvision

            url = torchvision.models.quantization.resnet.quant_model_urls["resnet18_fbgemm"]
            """,
            after="""
            import torchvision

            url = torchvision.models.quantization.ResNet18_QuantizedWeights.IMAGENET1K_FBGEMM_V1.url
            """,
        ),
        Example(
            title="a plain import of the module stays (it binds the name the replacement uses)",
            before="""
            import torchvision.models.resnet

            url = torchvision.models.resnet.model_urls["resnet18"]
            """,
            after="""
            import torchvision.models.resnet

            url = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.url
            """,
        ),
        Unchanged(
            """
            from torchvision.models import vgg

            for name, url in vgg.model_urls.items():
                print(name, url)
            """,
            title="the dictionary as a whole: finding",
            findings=1,
        ),
        Unchanged('model_urls = {"resnet50": URL}\n\nurl = model_urls["resnet50"]\n', title="a dictionary of the file's own"),
    ],
)


def _key(node: cst.BaseExpression) -> Any:
    if isinstance(node, cst.SimpleString):
        return ast.literal_eval(node.value)
    return None


@PASS.uses
class ModelUrls(PassTransformer):
    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        table = MODEL_URLS.get(self.qualname(original_node.value) or "")
        if table is None or len(original_node.slice) != 1 or not self.allowed(original_node):
            return updated_node
        index = original_node.slice[0].slice
        member = table.get(_key(index.value)) if isinstance(index, cst.Index) else None
        if member is None:
            return updated_node  # reported by visit_Attribute / visit_Name
        self.edited(original_node, f'{self.qualname(original_node.value)}[...] → {_short(member)}.url (removed in torchvision 0.15)')
        replacement = self.ref(member, like=original_node.value)
        old_root, new_root = chain_root(original_node.value), chain_root(replacement)
        if old_root is None or new_root is None or old_root.value != new_root.value:
            # `from torchvision.models.resnet import model_urls` may go; `import torchvision.models.resnet` stays: the
            # replacement `torchvision.models.ResNet50_Weights` needs the name `torchvision` it binds
            self.drop_imports_of(original_node.value)
        return cst.Attribute(value=replacement, attr=cst.Name("url"))

    def _report(self, node: cst.BaseExpression) -> bool:
        name = self.qualname(node)
        table = MODEL_URLS.get(name or "")
        if table is None:
            return True
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
            index = parent.slice[0].slice
            if isinstance(index, cst.Index) and _key(index.value) in table:
                return False  # rewritten by leave_Subscript
        examples = ", ".join(f"{_short(m)}.url" for m in list(table.values())[:2])
        self.finding(node, f"{name} was removed in torchvision 0.15: use the weights enums' URLs ({examples}, …)")
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self._report(node)

    def visit_Name(self, node: cst.Name) -> bool:
        return self._report(node)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False
