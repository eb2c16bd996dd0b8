"""`Sampler.__init__` takes no `data_source` since PyTorch 2.10: call `super().__init__()`.

## What it does
In a class that subclasses `torch.utils.data.Sampler` directly (any import form), `super().__init__(data_source)`,
`super(MySampler, self).__init__(data_source=...)` and `Sampler.__init__(self, data_source)` lose the argument.
Subclasses of the concrete samplers (`RandomSampler`, `SequentialSampler`, `DistributedSampler`, …) are left alone:
their `__init__` still takes its arguments.

## Why
The base class ignored the argument since 2.1 (its `__init__(self, data_source=None)` only warned "`data_source`
argument is not used and will be removed in 2.2.0", 2.1 wheel) and 2.10 removed the `__init__` altogether
(pytorch/pytorch#163134): on torch 2.13 `super().__init__(data_source)` raises `TypeError: object.__init__() takes
exactly one argument`.

## Fix safety
Safe: the argument was never used. `Sampler.__init__()` without it works from 2.1 on (1.x required it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.helpers import with_args
from torchmigrate.python.precheck import nested_statements
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

SAMPLER = frozenset({"torch.utils.data.Sampler", "torch.utils.data.sampler.Sampler"})

PASS = Pass(
    id="sampler-init",
    release="2.10",
    kind=REMOVAL,
    safety=SAFE,
    since="2.1",
    title="Sampler subclass super().__init__(data_source) → super().__init__()",
    evidence=(
        "pytorch/pytorch#163134 (PyTorch 2.10 removed Sampler.__init__); 2.1 wheel: data_source unused and deprecated; TypeError checked on torch 2.13"
        "; since 2.1: Sampler.__init__ ignores data_source (torch 2.1.2 wheel, torch/utils/data/sampler.py)"
    ),
    triggers=("Sampler",),
    sliceable=False,  # the class header decides what a call in its methods means
    examples=[
        Example(
            before="""
                from torch.utils.data import Sampler


                class BucketSampler(Sampler):
                    def __init__(self, data_source, batch_size):
                        super().__init__(data_source)
                        self.data_source = data_source
            """,
            after="""
                from torch.utils.data import Sampler


                class BucketSampler(Sampler):
                    def __init__(self, data_source, batch_size):
                        super().__init__()
                        self.data_source = data_source
            """,
        ),
        Example(
            title="two-argument super, the explicit base call, import torch",
            before="""
                import torch


                class A(torch.utils.data.Sampler):
                    def __init__(self, ds):
                        super(A, self).__init__(data_source=ds)


                class B(torch.utils.data.sampler.Sampler):
                    def __init__(self, ds):
                        torch.utils.data.sampler.Sampler.__init__(self, ds)
            """,
            after="""
                import torch


                class A(torch.utils.data.Sampler):
                    def __init__(self, ds):
                        super(A, self).__init__()


                class B(torch.utils.data.sampler.Sampler):
                    def __init__(self, ds):
                        torch.utils.data.sampler.Sampler.__init__(self)
            """,
        ),
        Example(
            title="look-alikes: a concrete sampler's subclass, another library's Sampler",
            before="""
                from torch.utils.data import RandomSampler
                from mylib import Sampler


                class R(RandomSampler):
                    def __init__(self, ds):
                        super().__init__(ds)


                class S(Sampler):
                    def __init__(self, ds):
                        super().__init__(ds)
            """,
        ),
    ],
)


def _is_init(func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and func.attr.value == "__init__"


def detect(file: AstFile) -> Iterator[Site]:
    """A tight bound on the calls the transformer edits (it has no findings): ``super().__init__(x)`` or
    ``Sampler.__init__(self, x)`` with one argument to drop, in a class whose innermost enclosing class subclasses
    ``Sampler`` directly; version-guarded code skipped, as the transformer does."""
    classes = (node for node in nested_statements(file.tree) if isinstance(node, ast.ClassDef))
    if not any(any(file.qualname(base) in SAMPLER for base in node.bases) for node in classes):
        return  # no class subclasses Sampler: no call to look at (most files that spell the word)
    stack: list[tuple[ast.AST, bool]] = [(file.tree, False)]
    while stack:
        node, sampler = stack.pop()
        if file.is_version_guard(node):
            continue
        if isinstance(node, ast.ClassDef):
            inner = any(file.qualname(base) in SAMPLER for base in node.bases)
            header = [*node.decorator_list, *node.bases, *node.keywords]
            children = [(child, sampler or inner) for child in header] + [(child, inner) for child in node.body]
        else:
            if sampler and isinstance(node, ast.Call) and _may_edit(file, node):
                yield file.edit(node)
            children = [(child, sampler) for child in ast.iter_child_nodes(node)]
        stack.extend(reversed(children))


def _may_edit(file: AstFile, call: ast.Call) -> bool:
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "__init__":
        return False
    owner = func.value
    is_super = isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"
    explicit = not is_super and file.qualname(owner) in SAMPLER
    return (is_super or explicit) and len(call.args) + len(call.keywords) == (2 if explicit else 1)


PASS.analyse = analyser(PASS.id, detect)


@PASS.uses
class SamplerInit(PassTransformer):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._classes: list[bool] = []  # per enclosing class: does it subclass Sampler directly?

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(any(self.qualname(base.value) in SAMPLER for base in node.bases if base.keyword is None))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self._classes.pop()
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self._classes or not self._classes[-1] or not _is_init(original_node.func):
            return updated_node
        assert isinstance(original_node.func, cst.Attribute)
        owner = original_node.func.value
        explicit = self.qualname(owner) in SAMPLER  # Sampler.__init__(self, data_source)
        is_super = isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super"
        if not (explicit or is_super) or not self.allowed(original_node):
            return updated_node
        args = list(updated_node.args)
        keep = args[:1] if explicit else []
        rest = args[len(keep) :]
        if len(rest) != 1 or rest[0].star or (rest[0].keyword is not None and rest[0].keyword.value != "data_source"):
            return updated_node
        self.edited(original_node, "Sampler.__init__(data_source): the argument is gone in 2.10 (it was unused)")
        return with_args(updated_node, keep)
