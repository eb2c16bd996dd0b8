"""The export passes' output runs on real torch, warns nothing, and gives the eager model's result."""

from __future__ import annotations

import textwrap

from support.torchrun import run_code, torch_or_skip

from torchmigrate import migrate_source

LEGACY = textwrap.dedent(
    """
    import torch
    from torch.export import export_for_inference as efi

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.relu(self.lin(x)) * 2

    torch.manual_seed(0)
    model = Net().eval()
    x = torch.randn(2, 4)
    ep = torch.export.export_for_inference(model, (x,), decomp_table=None)
    ep2 = efi(model, (x,))
    out = ep.module()(x)
    out2 = ep2.module()(x)
    expected = model(x)
    """
)


def test_legacy_code_fails_on_current_torch() -> None:
    torch_or_skip()
    try:
        run_code(LEGACY)
    except (AttributeError, ImportError) as exc:
        assert "export_for_inference" in str(exc)
    else:  # pragma: no cover - would mean torch brought the API back
        raise AssertionError("export_for_inference unexpectedly exists")


def test_chained_migration_runs_and_matches() -> None:
    torch = torch_or_skip()
    result = migrate_source(LEGACY, to="2.12")
    assert result.passes_applied == ["export-for-inference", "export-for-training"]
    assert "export_for_inference" not in result.code and "export_for_training" not in result.code
    ran = run_code(result.code)
    assert ran.deprecations == []
    ns = ran.namespace
    torch.testing.assert_close(ns["out"], ns["expected"])
    torch.testing.assert_close(ns["out2"], ns["expected"])


def test_to_2_8_stops_at_export_for_training() -> None:
    result = migrate_source(LEGACY, to="2.8")
    assert result.passes_applied == ["export-for-inference"]
    assert "torch.export.export_for_training(model, (x,), strict=True).run_decompositions()" in result.code


def test_below_2_8_nothing_changes() -> None:
    assert migrate_source(LEGACY, to="2.7").code == LEGACY
