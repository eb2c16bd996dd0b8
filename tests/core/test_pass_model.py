"""The Pass model: trigger words follow from what a pass declares, and examples read as dedented code."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from torchmigrate.core.passes import SAFE, Example, Pass, Unchanged, code_block, last_components
from torchmigrate.core.registry import all_passes


def make(**kwargs: object) -> Pass:
    return Pass(id="t-pass", release="2.5", safety=SAFE, title="t", evidence="e", **kwargs)  # type: ignore[arg-type]


def test_trigger_words_are_the_last_components_of_the_declared_names() -> None:
    p = make(renames={"torch.distributed._tensor": "torch.distributed.tensor", "torch.distributed._tensor.api.X": "y"})
    assert p.triggers == ("_tensor",)  # a name under another renamed name needs no word of its own

    @p.rewrites_calls("torch.library.impl_abstract")
    def rewrite(call: object, ctx: object) -> None:
        return None

    assert set(p.triggers) == {"_tensor", "impl_abstract"}


def test_declared_trigger_words_replace_the_derived_ones() -> None:
    p = make(renames={"torch.utils.data.DataLoader": "x"}, triggers=("pin_memory_device",))
    assert p.triggers == ("pin_memory_device",)


def test_last_components_drops_names_under_others() -> None:
    assert last_components(["a.b", "a.b.c", "a.bc", "x.y.z"]) == ("b", "bc", "z")


def _last_components_by_pairs(names: list[str]) -> tuple[str, ...]:
    """The definition, one pair of names at a time (quadratic: what the registry's start-up used to pay)."""
    unique = sorted(set(names))
    kept = [n for n in unique if not any(n.startswith(other + ".") for other in unique)]
    return tuple(dict.fromkeys(name.rpartition(".")[2] for name in kept))


@given(st.lists(st.text(alphabet="ab.", max_size=6), max_size=12))
def test_last_components_agrees_with_the_pairwise_definition(names: list[str]) -> None:
    assert last_components(names) == _last_components_by_pairs(names)


def test_last_components_agrees_on_every_shipped_pass() -> None:
    for p in all_passes():
        names = [*p.renames, *(p.qualnames or ()), *p.call_rewriters]
        assert last_components(names) == _last_components_by_pairs(names), p.id


def test_every_shipped_pass_has_trigger_words_and_a_document() -> None:
    for p in all_passes():
        assert p.triggers, p.id
        assert p.doc.strip(), p.id


def test_triple_quoted_examples_are_dedented() -> None:
    example = Example(
        """
        import torch

        def f():
            return 1
        """,
        """
        import torch
        """,
    )
    assert example.before == "import torch\n\ndef f():\n    return 1\n"
    assert example.after == "import torch\n"


@pytest.mark.parametrize("raw", ["import torch\r\n", "\tx = 1\n", "x = 1  \n"])
def test_text_that_does_not_start_with_a_line_break_is_taken_as_it_is(raw: str) -> None:
    assert code_block(raw) == raw
    assert Example(raw).before == raw


def test_unchanged_is_an_example_without_an_after() -> None:
    example = Unchanged("\n    x = 1\n    ", findings=1, title="t")
    assert example.after is None and example.expected == "x = 1\n" and example.findings == 1
