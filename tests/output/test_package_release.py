"""Passes for a companion package's change (torchvision, torchaudio, torchdata, torchtext) show that package's release
beside the torch release it shipped with — in `--list`, `--explain` and the README table — and `--to` / `--from` gate
them on the torch release."""

from __future__ import annotations

import pytest

from torchmigrate.core.registry import Options, all_passes, get_pass
from torchmigrate.core.versions import parse_version
from torchmigrate.output.docs import pass_table, render_explain
from torchmigrate.output.terminal import explain_markdown

# pass → (torch release, package release): torchvision 0.13 shipped with torch 1.12, 0.16 with 2.1, 0.22 with 2.7
EXPECTED = {
    "torchvision-models-utils": ("1.10", "torchvision 0.11"),
    "torchvision-pretrained": ("1.12", "torchvision 0.13"),
    "torchvision-model-urls": ("1.12", "torchvision 0.13"),
    "torchvision-functional-modules": ("2.0", "torchvision 0.15"),
    "torchvision-v2-beta-names": ("2.1", "torchvision 0.16"),
    "torchvision-v2-to-tensor": ("2.1", "torchvision 0.16"),
    "torchvision-video-io": ("2.7", "torchvision 0.22"),
    "torchtext-retired": ("2.4", "torchtext 0.18"),
    "torchdata-datapipes": ("2.6", "torchdata 0.10"),
    "torchaudio-removed-apis": ("2.9", "torchaudio 2.9"),
    "torchaudio-load-save-torchcodec": ("2.9", "torchaudio 2.9"),
}


def test_every_package_pass_is_known() -> None:
    assert {p.id: (p.release, p.package) for p in all_passes() if p.package} == EXPECTED


@pytest.mark.parametrize("pass_id", sorted(EXPECTED))
def test_the_package_release_is_shown(pass_id: str) -> None:
    p = get_pass(pass_id)
    release, package = EXPECTED[pass_id]
    label = f"{release} ({package})"
    assert p.summary_line.endswith(f"[{package}]") and p.summary_line.split()[1] == release
    assert f"release: {label} " in render_explain(p)
    assert f"release **{label}**" in explain_markdown(p)
    assert f"| `{pass_id}` | {label} |" in pass_table()


@pytest.mark.parametrize(("to", "runs"), [("1.11", False), ("1.12", True), ("2.12", True)])
def test_to_gates_on_the_torch_release(to: str, runs: bool) -> None:
    chosen = {p.id for p in Options(to=parse_version(to), from_=parse_version("1.9")).passes()}
    assert ("torchvision-pretrained" in chosen) is runs
    assert ("torchaudio-removed-apis" in chosen) is (to == "2.12")
