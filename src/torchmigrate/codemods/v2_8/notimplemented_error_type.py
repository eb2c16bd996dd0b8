"""Ops given an unsupported dtype raise `NotImplementedError` since PyTorch 2.8: `except NotImplementedError` now catches them.

## What it does
Reports (no edit) a `try` statement whose body calls a public torch operator API (`torch.X(...)`,
`torch.nn.functional.*`, `torch.linalg.*`, `torch.special.*`, `torch.fft.*`, `torch.ops.*`, an `nn` module such as
`torch.nn.Hardshrink()`) and which has an `except NotImplementedError` handler that is not preceded by a
`RuntimeError` / `Exception` handler and does not also list `RuntimeError`. Calls into torch's helper packages
(`torch.utils`, `torch.fx`, private names) and torch's own non-operator functions (grad-mode and autocast context
managers such as `torch.no_grad()`, configuration, RNG-state and thread settings, `torch.load` / `torch.save` /
`torch.compile`) do not count: their `NotImplementedError`s are not about dtypes.

## Why
2.8 made ATen raise `NotImplementedError` instead of `RuntimeError` when an operator has no kernel for the input
dtypes (release notes, BC-breaking, pytorch/pytorch#155470: `torch.nn.Hardshrink()(torch.randint(0, 5, (10,)))` →
`NotImplementedError: "hardshrink_cpu" not implemented for 'Long'`, checked on torch 2.13). The change applies to
every operator's dtype dispatch, so the affected calls cannot be listed.

`NotImplementedError` is a subclass of `RuntimeError` in Python, so an `except RuntimeError:` around such a call
keeps catching it (the release note's example shows narrowing it to `except NotImplementedError`, which is optional).
What does change is a handler for `NotImplementedError` meant for something else — typically "this backend /
feature is not implemented, fall back": since 2.8 it also swallows dtype errors that used to propagate as
`RuntimeError`. Those are the handlers this pass reports.

## Fix safety
Finding only: check that the fallback is right for dtype errors too, or narrow the `try` body to the call that is
meant to raise `NotImplementedError`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.helpers import handler_names
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import PassTransformer

_BROADER = {"RuntimeError", "Exception", "BaseException"}

PASS = Pass(
    id="notimplemented-error-type",
    release="2.8",
    since="1.8",
    safety=SAFE,
    kind=BEHAVIOUR,
    title="except NotImplementedError around torch ops also catches dtype errors since 2.8 (finding)",
    evidence=(
        "PyTorch 2.8 release notes, BC-breaking (pytorch/pytorch#155470)"
        "; finding only: emits no new form"
    ),
    triggers=("NotImplementedError",),
    examples=[
        Example(
            title="a fallback handler that now also catches dtype errors",
            before="""
                import torch

                try:
                    y = torch.nn.functional.hardshrink(x)
                except NotImplementedError:
                    y = slow_path(x)
            """,
            findings=1,
        ),
        Example(
            title="an nn module from a from-import, handler in a tuple",
            before="""
                from torch import nn

                try:
                    y = nn.Hardshrink()(x)
                except (NotImplementedError, TypeError):
                    y = x
            """,
            findings=1,
        ),
        Example(
            title="except RuntimeError still catches NotImplementedError (a subclass): nothing to report",
            before="""
                import torch

                try:
                    y = torch.nn.Hardshrink()(x)
                except RuntimeError:
                    y = x
            """,
        ),
        Example(
            title="handlers that already catch both, and try bodies without torch calls, are fine",
            before="""
                import torch

                try:
                    y = torch.erfinv(x)
                except (NotImplementedError, RuntimeError):
                    y = x

                try:
                    backend.run(x)
                except NotImplementedError:
                    pass

                try:
                    with torch.no_grad():
                        out = model.generate(x)
                except NotImplementedError:
                    out = None

                from torch.utils._sympy.solve import try_solve

                try:
                    r = try_solve(expr, s)
                except NotImplementedError:
                    r = None
            """,
        ),
    ],
)


OPERATOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.special.", "torch.fft.", "torch.ops.")
# torch.X functions that dispatch no ATen operator on the tensors they are given (all exist in torch 2.13).
NOT_OPERATORS = frozenset(
    f"torch.{name}"
    for name in (
        "no_grad enable_grad inference_mode set_grad_enabled is_grad_enabled is_inference_mode_enabled autocast "
        "is_autocast_enabled device dtype Generator manual_seed seed initial_seed get_rng_state set_rng_state "
        "set_default_dtype get_default_dtype set_default_device get_default_device set_printoptions is_tensor "
        "is_storage typename compile load save use_deterministic_algorithms are_deterministic_algorithms_enabled "
        "set_deterministic_debug_mode get_deterministic_debug_mode set_num_threads get_num_threads "
        "set_num_interop_threads get_num_interop_threads set_float32_matmul_precision get_float32_matmul_precision "
        "set_warn_always is_warn_always_enabled set_flush_denormal"
    ).split()
)


def is_operator(name: str) -> bool:
    """A public torch API that dispatches to ATen operators: ``torch.erfinv``, ``torch.nn.functional.*``,
    ``torch.linalg.*`` …, or an ``nn`` module (``torch.nn.Hardshrink``). Helpers such as ``torch.utils.*`` or
    ``torch.fx.*`` are not: their ``NotImplementedError`` has nothing to do with dtypes."""
    parts = name.split(".")
    if any(part.startswith("_") for part in parts) or parts[0] != "torch" or name in NOT_OPERATORS:
        return False
    if len(parts) == 2:
        return True
    if len(parts) == 3 and parts[1] == "nn" and parts[2][:1].isupper():
        return True
    return name.startswith(OPERATOR_NAMESPACES)


class _TorchCalls(cst.CSTVisitor):
    def __init__(self, owner: PassTransformer) -> None:
        self.owner = owner
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        name = self.owner.qualname(node.func)
        if name is not None and is_operator(name):
            self.found = True
        return not self.found

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested definition does not run in the try body

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


MESSAGE = (
    "since 2.8 torch ops raise NotImplementedError for unsupported dtypes: this handler now also "
    "catches those errors (2.7 raised RuntimeError past it); check the fallback, or narrow the try body"
)


# an `except` clause that may name NotImplementedError (on its line, after a line continuation, or in a bracketed tuple)
# (led by the literal `except`, which the regex engine finds fast; the lookbehind puts the word boundary before it)
_HANDLER = re.compile(r"except(?<=\bexcept)(?:\b(?:[^\n]|\\\n)*\bNotImplementedError\b|\s*\()")


def detect(file: AstFile) -> Iterator[Site]:
    """The handlers the transformer reports, found with the stdlib ast (its findings, exactly)."""
    if not _HANDLER.search(file.text):
        return  # no `except` clause names NotImplementedError
    for node in file.statements():
        if not isinstance(node, ast.Try):
            continue
        for handler in node.handlers:
            names = file.handler_names(handler)
            if names & (_BROADER | {"*"}):
                break
            if "NotImplementedError" in names:
                if any(file.runs_a_call(statement, is_operator) for statement in node.body):
                    yield file.finding(handler, MESSAGE)
                break


PASS.analyse = analyser(PASS.id, detect, exact=True)


@PASS.uses
class NotImplementedHandlers(PassTransformer):
    def visit_Try(self, node: cst.Try) -> None:
        for handler in node.handlers:
            names = handler_names(handler)
            if names & (_BROADER | {"*"}):
                return  # this handler (or an earlier one) already catches RuntimeError
            if "NotImplementedError" in names:
                calls = _TorchCalls(self)
                node.body.visit(calls)
                if calls.found:
                    self.finding(handler, MESSAGE)
                return
