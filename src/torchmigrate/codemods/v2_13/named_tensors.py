"""Named tensors were removed in PyTorch 2.13.

## What it does
Reports (no edit):
- `names=` in calls of the factories that took it (`torch.empty`, `zeros`, `ones`, `full`, `rand`, `randn`);
- calls of the named-tensor methods `refine_names`, `align_to`, `align_as`, `has_names` (on any object: no other
  library of note has methods of those names) and `rename(None)` / `rename_(None)` (the "drop the names" idiom; other
  `rename` calls are left alone, as pandas and pathlib have their own);
- references to those methods on the class, `torch.Tensor.align_as` & co.
`.names` reads are not reported: the attribute name is too common to tell a tensor's apart.

## Why
pytorch/pytorch#173895 removed the (long-deprecated, prototype) named tensor feature in 2.13: the methods are gone
(`AttributeError: 'Tensor' object has no attribute 'refine_names'`) and the factories reject `names=` (`TypeError`),
checked on torch 2.13; the 2.11 wheel's `torch/_C/_VariableFunctions.pyi` still lists the `names` overloads.
Downstream projects (Lightning Thunder, sglang, heat) had to drop their uses.

## Fix safety
Finding only: keep track of dimensions by position (or in your own metadata, e.g. an einops pattern or a dict of
axis names to indices) and use `permute` / `unsqueeze` where the code aligned by name.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import PassTransformer

FACTORIES = frozenset(f"torch.{name}" for name in ("empty", "zeros", "ones", "full", "rand", "randn"))
METHODS = frozenset({"refine_names", "align_to", "align_as", "has_names"})
RENAMES = frozenset({"rename", "rename_"})
MESSAGE = "named tensors were removed in 2.13 ({what}): track dimensions by position and use permute/unsqueeze where the code aligned by name"

PASS = Pass(
    id="named-tensors",
    since="1.8",
    release="2.13",
    kind=REMOVAL,
    safety=SAFE,
    title="named tensors (names=, refine_names, align_to, rename(None), …) removed in 2.13 (finding)",
    evidence=(
        "pytorch/pytorch#173895 (PyTorch 2.13); AttributeError / TypeError checked on torch 2.13; 2.11 wheel torch/_C/_VariableFunctions.pyi"
        "; finding only: emits no new form"
    ),
    # `names=` (not the word `names`, in most files) keeps the precheck from parsing every file that has a variable so
    # named; a trigger that is not a word is matched on code lines
    triggers=("names=", "refine_names", "align_to", "align_as", "has_names", "rename(None", "rename_(None", "Tensor.rename"),
    examples=[
        Example(
            before="""
                import torch

                imgs = torch.randn(2, 3, 8, 8, names=("N", "C", "H", "W"))
                x = x.refine_names("N", "C").align_to("C", "N")
                plain = x.rename(None)
            """,
            findings=4,
        ),
        Example(
            title="a method referenced on the class",
            before="""
                import torch

                ops = {torch.Tensor.align_as: "align_as"}
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: pandas rename, a names= of your own, .names",
            before="""
                import torch

                df = df.rename(columns={"a": "b"})
                path.rename(target)
                t = make_table(names=("a", "b"))
                n = model.names
                z = torch.zeros(2, 3)
            """,
        ),
    ],
)


@PASS.uses
class NamedTensors(PassTransformer):
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.qualname(func) in FACTORIES and kwarg(node, "names") is not None:
            self.finding(node, MESSAGE.format(what=f"{self.qualname(func)}(names=...)"))
            return
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method in METHODS:
            self.finding(func.attr, MESSAGE.format(what=f".{method}()"))
        elif method in RENAMES and len(node.args) == 1 and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == "None":
            self.finding(func.attr, MESSAGE.format(what=f".{method}(None)"))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in METHODS | RENAMES and self.qualname(node.value) == "torch.Tensor":
            self.finding(node, MESSAGE.format(what=f"torch.Tensor.{node.attr.value}"))
