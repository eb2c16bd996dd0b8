"""`transforms.v2.ToTensor` is deprecated: use `v2.ToImage()` followed by `v2.ToDtype(torch.float32, scale=True)`.

## What it does
Replaces `v2.ToTensor()` by the two transforms torchvision recommends. Inside the list (or tuple) of a `v2.Compose`,
the two take its place in the list; anywhere else the call becomes
`v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`. The v1 `transforms.ToTensor` is not deprecated and
is left alone.

## Why
torchvision's v2 `ToTensor` warns on construction ("The transform `ToTensor()` is deprecated and will be removed in a
future release. Instead, please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`. Output is
equivalent up to float precision." — torchvision 0.28, transforms/v2/_deprecated.py). The replacement exists from
torchvision 0.16 (`ToImage`, `ToDtype(scale=)`).

## Fix safety
Review: the same values, up to float rounding, for what `ToTensor` is used on — 8-bit PIL images and `uint8` arrays
become `float32` in [0, 1] — but not in every case (see below).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass, Unchanged
from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import build_dotted, fix_commas
from torchmigrate.python.transform import PassTransformer

_V2 = "torchvision.transforms.v2"
_TO_TENSOR = f"{_V2}.ToTensor"

PASS = Pass(
    since="2.1",
    id="torchvision-v2-to-tensor",
    release="2.1",
    package="torchvision 0.16",
    kind=DEPRECATION,
    safety=REVIEW,
    title="transforms.v2.ToTensor() → v2.ToImage(), v2.ToDtype(torch.float32, scale=True)",
    evidence="torchvision 0.28 transforms/v2/_deprecated.py (ToTensor's warning and docstring); ToImage / ToDtype(scale=) "
    "in the 0.16 wheel"
    "; since 2.1: ToImage / ToDtype(scale=) in the torchvision 0.16 wheel, released with torch 2.1",
    review_note="v2.ToTensor passes tensors through untouched, while ToImage + ToDtype(scale=True) rescales a uint8 tensor; "
    "it returns a plain Tensor of torch's default dtype, the new pair a tv_tensors.Image of float32; 16- and 32-bit "
    "PIL modes ('I;16', 'I', 'F') and non-uint8 arrays were not scaled by ToTensor but are by ToDtype(scale=True).",
    qualnames=frozenset({_TO_TENSOR}),
    examples=[
        Example(
            """
            import torch
            from torchvision.transforms import v2

            train = v2.Compose([v2.RandomResizedCrop(224), v2.ToTensor(), v2.Normalize(mean, std)])
            """,
            """
            import torch
            from torchvision.transforms import v2

            train = v2.Compose([v2.RandomResizedCrop(224), v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.Normalize(mean, std)])
            """,
        ),
        Example(
            title="outside a Compose: a Compose of its own",
            before="""
            from torchvision.transforms.v2 import ToTensor

            to_tensor = ToTensor()
            """,
            after="""
            import torch
            from torchvision.transforms.v2 import Compose, ToDtype, ToImage

            to_tensor = Compose([ToImage(), ToDtype(torch.float32, scale=True)])
            """,
        ),
        Unchanged(
            """
            from torchvision import transforms

            t = transforms.Compose([transforms.ToTensor()])
            """,
            title="the v1 ToTensor is not deprecated",
        ),
    ],
)


def _is_to_tensor(transformer: PassTransformer, node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, (cst.Name, cst.Attribute))
        and transformer.qualname(node.func) == _TO_TENSOR
    )


@PASS.uses
class V2ToTensor(PassTransformer):
    def _pair(self, original: cst.Call) -> tuple[cst.Call, cst.Call]:
        like = original.func
        to_image = cst.Call(func=self.ref(f"{_V2}.ToImage", like=like))
        to_dtype = cst.Call(
            func=self.ref(f"{_V2}.ToDtype", like=like),
            args=fix_commas(
                [
                    cst.Arg(self._float32()),
                    cst.Arg(
                        cst.Name("True"),
                        keyword=cst.Name("scale"),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                    ),
                ]
            ),
        )
        return to_image, to_dtype

    def _float32(self) -> cst.BaseExpression:
        """``torch.float32`` (through the file's ``import torch [as th]``, else adding ``import torch``)."""
        if any(full == "torch" for full, _ in self.module_imports()) or "torch" in self.global_names():
            return self.ref("torch.float32")
        add_needed_import(self.context, "torch")
        return build_dotted("torch.float32")

    def _in_compose(self, node: cst.CSTNode) -> bool:
        """``node`` is an element of the list or tuple a ``v2.Compose(...)`` call gets as its first argument."""
        element = self.get_metadata(ParentNodeProvider, node, None)
        sequence = self.get_metadata(ParentNodeProvider, element, None) if isinstance(element, cst.Element) else None
        arg = self.get_metadata(ParentNodeProvider, sequence, None) if isinstance(sequence, (cst.List, cst.Tuple)) else None
        call = self.get_metadata(ParentNodeProvider, arg, None) if isinstance(arg, cst.Arg) else None
        return (
            isinstance(call, cst.Call)
            and isinstance(arg, cst.Arg)
            and arg.keyword is None
            and call.args[0] is arg
            and isinstance(call.func, (cst.Name, cst.Attribute))
            and self.qualname(call.func) == f"{_V2}.Compose"
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not _is_to_tensor(self, original_node) or self._in_compose(original_node) or not self.allowed(original_node):
            return result
        self.edited(original_node, "v2.ToTensor() → v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])")
        self.drop_imports_of(original_node.func)
        pair = self._pair(original_node)
        return cst.Call(
            func=self.ref(f"{_V2}.Compose", like=original_node.func),
            args=[cst.Arg(cst.List(elements=[cst.Element(pair[0], comma=_comma()), cst.Element(pair[1])]))],
        )

    def _splice(self, original: cst.List | cst.Tuple, updated: cst.List | cst.Tuple) -> cst.List | cst.Tuple:
        elements: list[cst.BaseElement] = []
        for before, after in zip(original.elements, updated.elements, strict=True):
            if (
                isinstance(before, cst.Element)
                and _is_to_tensor(self, before.value)
                and self._in_compose(before.value)
                and self.allowed(before)
            ):
                assert isinstance(before.value, cst.Call)
                self.edited(before, "v2.ToTensor() → v2.ToImage(), v2.ToDtype(torch.float32, scale=True)")
                self.drop_imports_of(before.value.func)
                to_image, to_dtype = self._pair(before.value)
                # the comma between the two as the list spells its commas (one element per line stays so)
                style = elements[-1].comma if elements else after.comma
                elements.append(cst.Element(to_image, comma=style if isinstance(style, cst.Comma) else _comma()))
                elements.append(cst.Element(to_dtype, comma=after.comma))
            else:
                elements.append(after)
        return updated.with_changes(elements=elements)

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        return self._splice(original_node, updated_node)

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.BaseExpression:
        return self._splice(original_node, updated_node)


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
