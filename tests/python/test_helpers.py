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


# --- argument layout: an added or dropped argument follows the call's layout ----------------------------------------

from torchmigrate.python.helpers import fix_commas, keep_layout_in, make_kwarg, without_kwargs  # noqa: E402


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("f(a, b)", "f(a, b, z=True)"),
        ("f()", "f(z=True)"),
        # one argument per line, magic trailing comma: a new line at the same indent, with its comma
        ("f(\n    a,\n    b,\n)", "f(\n    a,\n    b,\n    z=True,\n)"),
        # one per line, no trailing comma: the line break before `)` stays there (never `    z=True)` glued to it)
        ("f(\n    a,\n    b\n)", "f(\n    a,\n    b,\n    z=True\n)"),
        # the body on one line under the call (black's right-hand split): the argument joins that line
        ("f(\n    a, b\n)", "f(\n    a, b, z=True\n)"),
        # visual indent: aligned with the arguments above
        ("f(a,\n  b)", "f(a,\n  b,\n  z=True)"),
        # a single argument with a magic trailing comma is one per line
        ("f(\n    a,\n)", "f(\n    a,\n    z=True,\n)"),
        # comments stay at the end of their argument's line; comment lines before `)` stay last
        ("f(\n    a,  # ca\n    b,  # cb\n    # end\n)", "f(\n    a,  # ca\n    b,  # cb\n    z=True,\n    # end\n)"),
        ("f(\n    a,\n    b  # cb\n)", "f(\n    a,\n    b,  # cb\n    z=True\n)"),
        ("f(\n    a, b  # cb\n)", "f(\n    a, b, z=True  # cb\n)"),
        ("f(a,  # c\n  b)", "f(a,  # c\n  b,\n  z=True)"),
    ],
)
def test_an_added_keyword_follows_the_call_layout(before: str, after: str) -> None:
    assert code_of(with_kwarg(call(before), "z", "True")) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("f(a, z=True)", "f(a)"),
        ("f(a, z=True, b=1)", "f(a, b=1)"),
        ("f(\n    a,\n    z=True,\n)", "f(\n    a,\n)"),
        ("f(\n    a,\n    z=True\n)", "f(\n    a\n)"),
        ("f(\n    a,\n    z=True,  # noisy\n    b=1,\n)", "f(\n    a,\n    b=1,\n)"),
        ("f(a,\n  z=True)", "f(a)"),
        ("f(\n    a, z=True  # note\n)", "f(\n    a  # note\n)"),
        ("f(\n    a,  # keep\n    z=True,\n)", "f(\n    a,  # keep\n)"),
    ],
)
def test_a_dropped_keyword_leaves_the_call_layout(before: str, after: str) -> None:
    assert code_of(without_kwargs(call(before), ["z"])) == after


def test_a_rebuilt_argument_list_keeps_the_layout_of_the_call_it_replaces() -> None:
    original = call("remove_weight_norm(\n    module,\n    name,\n)")
    rebuilt = cst.Call(func=cst.Name("remove"), args=fix_commas([cst.Arg(a.value) for a in original.args]))
    result = keep_layout_in(rebuilt, original)
    assert code_of(result) == "remove(\n    module,\n    name,\n)"
    nested = cst.Call(func=cst.Attribute(value=rebuilt, attr=cst.Name("run")), args=[make_kwarg("t", cst.Name("T"))])
    assert code_of(keep_layout_in(nested, original)) == "remove(\n    module,\n    name,\n).run(t=T)"
    assert keep_layout_in(result, original).deep_equals(result)  # a second pass changes nothing


def test_a_list_on_one_line_is_punctuated_as_before() -> None:
    args = fix_commas([make_kwarg("a", cst.Name("x")), make_kwarg("b", cst.Name("y"))], like=call("f(x, y)"))
    assert code_of(cst.Call(func=cst.Name("g"), args=args)) == "g(a=x, b=y)"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("f()", "f(k=True)"),
        ("f(a, b)", "f(a, b, k=True)"),
        ("f(a,\n  b)", "f(a,\n  b,\n  k=True)"),
        ("f(\n    a,\n    b,\n)", "f(\n    a,\n    b,\n    k=True,\n)"),
        ("f(\n    a,\n    b)", "f(\n    a,\n    b,\n    k=True)"),
        ("f(\n    a,  # c\n    b,  # d\n)", "f(\n    a,  # c\n    b,  # d\n    k=True,\n)"),
    ],
)
def test_an_appended_keyword_follows_the_call_layout_gaps_a_cases(code: str, expected: str) -> None:
    new = with_kwarg(call(code), "k", "True")
    assert code_of(new) == expected
    cst.parse_expression(code_of(new))


def test_dropping_the_only_argument_of_a_multi_line_call_leaves_empty_brackets() -> None:
    assert code_of(without_kwargs(call("f(\n    verbose=True,\n)"), ["verbose"])) == "f()"
    assert code_of(without_kwargs(call("f(\n    a,\n    verbose=True,\n)"), ["verbose"])) == "f(\n    a,\n)"
