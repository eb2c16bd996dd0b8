"""Passes that chain across releases end, with --to 2.15, on what 2.15 wants."""

from __future__ import annotations

import textwrap

from torchmigrate import migrate_source
from torchmigrate.core.registry import select_passes
from torchmigrate.core.versions import OLDEST, parse_version


def test_metadata_json_ends_on_event_metadata_with_the_2_15_finding() -> None:
    code = textwrap.dedent(
        """
        from torch.profiler import profile

        with profile() as prof:
            run()
        tagged = [e.name for e in prof.events() if e.metadata_json]
        """
    )
    # profiler-metadata-json is a review pass: its edit is made with unsafe fixes only
    assert migrate_source(code, to="2.14").code == code
    to_2_14 = migrate_source(code, to="2.14", unsafe_fixes=True)
    assert "e.event_metadata" in to_2_14.code and not to_2_14.findings
    to_2_15 = migrate_source(code, to="2.15", unsafe_fixes=True)
    assert to_2_15.code == to_2_14.code
    assert to_2_15.passes_applied == ["profiler-metadata-json"]  # the edit; 2.15's pass reports what it left
    assert [f.pass_id for f in to_2_15.findings] == ["profiler-event-metadata"]
    # --from never hides broken code: metadata_json is gone in 2.15, so code said to be written for 2.15 is migrated too
    assert migrate_source(code, to="2.15", from_="2.15", unsafe_fixes=True).code == to_2_15.code


def test_private_collectives_end_on_the_single_names() -> None:
    code = "import torch.distributed as dist\n\ndist._all_gather_base(out, inp)\ndist._reduce_scatter_base(out, inp)\n"
    assert migrate_source(code, to="2.12").code.count("_into_tensor(") == 1
    for to in ("2.13", "2.15"):
        result = migrate_source(code, to=to)
        assert "dist.all_gather_single(out, inp)" in result.code and "dist.reduce_scatter_single(out, inp)" in result.code


def test_function_and_method_forms_of_cholesky_meet_in_linalg() -> None:
    code = "import torch\n\nA = torch.randn(3, 3)\nS = A @ A.mT\nL = torch.cholesky(S)\nM = S.cholesky()\n"
    result = migrate_source(code, to="2.15")
    assert result.code.count("torch.linalg.cholesky(S)") == 2
    assert result.passes_applied == ["linalg-deprecated", "cholesky-qr-removed"]


def test_the_2_14_and_2_15_passes_are_listed_only_from_their_release() -> None:
    ids = {
        "2.14": {"cholesky-qr-removed", "compile-shapes-spec", "compiler-config-2-14", "cuda-graph-generator-state",
                 "file-baton-import", "gather-single", "green-context-stack", "lp-pool-norm-zero",
                 "profiler-experimental-metrics", "profiler-with-modules", "softmax-dim-int",
                 "checkpoint-saved-tensors-hooks"},
        "2.15": {"dcp-fsspec-filesystem", "inductor-config-2-15", "mp-reduce-event", "optimizer-param-set",
                 "profiler-adjust-step", "profiler-event-metadata", "profiler-nvprof"},
    }
    everything = {p.id for p in select_passes(to=parse_version("2.15"), from_=OLDEST)}
    before_2_14 = {p.id for p in select_passes(to=parse_version("2.13"), from_=OLDEST)}
    at_2_14 = {p.id for p in select_passes(to=parse_version("2.14.1"), from_=OLDEST)}
    assert ids["2.14"] | ids["2.15"] <= everything
    assert not (ids["2.14"] | ids["2.15"]) & before_2_14
    assert ids["2.14"] <= at_2_14 and not ids["2.15"] & at_2_14
