"""Which passes a run selects: release order, the --from/--to window by kind, opt-in, select/ignore."""

from __future__ import annotations

import pytest

from torchmigrate.core.passes import BEHAVIOUR, DEPRECATION, OPPORTUNITY, REMOVAL, SAFE, Kind, Pass
from torchmigrate.core.registry import all_passes, select_passes
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
        (REMOVAL, None, "2.4", "2.12", False),  # code written for 2.4 cannot use what 2.4 removed
        (REMOVAL, None, "2.0", "2.3", False),  # never emit an API newer than the target
        (BEHAVIOUR, None, "2.4", "2.12", False),
        (DEPRECATION, None, "2.7", "2.12", True),  # deprecated but still working: a 2.7 project may still use it
        (DEPRECATION, None, "2.0", "2.3", False),
        (DEPRECATION, "2.7", "2.6", "2.12", True),
        (DEPRECATION, "2.7", "2.7", "2.12", False),  # removed in 2.7: code for 2.7 cannot use it
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
