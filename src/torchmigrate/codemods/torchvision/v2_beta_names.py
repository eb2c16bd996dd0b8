"""torchvision 0.16 renamed the beta transforms-v2 API of 0.15: `datapoints` → `tv_tensors`, `ToImageTensor` → `ToImage`.

## What it does
- `torchvision.datapoints` → `torchvision.tv_tensors` (`Image`, `Mask`, `Video`, `BoundingBoxFormat`), in imports and
  uses; `datapoints.BoundingBox` → `tv_tensors.BoundingBoxes`, whose `spatial_size=` keyword is now `canvas_size=`;
- `transforms.v2.ToImageTensor` → `ToImage`, `ToImagePIL` → `ToPILImage`;
  `transforms.v2.functional.to_image_tensor` → `to_image`, `to_image_pil` → `to_pil_image`.

The boxes' `.spatial_size` attribute (now `.canvas_size`) is not renamed: nothing says which objects are boxes. A file
that uses anything else of `datapoints` (the private `_datapoint.Datapoint`, `_ImageType`, …, which have no public
counterpart of that name) gets a finding there, and its `datapoints` names are left as they are.

## Why
The v2 transforms were a beta in torchvision 0.15 (for torch 2.0); 0.16 (for torch 2.1) made them stable and renamed
these names without aliases, so the old imports fail with `ImportError` / `ModuleNotFoundError`.

## Fix safety
Safe: compared in the 0.15 and 0.28 wheels, the renamed classes and functions take the same arguments and do the same
(`ToImage` converts what `ToImageTensor` did; `to_image_pil` already was `to_pil_image`), and `BoundingBoxes` takes
`canvas_size` where `BoundingBox` took `spatial_size` (the rest of its arguments are keyword-only and unchanged).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import dotted_name, kwarg
from torchmigrate.python.renames import RenameTransformer
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import CallContext
from torchmigrate.python.triggers import identifiers

_V2 = "torchvision.transforms.v2"
_DP = "torchvision.datapoints"
# torchvision 0.15.2 datapoints/__init__.py: the public names (the rest is private typing helpers)
PUBLIC = frozenset({"BoundingBox", "BoundingBoxFormat", "Image", "Mask", "Video"})

PASS = Pass(
    since="2.1",
    id="torchvision-v2-beta-names",
    release="2.1",
    package="torchvision 0.16",
    kind=REMOVAL,
    safety=SAFE,
    title="torchvision 0.15 beta names: datapoints → tv_tensors, BoundingBox → BoundingBoxes, ToImageTensor → ToImage",
    evidence="torchvision 0.15.2 and 0.16.0 wheels: datapoints/__init__.py, transforms/v2/__init__.py, "
    "v2/functional/_type_conversion.py; 0.28 tv_tensors/_bounding_boxes.py (BoundingBoxes.__new__ canvas_size)"
    "; since 2.1: torchvision.tv_tensors and the v2 names first ship in torchvision 0.16, released with torch 2.1",
    renames={
        "torchvision.datapoints": "torchvision.tv_tensors",
        "torchvision.datapoints.BoundingBox": "torchvision.tv_tensors.BoundingBoxes",
        f"{_V2}.ToImageTensor": f"{_V2}.ToImage",
        f"{_V2}.ToImagePIL": f"{_V2}.ToPILImage",
        f"{_V2}.functional.to_image_tensor": f"{_V2}.functional.to_image",
        f"{_V2}.functional.to_image_pil": f"{_V2}.functional.to_pil_image",
    },
    examples=[
        Example(
            """
            from torchvision import datapoints
            from torchvision.transforms import v2

            img = datapoints.Image(tensor)
            pipeline = v2.Compose([v2.ToImageTensor(), v2.RandomHorizontalFlip()])
            """,
            """
            from torchvision import tv_tensors
            from torchvision.transforms import v2

            img = tv_tensors.Image(tensor)
            pipeline = v2.Compose([v2.ToImage(), v2.RandomHorizontalFlip()])
            """,
        ),
        Example(
            title="BoundingBox → BoundingBoxes with canvas_size",
            before="""
            from torchvision.datapoints import BoundingBox, BoundingBoxFormat

            boxes = BoundingBox(xyxy, format=BoundingBoxFormat.XYXY, spatial_size=(h, w))
            """,
            after="""
            from torchvision.tv_tensors import BoundingBoxes, BoundingBoxFormat

            boxes = BoundingBoxes(xyxy, format=BoundingBoxFormat.XYXY, canvas_size=(h, w))
            """,
        ),
        Example(
            title="v2.functional under an alias",
            before="""
            import torchvision.transforms.v2.functional as F

            pil = F.to_image_pil(F.to_image_tensor(arr))
            """,
            after="""
            import torchvision.transforms.v2.functional as F

            pil = F.to_pil_image(F.to_image(arr))
            """,
        ),
        Example(
            title="a private datapoints name: finding, and the file's datapoints stay",
            before="""
            from torchvision import datapoints
            from torchvision.transforms import v2

            class Points(datapoints._datapoint.Datapoint): ...

            img = datapoints.Image(tensor)
            t = v2.ToImageTensor()
            """,
            after="""
            from torchvision import datapoints
            from torchvision.transforms import v2

            class Points(datapoints._datapoint.Datapoint): ...

            img = datapoints.Image(tensor)
            t = v2.ToImage()
            """,
            findings=1,
        ),
        Unchanged(
            """
            from torchvision.transforms import v2

            t = v2.ToImage()
            datapoints = load("points.json")
            """,
            title="the new names; a variable called datapoints",
        ),
    ],
)


class BetaNames(RenameTransformer):
    """The renames, unless the file uses a `datapoints` name without a public counterpart: then a finding there, and
    the file's `datapoints` names stay (renaming the others would leave the import half moved)."""

    def _private(self, qualname: str | None) -> bool:
        if not qualname or not qualname.startswith(_DP + "."):
            return False
        return qualname[len(_DP) + 1 :].split(".")[0] not in PUBLIC

    def visit_Module(self, node: cst.Module) -> bool:
        found: list[tuple[cst.CSTNode, str]] = []
        for child in _walk(node):
            if isinstance(child, cst.Attribute):
                name = self.qualname(child)
                if self._private(name) and not self._private(self.qualname(child.value)):
                    found.append((child, name or ""))
            elif isinstance(child, cst.ImportFrom) and child.module is not None and not child.relative:
                module = dotted_name(child.module) or ""
                names = [] if isinstance(child.names, cst.ImportStar) else [dotted_name(a.name) or "" for a in child.names]
                for full in [module] if module != _DP else [f"{module}.{n}" for n in names]:
                    if self._private(full):
                        found.append((child, full))
        found = [(n, q) for n, q in found if self.allowed(n)]
        if found:
            for where, name in found:
                self.finding(
                    where,
                    f"{name}: torchvision 0.16 renamed datapoints to tv_tensors and this name has no public counterpart "
                    "(Datapoint is tv_tensors.TVTensor): port it by hand; this file's datapoints names are left as they are",
                )
            self.renames = {k: v for k, v in self.renames.items() if not (k == _DP or k.startswith(_DP + "."))}
        return super().visit_Module(node)


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.children)
    return out


