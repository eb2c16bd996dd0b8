"""The compatibility table: generated from the package index's wheel metadata, consistent, and what the pins read."""

from __future__ import annotations

import copy
import json
from importlib import metadata
from typing import Any

import pytest

from torchmigrate.core.versions import Version
from torchmigrate.project import ecosystem as eco
from torchmigrate.project.tables import TABLE_PATH, check_table, dump


def committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return data


def test_the_committed_table_is_consistent_and_in_the_generators_format() -> None:
    data = committed()
    assert check_table(data) == []
    assert dump(data) == TABLE_PATH.read_text(encoding="utf-8"), (
        "regenerate: python -m torchmigrate.project.tables --keep-index-data"
    )
    assert data["command"] == "python -m torchmigrate.project.tables"
    assert data["generated"] >= "2026-12-01" and "Requires-Dist" in data["source"]
    assert {row["source"] for row in data["builds"].values()} <= set(data["sources"])


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda d: d["packages"]["torchvision"]["0.27.0"].update(requires=["torch (==2.99.0)"]), "requires torch==2.99.0"),
        (lambda d: d["packages"]["torch"].pop("2.12.1"), "requires torch==2.12.1, which the table lacks"),
        (lambda d: d["packages"]["torch"].pop("2.11.0"), "torch 2.11 is missing"),
        (lambda d: d["builds"]["2.12"].update(cuda=["12.6", "13.2"]), "(CUDA 13.0) is not among the builds of 2.12"),
        (lambda d: d["builds"]["2.12"].update(source="memory"), "unknown source 'memory'"),
        (lambda d: d["packages"]["torch"]["2.15.0"].update(pythons=["3.10", "3.11"]), "below its Requires-Python"),
        (lambda d: d["packages"]["torchvision"].pop("0.15.2"), "torch 2.0.1 has no torchvision"),
        (lambda d: d.pop("generated"), "missing key 'generated'"),
    ],
)
def test_an_inconsistent_row_is_an_error(mutate: Any, error: str) -> None:
    data = copy.deepcopy(committed())
    mutate(data)
    assert any(error in line for line in check_table(data)), check_table(data)


def test_every_release_from_1_9_to_2_15_has_a_row() -> None:
    features = {r.feature for r in eco.table().releases("torch")}
    expected = {Version(1, m) for m in range(9, 14)} | {Version(2, m) for m in range(0, 16)}
    assert expected <= features
    for feature in expected:
        newest = eco.torch_releases(feature)[-1]
        assert newest.pythons and eco.companion_for("torchvision", newest.version) is not None, feature


def test_the_ecosystem_facts_of_the_newest_releases() -> None:
    """The facts issue #15 names, as the wheels' metadata has them."""
    assert eco.python_floor(Version(2, 14)) == (3, 10)
    assert eco.python_floor(Version(2, 15)) == (3, 11)
    assert max(eco.pythons(Version(2, 15))) == (3, 15) and (3, 10) not in eco.pythons(Version(2, 15))
    vision = {r.version: r for r in eco.table().releases("torchvision")}
    assert vision["0.29.0"].torch_spec == "==2.14.0"
    assert vision["0.29.1"].torch_spec == ">=2.14.0" and eco.companion_for("torchvision", "2.14.1") is not None
    # 0.29.2 was published with 2.15.0: a stable-ABI wheel (py3-none) that admits torch>=2.14.0
    assert vision["0.29.2"].torch_spec == ">=2.14.0" and not vision["0.29.2"].abi_bound
    assert eco.companion_for("torchvision", "2.15.0") == vision["0.29.2"]
    assert not eco.compatible(vision["0.29.1"], "2.15.0")  # a cp314 wheel built against 2.14
    assert eco.cuda_builds(Version(2, 12)) == {126, 130, 132}
    assert eco.cuda_builds(Version(2, 15)) == {132} and not eco.builds_complete(Version(2, 15))
    assert eco.torch_release("2.15.0") is not None and eco.torch_release("2.15.0").default_cuda == 132  # type: ignore[union-attr]


def test_companion_pairs_come_from_requires_dist() -> None:
    assert eco.companion_for("torchvision", "2.12.0").version == "0.27.0"  # type: ignore[union-attr]
    assert eco.companion_for("torchvision", "2.12.1").version == "0.27.1"  # type: ignore[union-attr]
    assert eco.companion_for("torchaudio", "2.7.1").version == "2.7.1"  # type: ignore[union-attr]
    # torchaudio 2.11.0 pins no torch but is a cp wheel built for 2.11; 2.11.1 (py3-none) requires torch>=2.11
    audio = {r.version: r for r in eco.table().releases("torchaudio")}
    assert audio["2.11.0"].torch_spec is None and audio["2.11.0"].built_for == Version(2, 11)
    assert eco.companion_for("torchaudio", "2.12.1") == audio["2.11.1"]
    assert eco.companion_for("torchtext", "2.12.1") is None  # torchtext 0.18.0 (the last) is built for 2.3
    assert eco.companion_for("intel-extension-for-pytorch", "2.12.1") is None  # none on the index after 2.8
    assert eco.companion_for("oneccl_bind_pt", "2.5.1") is None  # not on the package index at all
    assert eco.companion_for("torch-tensorrt", "2.12.0", current="2.7.0").version == "2.12.1"  # type: ignore[union-attr]
    assert eco.torch_release("2.12.0").requirement("triton") == "==3.7.0"  # type: ignore[union-attr]


def test_cuda_replacements_follow_the_table() -> None:
    assert eco.cuda_replacement(128, Version(2, 12)) == 130
    assert eco.cuda_replacement(118, Version(2, 8)) == 126
    assert eco.cuda_replacement(124, Version(2, 7)) == 126
    assert eco.cuda_replacement(126, Version(2, 12)) is None
    assert eco.cuda_replacement(130, Version(2, 8)) is None  # newer than every 2.8 build: not ours to move
    assert eco.cuda_replacement(126, Version(2, 15)) is None  # 2.15's builds are not fully known: never guessed


def test_python_floor_matches_the_installed_torch() -> None:
    try:  # read the installed distribution's metadata; importing torch is not needed
        installed = metadata.metadata("torch")
    except metadata.PackageNotFoundError:
        pytest.skip("torch not installed")
    version = installed["Version"].split("+")[0]
    release = eco.torch_release(version)
    assert release is not None
    assert installed["Requires-Python"].replace(" ", "") == (release.requires_python or "").replace(" ", "")
    floor = eco.python_floor(release.feature)
    assert floor is not None and installed["Requires-Python"].replace(" ", "") == f">={floor[0]}.{floor[1]}"
