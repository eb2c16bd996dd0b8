"""`zero_grad()` sets gradients to `None` since PyTorch 2.0: code that reads `.grad` right after it breaks.

## What it does
Reports (no edit) a `.grad` read that follows a `zero_grad()` call (an optimizer's or a module's) in the same block
with no `backward()` / `autograd.grad(...)` call in between — the one place where the new default shows:
`opt.zero_grad(); for p in params: p.grad.add_(g)` fails with `AttributeError: 'NoneType' object has no attribute
'add_'` since 2.0. Not reported: reads that cope with `None` (`if p.grad is not None`, `not p.grad`, `assert
p.grad`), assignments to `.grad`, calls that choose `set_to_none` explicitly, reads after a backward in the same loop
body, code under a version check, and the usual `zero_grad(); loss.backward(); step()` loop.

## Why
2.0 changed the default of `Optimizer.zero_grad` and `Module.zero_grad` to `set_to_none=True` (release notes,
BC-breaking; the 1.13 wheel has `set_to_none: bool = False`, the 2.0 wheel `= True`): gradients become `None`
instead of zero tensors until the next backward pass.

## Fix safety
Finding only: pass `zero_grad(set_to_none=False)` to keep zero tensors, or handle `p.grad is None` where the
gradient is read.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.guards import is_version_guard, is_version_guard_ast
from torchmigrate.python.lastfile import keeps
from torchmigrate.python.sites import AstFile, Site, analyser, children_in_source_order
from torchmigrate.python.transform import PassTransformer

PASS = Pass(
    id="zero-grad-none",
    since="1.8",
    release="2.0",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="a .grad read right after zero_grad() (gradients are None since 2.0) (finding)",
    evidence=(
        "PyTorch 2.0 release notes, BC-breaking (zero_grad set_to_none=True by default); 1.13 vs 2.0 wheels torch/optim/optimizer.py"
        "; finding only: emits no new form"
    ),
    triggers=("zero_grad",),
    sliceable=False,  # the .grad read is in a statement after the zero_grad() call, which need not spell the word
    examples=[
        Example(
            before="""
                import torch

                opt.zero_grad()
                for p in model.parameters():
                    p.grad.add_(noise(p))
            """,
            findings=1,
        ),
        Example(
            title="inside a function, a module's zero_grad",
            before="""
                def accumulate(model, grads):
                    model.zero_grad()
                    for p, g in zip(model.parameters(), grads):
                        p.grad += g
            """,
            findings=1,
        ),
        Example(
            title="the usual loop, a None check, set_to_none=False, an assignment: nothing to report",
            before="""
                opt.zero_grad()
                loss.backward()
                norms = [p.grad.norm() for p in params]

                opt.zero_grad()
                for p in params:
                    if p.grad is not None:
                        p.grad.zero_()

                opt.zero_grad(set_to_none=False)
                total = sum(p.grad.sum() for p in params)

                opt.zero_grad(set_to_none=True)
                for x in batches:
                    model(x).sum().backward()
                    seen = [p.grad.dtype for p in params]

                model.zero_grad()
                for p in params:
                    p.grad = torch.zeros_like(p)

                opt.zero_grad()
                assert not m.weight.grad
            """,
        ),
        Example(
            title="a branch for older releases is left alone",
            before="""
                import torch

                opt.zero_grad()
                if torch.__version__ < "2.0":
                    assert (m.weight.grad == 0).all()
                else:
                    assert m.weight.grad is None
            """,
        ),
    ],
)


def _is_zero_grad(node: cst.CSTNode) -> bool:
    """A ``X.zero_grad()`` call that relies on the default of ``set_to_none`` (the one that changed)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "zero_grad"):
        return False
    return not node.args  # zero_grad(False) / zero_grad(set_to_none=...) chose explicitly


