"""The bundled example, migrated with the default options (`migrate --to 2.12 examples/legacy_project`), runs on the
installed torch 2.13: `--from` (2.7, its pin) no longer hides the 2.7 removal `StepLR(..., verbose=False)`, which
raises on 2.13, and the removed export API is rewritten into a form that also runs on torch 2.7, the oldest release
its pyproject.toml still admits."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest
from support.cli import run
from support.torchrun import run_code

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "legacy_project"


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("example") / "legacy_project"
    shutil.copytree(EXAMPLE, copy)
    proc = run("--to", "2.12", "--no-cache", ".", cwd=copy, text=True)
    assert proc.returncode == 0, proc.stderr
    return copy / "src" / "legacy_app"


def test_training_builds_its_scheduler_and_steps_on_torch_2_13(migrated: Path) -> None:
    torch = pytest.importorskip("torch")
    legacy = (EXAMPLE / "src" / "legacy_app" / "training.py").read_text(encoding="utf-8")
    new = (migrated / "training.py").read_text(encoding="utf-8")
    model = torch.nn.Linear(2, 1)
    with pytest.raises(TypeError, match="verbose"):  # what the default run used to leave in place
        run_code(legacy).namespace["make_scheduler"](torch.optim.SGD(model.parameters(), lr=0.1))
    ran = run_code(new)
    assert ran.deprecations == []
    ns = ran.namespace
    net = ns["Net"]()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = ns["make_scheduler"](opt)
    x, y = torch.randn(4, 8, requires_grad=True), torch.randn(4, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # torch.cuda.amp's FutureWarning would fail here
        loss = ns["train_step"](net, opt, ns["make_scaler"](False), x, y)
    sched.step()
    assert torch.isfinite(loss) and sched.get_last_lr() == [0.05]


def test_export_runs_on_torch_2_13_and_the_legacy_file_does_not(migrated: Path) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(ImportError, match="export_for_inference"):  # removed in 2.8: the legacy file does not import
        run_code((EXAMPLE / "src" / "legacy_app" / "export_model.py").read_text(encoding="utf-8"))
    exercise = (
        "\nmodel, example = TinyNet().eval(), torch.randn(2, 8)\n"
        "programs = [export_default(model, example), export_with_table(model, example, None)]\n"
        "outputs = [p.module()(example) for p in programs], model(example)\n"
    )
    ran = run_code((migrated / "export_model.py").read_text(encoding="utf-8") + exercise)
    assert ran.deprecations == []
    assert all(isinstance(p, torch.export.ExportedProgram) for p in ran.namespace["programs"])
    got, expected = ran.namespace["outputs"]
    assert all(torch.allclose(out, expected) for out in got)
