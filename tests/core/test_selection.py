"""Which passes a run selects: release order, the --from/--to window by kind, opt-in, select/ignore."""

from __future__ import annotations

import pytest

from torchmigrate.core.passes import BEHAVIOUR, DEPRECATION, OPPORTUNITY, REMOVAL, SAFE, Kind, Pass
from torchmigrate.core.registry import Options, all_passes, select_passes, unrunnable
from torchmigrate.core.versions import Version, parse_version

DOC = "## What it does\nx\n## Fix safety\ny"


def make(kind: Kind, removed_in: str | None = None) -> Pass:
    return Pass(
        id="t", release="2.4", safety=SAFE, title="t", evidence="e", triggers=("t",), kind=kind, removed_in=removed_in, doc=DOC
    )


@pytest.mark.parametrize(
    ("kind", "removed_in", "from_", "to", "expected"),
    [
        (REMOVAL, None, "2.3", "2.4", True),
        # code pinned to 2.4 that still spells what 2.4 removed is broken on the target: --from never hides it
        (REMOVAL, None, "2.4", "2.12", True),
        (REMOVAL, None, "2.12", "2.12", True),
        (REMOVAL, None, "2.0", "2.3", False),  # never emit an API newer than the target
        (BEHAVIOUR, None, "2.3", "2.12", True),
        (BEHAVIOUR, None, "2.4", "2.12", False),  # code written for 2.4 already expects the new behaviour
        (DEPRECATION, None, "2.7", "2.12", True),  # deprecated but still working: a 2.7 project may still use it
        (DEPRECATION, None, "2.0", "2.3", False),
        (DEPRECATION, "2.7", "2.6", "2.12", True),
        (DEPRECATION, "2.7", "2.7", "2.12", True),  # removed in 2.7: code pinned to 2.7 that spells it is broken
        (OPPORTUNITY, None, "2.12", "2.12", True),
    ],
)
def test_window_by_kind(kind: Kind, removed_in: str | None, from_: str, to: str, expected: bool) -> None:
    assert make(kind, removed_in).in_range(parse_version(from_), parse_version(to)) is expected


def test_removed_in_needs_deprecation() -> None:
    with pytest.raises(ValueError, match="removed_in"):
        make(REMOVAL, "2.7")


def test_selection_is_in_release_order_and_respects_select_ignore_opt_in() -> None:
    everything = select_passes(to=Version(2, 13), from_=Version(1, 8))
    assert [p.version for p in everything] == sorted(p.version for p in everything)
    assert not any(p.opt_in for p in everything)
    opt_in = next(p for p in all_passes() if p.opt_in)
    chosen = select_passes(to=Version(2, 13), from_=Version(1, 8), select=[opt_in.id])
    assert [p.id for p in chosen] == [opt_in.id]
    first = everything[0]
    assert first not in select_passes(to=Version(2, 13), from_=Version(1, 8), ignore=[first.id])


def test_every_pass_has_a_unique_slug_and_known_release() -> None:
    ids = [p.id for p in all_passes()]
    assert len(ids) == len(set(ids))
    for p in all_passes():
        if p.kind is OPPORTUNITY:
            assert p.opt_in, f"{p.id}: an opportunity is never a default edit"


def test_out_of_range_says_why() -> None:
    behaviour = make(BEHAVIOUR)
    assert behaviour.out_of_range(parse_version("2.3"), parse_version("2.12")) is None
    why = behaviour.out_of_range(parse_version("2.4"), parse_version("2.12"))
    assert why is not None and "behaviour change of 2.4" in why and "--from 2.4" in why
    above = make(REMOVAL).out_of_range(parse_version("2.0"), parse_version("2.3"))
    assert above == "its release 2.4 is above --to 2.3"


def test_a_change_that_reverts_one_releases_behaviour_runs_only_for_code_of_that_release() -> None:
    """defer-layout-freezing: 2.12 reverted what only 2.11 did; code written for 2.10 never relied on it."""
    freezing = next(p for p in all_passes() if p.id == "defer-layout-freezing")
    assert freezing.in_range(parse_version("2.11"), parse_version("2.12"))
    why = freezing.out_of_range(parse_version("2.10"), parse_version("2.12"))
    assert why is not None and "existed only from 2.11" in why
    assert freezing.id not in {p.id for p in Options(to=parse_version("2.13"), from_=parse_version("1.8")).passes()}


def test_unrunnable_names_each_selected_pass_that_cannot_run() -> None:
    lr = next(p for p in all_passes() if p.id == "lr-verbose")  # a 2.7 removal
    onnx = next(p for p in all_passes() if p.id == "onnx-dynamo-default")  # a 2.9 behaviour change
    found = unrunnable([lr.id, onnx.id], from_=parse_version("2.10"), to=parse_version("2.12"))
    assert [(p.id, "behaviour change" in why) for p, why in found] == [(onnx.id, True)]
    assert unrunnable([lr.id], from_=parse_version("2.0"), to=parse_version("2.6"))[0][0] is lr
    assert unrunnable(None, from_=parse_version("2.0"), to=parse_version("2.6")) == []