def _is_grad(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "grad"


def _is_backward(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in ("backward", "grad", "manual_backward", "zero_grad")


class _Skip(cst.CSTVisitor):
    """Walks a statement in source order; nested definitions and version-gated branches do not run there."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and not is_version_guard(node)


class _FirstZeroGrad(_Skip):
    def __init__(self) -> None:
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found or not super().on_visit(node):
            return False
        self.found = _is_zero_grad(node)
        return not self.found


class _Reads(_Skip):
    """In source order: the first ``.grad`` read, unless a backward / another ``zero_grad`` / a ``None`` test of
    ``.grad`` comes first (``done``: nothing after it in the block can be reported)."""

    def __init__(self, owner: ZeroGradNone) -> None:
        self.owner = owner
        self.read: cst.CSTNode | None = None
        self.done = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.done or not super().on_visit(node):
            return False
        if _is_backward(node) or self.owner.none_check(node):
            self.done = True
        elif self.owner.grad_read(node):
            self.read, self.done = node, True
        return not self.done


_MESSAGE = (
    "since 2.0 zero_grad() sets gradients to None (set_to_none=True by default): this .grad read "
    "fails until the next backward(); call zero_grad(set_to_none=False) above, or handle None here"
)
_BACKWARD = frozenset({"backward", "grad", "manual_backward", "zero_grad"})
_BLOCKS = ("body", "orelse", "finalbody")


def detect(file: AstFile) -> Iterator[Site]:
    """The transformer's findings from the stdlib ast, by its rule: in each indented block (and the module), after a
    line holding a ``zero_grad()`` call that relies on the default, the first ``.grad`` read of each later statement
    in source order, until a backward / ``autograd.grad`` / another ``zero_grad`` call or a ``None`` test of ``.grad``
    comes first. Lines of the block are libcst's: simple statements joined by ``;`` are one line, and a block written
    on its header's line (``if x: a; b``) is not scanned, as libcst gives it no indented block. Where the ast cannot
    tell libcst's lines (a backslash continuation), or libcst sees a ``.grad`` the ast has no node for (the dotted
    name of an import: ``import pkg.grad``), the site is an edit: the transformer decides."""
    for node in file.walk():
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                continue
            if not isinstance(node, ast.Module):
                if _on_header_line(file, block[0]):
                    continue  # `if x: a; b`: libcst's suite, not an indented block
                if file.continued(block[0].lineno - 1):  # `if x: \` and the body on the next line: a suite too
                    if any(_zero_grad_in(file, statement) for statement in block):
                        yield file.edit(block[0])  # (or an indented block after a continued header): libcst decides
                    continue
            yield from _scan(file, _lines(block))


def _on_header_line(file: AstFile, statement: ast.stmt) -> bool:
    return bool(file.before(statement).strip())


def _lines(block: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The block's statements as libcst's lines: simple statements on one line (``a; b``) together."""
    lines: list[list[ast.stmt]] = []
    for statement in block:
        simple = not isinstance(statement, _COMPOUND)
        if lines and simple and not isinstance(lines[-1][-1], _COMPOUND) and statement.lineno == lines[-1][-1].end_lineno:
            lines[-1].append(statement)
        else:
            lines.append([statement])
    return lines


def _scan(file: AstFile, lines: list[list[ast.stmt]]) -> Iterator[Site]:
    for index, line in enumerate(lines):
        if isinstance(line[0], _COMPOUND) or not any(_zero_grad_in(file, statement) for statement in line):
            continue
        last = lines[-1][-1].end_lineno or lines[-1][-1].lineno
        if any(file.continued(number) for number in range(line[0].lineno, last)):
            yield file.edit(line[0])  # a backslash continuation may join statements into one libcst line: it decides
            return
        for later in lines[index + 1 :]:
            read, done = _first_read(later)
            if read is _IMPORTED_GRAD:
                yield file.edit(later[0])
            elif read is not None:
                yield file.finding(read, _MESSAGE)
            if done:
                break


def _skipped(node: ast.AST) -> bool:
    """What the transformer's walks do not enter: nested definitions and version-gated branches (libcst's rule)."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) or (
        isinstance(node, (ast.If, ast.IfExp, ast.Try)) and is_version_guard_ast(node)
    )


def _walk(statements: list[ast.stmt]) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """(node, parent) in source order, pre-order, skipping what ``_skipped`` says."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(s, None) for s in reversed(statements)]
    while stack:
        node, parent = stack.pop()
        if _skipped(node):
            continue
        yield node, parent
        stack.extend((child, node) for child in reversed(children_in_source_order(node)))


def _zero_grad_in(file: AstFile, statement: ast.stmt) -> bool:
    lines = _spelled_on(file)
    at = bisect_left(lines, statement.lineno)
    if at == len(lines) or lines[at] > (statement.end_lineno or statement.lineno):
        return False  # no line of the statement spells `zero_grad`: nothing to walk
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "zero_grad"
        and not node.args
        and not node.keywords
        for node, _ in _walk([statement])
    )


