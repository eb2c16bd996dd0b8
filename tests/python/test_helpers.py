"""The small libcst helpers passes build on: binding a call's arguments to a signature, appending a keyword."""

from __future__ import annotations

import libcst as cst
import pytest

from torchmigrate.python.helpers import bind, code_of, with_kwarg

PARAMS = ("model", "args", "kwargs", "strict")


def call(code: str) -> cst.Call:
    node = cst.parse_expression(code)
    assert isinstance(node, cst.Call)
    return node


def test_positional_then_keywords_bind_like_python() -> None:
    bound = bind(call("export(m, (x,), strict=True)"), PARAMS)
    assert {k: code_of(v.value) for k, v in bound.args.items()} == {"model": "m", "args": "(x,)", "strict": "True"}
    assert bound.exact and "kwargs" not in bound and bound.value("kwargs") is None


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("export(m, *rest)", "star"),
        ("export(m, **options)", "star"),
        ("export(m, a, b, c, d)", "extra"),
        ("export(m, dynamic=True)", "unknown"),
        ("export(m, model=n)", "unknown"),  # a keyword repeating a positional argument
    ],
)
def test_what_cannot_be_bound_exactly_is_said(code: str, why: str) -> None:
    bound = bind(call(code), PARAMS)
    assert not bound.exact
    assert {"star": bound.star, "extra": bool(bound.extra), "unknown": bool(bound.unknown)}[why]
    assert code_of(bound.args["model"].value) == "m"


def test_positional_arguments_after_a_star_are_not_guessed() -> None:
    bound = bind(call("export(m, *rest, (x,))"), PARAMS)
    assert set(bound.args) == {"model"} and bound.star


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("f()", "f(k=True)"),
        ("f(a, b)", "f(a, b, k=True)"),
        ("f(a,\n  b)", "f(a,\n  b,\n  k=True)"),
        ("f(\n    a,\n    b,\n)", "f(\n    a,\n    b,\n    k=True,\n)"),
        ("f(\n    a,\n    b)", "f(\n    a,\n    b,\n    k=True)"),
        ("f(\n    a\n)", "f(\n    a,\n    k=True\n)"),
        ("f(\n    a,  # c\n    b,  # d\n)", "f(\n    a,  # c\n    b,  # d\n    k=True,\n)"),
    ],
)
def test_an_appended_keyword_follows_the_call_layout(code: str, expected: str) -> None:
    new = with_kwarg(call(code), "k", "True")
    assert code_of(new) == expected
    cst.parse_expression(code_of(new))