PASS.uses(BetaNames)


@PASS.rewrites_calls("torchvision.tv_tensors.BoundingBoxes", "torchvision.datapoints.BoundingBox")
def canvas_size(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    old = kwarg(call, "spatial_size")
    if old is None or kwarg(call, "canvas_size") is not None:
        return None
    if ctx.qualname == f"{_DP}.BoundingBox" and f"{_DP}.BoundingBox" not in getattr(ctx.transformer, "renames", {}):
        return None  # the file keeps its datapoints names (see BetaNames)
    ctx.message = "BoundingBoxes(spatial_size=) → canvas_size= (torchvision 0.16)"
    args = [a.with_changes(keyword=cst.Name("canvas_size")) if a is old else a for a in call.args]
    return call.with_changes(args=args)


# What every rename site spells: a reference to a renamed name (or to a name in the renamed module, its findings
# included) spells its last component or ``datapoints``, at the use or in the import that binds it.
_RENAMED_WORDS = frozenset({"datapoints", *(name.rpartition(".")[2] for name in PASS.renames)})
_BOXES = frozenset({"torchvision.tv_tensors.BoundingBoxes"})


def detect(file: AstFile) -> Iterator[Site]:
    """A bound on where the pass acts: any file that spells a renamed name or ``datapoints`` (anywhere, strings and
    comments too) goes to libcst whole; otherwise only a ``tv_tensors.BoundingBoxes(...)`` call that passes
    ``spatial_size=`` (or ``**kwargs``) can be edited. torchvision's own sources, which call ``BoundingBoxes``
    everywhere in the new form, are settled without libcst."""
    if not _RENAMED_WORDS.isdisjoint(identifiers(file.text)):
        if file.tree.body:
            yield file.edit(file.tree.body[0])
        return
    for node in file.walk():
        if isinstance(node, ast.Call) and any(k.arg in (None, "spatial_size") for k in node.keywords) and file.callee(node) in _BOXES:
            yield file.edit(node)


PASS.analyse = analyser(PASS.id, detect)