def _spelled_on(file: AstFile) -> list[int]:
    """The (sorted) lines of ``file`` that spell ``zero_grad``, which every line holding a call to it does."""
    if _SPELLED and _SPELLED[0][0] is file:
        return _SPELLED[0][1]
    found = [number for number, line in enumerate(file.lines, start=1) if "zero_grad" in line]
    _SPELLED[:] = [(file, found)]
    return found


_SPELLED: list[tuple[AstFile, list[int]]] = []
keeps(_SPELLED.clear)


def _grad(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _none_check(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _grad(node.operand)
    if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return _grad(node.test)
    return (
        isinstance(node, ast.Compare)
        and _grad(node.left)
        and any(
            isinstance(op, (ast.Is, ast.IsNot)) and isinstance(c, ast.Constant) and c.value is None
            for op, c in zip(node.ops, node.comparators, strict=True)
        )
    )


_IMPORTED_GRAD: ast.AST = ast.Pass()  # `import pkg.grad`: libcst's dotted name holds a `.grad` attribute


def _first_read(statements: list[ast.stmt]) -> tuple[ast.AST | None, bool]:
    """The first ``.grad`` read of a line and whether the scan stops there (``_Reads``)."""
    for node, parent in _walk(statements):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            dotted = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            if any("grad" in name.split(".")[1:] for name in dotted):
                return _IMPORTED_GRAD, True
        if _ast_backward(node) or _none_check(node):
            return None, True
        if _grad(node):
            if isinstance(parent, ast.Assign) and node in parent.targets:
                continue  # `p.grad = ...` does not read it
            if isinstance(parent, ast.AugAssign) and parent.target is node:
                return node, True  # `p.grad += g` does
            if not _none_check(parent):
                return node, True
    return None, False


def _ast_backward(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _BACKWARD


_COMPOUND = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
    ast.AsyncWith, ast.Try, ast.Match, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


PASS.analyse = analyser(PASS.id, detect, exact=True)


@PASS.uses
class ZeroGradNone(PassTransformer):
    def none_check(self, node: cst.CSTNode) -> bool:
        """``X.grad is None`` / ``X.grad is not None``, or a truth test of ``X.grad`` (``not p.grad``, ``if p.grad:``,
        ``assert p.grad``, ``… if p.grad else …``), which ``None`` passes too."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return _is_grad(node.expression)
        if isinstance(node, (cst.If, cst.While, cst.Assert, cst.IfExp)):
            return _is_grad(node.test)
        return (
            isinstance(node, cst.Comparison)
            and _is_grad(node.left)
            and any(
                isinstance(c.operator, (cst.Is, cst.IsNot)) and isinstance(c.comparator, cst.Name) and c.comparator.value == "None"
                for c in node.comparisons
            )
        )

    def grad_read(self, node: cst.CSTNode) -> bool:
        if not _is_grad(node):
            return False
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) and getattr(parent, "target", None) is node:
            return isinstance(parent, cst.AugAssign)  # p.grad += g reads it; p.grad = ... does not
        return not (parent is not None and self.none_check(parent))

    def _scan(self, body: Sequence[cst.BaseStatement]) -> None:
        for i, statement in enumerate(body):
            if isinstance(statement, cst.BaseCompoundStatement):
                continue  # a zero_grad inside a compound statement is scanned with that block
            zero = _FirstZeroGrad()
            statement.visit(zero)
            if not zero.found:
                continue
            for later in body[i + 1 :]:
                reads = _Reads(self)
                later.visit(reads)
                if reads.read is not None:
                    self.finding(
                        reads.read,
                        "since 2.0 zero_grad() sets gradients to None (set_to_none=True by default): this .grad read "
                        "fails until the next backward(); call zero_grad(set_to_none=False) above, or handle None here",
                    )
                if reads.done:
                    break

    def visit_Module(self, node: cst.Module) -> None:
        self._scan(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._scan(node.body)
