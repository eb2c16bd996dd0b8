"""Catalog passes, part A, on real torch: the migrated code runs on torch 2.13 (CPU), warns no deprecation, and gives
the same result as the legacy code; where the old API still exists the legacy code is shown to warn (or to fail)."""

from __future__ import annotations

import itertools
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
from support.torchrun import Ran, run_code, torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()

FROM = "1.8"  # the code below is "legacy": every pass applies
_ops = itertools.count()


def migrate(code: str, *, select: list[str] | None = None, to: str = "2.12") -> str:
    result = migrate_source(code, to=to, from_=FROM, select=select, unsafe_fixes=True)
    assert result.error is None
    assert result.edits, "the legacy snippet must be migrated"
    again = migrate_source(result.code, to=to, from_=FROM, select=select, unsafe_fixes=True)
    assert again.code == result.code and not again.edits, "a second run must change nothing"
    return result.code


def run_all_warnings(code: str, **globals_: Any) -> tuple[dict[str, Any], list[str]]:
    """Like run_code, but returns every warning, wherever torch attributes it (``sdp_kernel`` is a context manager
    whose warning points into contextlib, ``weight_norm``'s into torch): ``"Category: message"``."""
    namespace: dict[str, Any] = dict(globals_)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<all-warnings>", "exec"), namespace)  # noqa: S102 - our own test code
    return namespace, [f"{w.category.__name__}: {w.message}" for w in caught]


def deprecations_anywhere(found: list[str]) -> list[str]:
    return [w for w in found if w.startswith(("DeprecationWarning", "FutureWarning"))]


def _same(a: Any, b: Any) -> None:
    torch.testing.assert_close(a, b, rtol=0, atol=0)


# --- amp-namespace ------------------------------------------------------------------------------------------

AMP = textwrap.dedent(
    """
    import torch
    from torch.cuda.amp import custom_bwd, custom_fwd
    from torch.cuda import amp

    class Double(torch.autograd.Function):
        @staticmethod
        @custom_fwd(cast_inputs=torch.float32)
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @custom_bwd
        def backward(ctx, g):
            return g * 2

    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 4)
    x = torch.randn(3, 4, requires_grad=True)
    with torch.cpu.amp.autocast(True, torch.bfloat16):
        y = lin(x)
    with amp.autocast(enabled=False):
        z = Double.apply(x)
    z.sum().backward()
    scaler = torch.cuda.amp.GradScaler(2.0**8, enabled=False)
    cpu_scaler = torch.cpu.amp.GradScaler(2.0**4)
    dtype, grad, scale = y.dtype, x.grad, cpu_scaler.get_scale()
    enabled = scaler.is_enabled()
    """
)


def test_amp_namespace_before_warns_after_is_clean_and_equal() -> None:
    before = run_code(AMP)
    assert any("torch.cpu.amp.autocast" in d for d in before.deprecations)
    assert any("torch.cuda.amp.GradScaler" in d for d in before.deprecations)
    assert any("custom_fwd" in d for d in before.deprecations)
    code = migrate(AMP, select=["amp-namespace"])
    assert "torch.cuda.amp" not in code and "torch.cpu.amp" not in code and "from torch.cuda import amp" not in code
    assert 'torch.amp.autocast("cpu", enabled=True, dtype=torch.bfloat16)' in code
    after = run_code(code)
    assert after.deprecations == []
    assert before.namespace["dtype"] == after.namespace["dtype"] == torch.bfloat16  # autocast really was on
    assert before.namespace["scale"] == after.namespace["scale"] == 2.0**4
    assert before.namespace["enabled"] is after.namespace["enabled"] is False
    _same(before.namespace["grad"], after.namespace["grad"])
    _same(after.namespace["grad"], torch.full((3, 4), 2.0))  # custom_fwd/custom_bwd still wrap the Function


def test_amp_positional_autocast_would_be_a_value_error() -> None:
    """Why positional arguments must become keywords: the new first parameter is the device."""
    with pytest.raises(ValueError, match="device_type"):
        torch.amp.autocast(True)


# --- torch-load-weights-only --------------------------------------------------------------------------------

LOAD = textwrap.dedent(
    """
    import torch

    torch.manual_seed(0)
    source = torch.nn.Linear(3, 2)
    torch.save(source.state_dict(), PATH)
    target = torch.nn.Linear(3, 2)
    target.load_state_dict(torch.load(PATH))

    def restore(model, path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state)
        return model

    other = restore(torch.nn.Linear(3, 2), PATH)
    """
)


def test_torch_load_weights_only_runs_and_loads_the_same(tmp_path: Path) -> None:
    path = str(tmp_path / "w.pt")
    before = run_code(LOAD, PATH=path)
    code = migrate(LOAD, select=["torch-load-weights-only"])
    assert code.count("weights_only=True") == 2
    after = run_code(code, PATH=path)
    assert after.deprecations == []
    for name in ("target", "other"):
        for key, value in before.namespace[name].state_dict().items():
            _same(value, after.namespace[name].state_dict()[key])
            _same(value, before.namespace["source"].state_dict()[key])


class _Config:
    epochs = 3


def test_a_full_checkpoint_is_why_other_loads_are_findings(tmp_path: Path) -> None:
    """A pickle with a custom object fails under the 2.6 default: the pass must not pretend otherwise."""
    path = tmp_path / "ckpt.pt"
    torch.save({"model": torch.nn.Linear(2, 2).state_dict(), "config": _Config()}, path)
    code = "import torch\n\nckpt = torch.load(PATH)\nmodel.load_state_dict(ckpt['model'])\n"
    result = migrate_source(code, to="2.12", from_=FROM, select=["torch-load-weights-only"], unsafe_fixes=True)
    assert result.code == code and len(result.findings) == 1
    assert "weights_only=False" in result.findings[0].message
    with pytest.raises(Exception, match="weights_only"):
        run_code(code, PATH=str(path), model=torch.nn.Linear(2, 2))


# --- dtensor-public / fsdp2-public --------------------------------------------------------------------------

DIST = textwrap.dedent(
    """
    def names():
        from torch.distributed._tensor import DTensor, Shard, distribute_tensor
        from torch.distributed._tensor.placement_types import DTensorSpec, Replicate
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard
        from torch.distributed._composable.fsdp.fully_shard import FSDPModule
        return DTensor, Shard, distribute_tensor, DTensorSpec, Replicate, MixedPrecisionPolicy, fully_shard, FSDPModule

    objects = names()
    """
)


def test_dtensor_and_fsdp_paths_name_the_same_objects() -> None:
    if not torch.distributed.is_available():  # pragma: no cover - CPU wheels ship torch.distributed
        pytest.skip("torch.distributed not available")
    before = run_code(DIST)
    code = migrate(DIST, select=["dtensor-public", "fsdp2-public"])
    assert "._tensor" not in code and "_composable" not in code
    after = run_code(code)
    assert after.deprecations == []
    assert all(a is b for a, b in zip(before.namespace["objects"], after.namespace["objects"], strict=True))


# --- sdp-kernel ---------------------------------------------------------------------------------------------

SDP = textwrap.dedent(
    """
    import torch
    import torch.nn.functional as F

    def flags():
        b = torch.backends.cuda
        return (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled())

    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 4, 8) for _ in range(3))
    with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False):
        inside = flags()
        out = F.scaled_dot_product_attention(q, k, v)
    with torch.backends.cuda.sdp_kernel(False, True, False, False):
        inside2 = flags()
    """
)


def test_sdp_kernel_sets_the_same_backends() -> None:
    before = run_code(SDP)
    assert any("sdp_kernel" in d for d in deprecations_anywhere(run_all_warnings(SDP)[1]))
    code = migrate(SDP, select=["sdp-kernel"])
    assert "sdp_kernel" not in code
    after = run_code(code)
    assert after.deprecations == [] and deprecations_anywhere(run_all_warnings(code)[1]) == []
    assert before.namespace["inside"] == after.namespace["inside"] == (False, False, True, True)
    assert before.namespace["inside2"] == after.namespace["inside2"] == (False, False, True, False)
    _same(before.namespace["out"], after.namespace["out"])


# --- impl-abstract ------------------------------------------------------------------------------------------

IMPL = textwrap.dedent(
    """
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    @torch.library.custom_op("NS::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @torch.library.impl_abstract("NS::twice")
    def _(x):
        return torch.empty_like(x)

    with FakeTensorMode():
        fake = torch.ops.NS.twice(torch.empty(5, 3))
    shape = tuple(fake.shape)
    real = twice(torch.ones(2))
    """
)


def _fresh_namespace(code: str) -> str:
    return code.replace("NS", f"catalog_a_{next(_ops)}")


def test_impl_abstract_registers_the_same_fake() -> None:
    before = run_code(_fresh_namespace(IMPL))
    assert any("impl_abstract" in d for d in before.deprecations)
    code = migrate(IMPL, select=["impl-abstract"])
    assert "register_fake" in code and "impl_abstract" not in code
    after = run_code(_fresh_namespace(code))
    assert after.deprecations == []
    assert before.namespace["shape"] == after.namespace["shape"] == (5, 3)
    _same(before.namespace["real"], after.namespace["real"])


# --- assert-allclose ----------------------------------------------------------------------------------------

ALLCLOSE = textwrap.dedent(
    """
    import torch
    from torch.testing import assert_allclose

    def outcome(check):
        try:
            check()
        except (AssertionError, ValueError, TypeError) as exc:
            return type(exc).__name__
        return "ok"

    a = torch.tensor([1.0, float("nan"), 3.0])
    b = torch.tensor([1.001, float("nan"), 3.0], dtype=torch.float64)
    results = [
        outcome(lambda: assert_allclose(a, b, 1e-2, 1e-8)),
        outcome(lambda: assert_allclose(a, b, 1e-4, 1e-8)),
        outcome(lambda: torch.testing.assert_allclose(torch.ones(2, dtype=torch.int64), torch.ones(2))),
        outcome(lambda: assert_allclose(torch.tensor([0.5, 0.5]), [0.5, 0.5])),
        outcome(lambda: assert_allclose(a, b, rtol=1e-2, atol=1e-8, equal_nan=False)),
    ]
    """
)


def test_assert_allclose_keeps_the_verdicts() -> None:
    before = run_code(ALLCLOSE)
    assert any("assert_allclose" in d for d in before.deprecations)
    code = migrate(ALLCLOSE, select=["assert-allclose"])
    assert "assert_allclose" not in code and "torch.as_tensor([0.5, 0.5])" in code
    after = run_code(code)
    assert after.deprecations == []
    assert before.namespace["results"] == after.namespace["results"] == ["ok", "AssertionError", "ok", "ok", "AssertionError"]


def test_assert_allclose_without_tolerances_is_tighter_as_documented() -> None:
    """The review note is true: a float32 difference of 1e-5 relative passed before and fails after."""
    code = "import torch\n\ntorch.testing.assert_allclose(torch.tensor([100.0]), torch.tensor([100.001]))\n"
    run_code(code)  # passes: assert_allclose's own float32 default rtol is 1e-4
    migrated = migrate(code, select=["assert-allclose"])
    with pytest.raises(AssertionError):
        run_code(migrated)


# --- functorch ----------------------------------------------------------------------------------------------

FUNCTORCH = textwrap.dedent(
    """
    import torch
    from functorch import grad, jacrev, vmap
    from torch.nn.utils.stateless import functional_call

    torch.manual_seed(0)
    x = torch.randn(3, 4)
    per_row = vmap(grad(lambda r: (r ** 3).sum()))(x)
    jac = jacrev(torch.sin)(x[0])
    lin = torch.nn.Linear(4, 2)
    zeros = {name: torch.zeros_like(p) for name, p in lin.named_parameters()}
    out = functional_call(lin, parameters_and_buffers=zeros, args=(x,))
    """
)


def test_functorch_to_torch_func() -> None:
    before = run_code(FUNCTORCH)
    assert any("functorch.vmap" in d for d in before.deprecations)
    assert any("functional_call" in d for d in before.deprecations)
    code = migrate(FUNCTORCH, select=["functorch"])
    assert "functorch" not in code and "stateless" not in code
    after = run_code(code)
    assert after.deprecations == []
    for name in ("per_row", "jac", "out"):
        _same(before.namespace[name], after.namespace[name])
    _same(after.namespace["out"], torch.zeros(3, 2))


# --- checkpoint-reentrant -----------------------------------------------------------------------------------

CHECKPOINT = textwrap.dedent(
    """
    import torch
    from torch.utils.checkpoint import checkpoint as ckpt, checkpoint_sequential

    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 4)
    seq = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x = torch.randn(2, 4, requires_grad=True)
    y = ckpt(lin, x).sum() + checkpoint_sequential(seq, 2, x).sum()
    y.backward()
    grad = x.grad
    """
)


def test_checkpoint_use_reentrant_true_is_the_old_behaviour() -> None:
    before, before_warnings = run_all_warnings(CHECKPOINT)
    assert any("torch.utils.checkpoint: the use_reentrant" in w for w in before_warnings)
    assert any("checkpoint_sequential: the use_reentrant" in w for w in before_warnings)
    code = migrate(CHECKPOINT, select=["checkpoint-reentrant"])
    assert code.count("use_reentrant=True") == 2
    after, after_warnings = run_all_warnings(code)
    assert not any("use_reentrant" in w for w in after_warnings)
    assert deprecations_anywhere(after_warnings) == []
    _same(before["y"], after["y"])
    _same(before["grad"], after["grad"])


# --- lr-verbose ---------------------------------------------------------------------------------------------

LR = textwrap.dedent(
    """
    import torch
    from torch.optim import lr_scheduler

    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5, verbose=False)
    lrs = []
    for _ in range(3):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    plateau = lr_scheduler.ReduceLROnPlateau(opt, patience=0, verbose=False)
    """
)


def test_lr_verbose_is_a_type_error_and_dropping_it_runs() -> None:
    with pytest.raises(TypeError, match="verbose"):
        run_code(LR)
    code = migrate(LR, select=["lr-verbose"])
    assert "verbose" not in code
    after = run_code(code)
    assert after.deprecations == []
    assert after.namespace["lrs"] == [0.5, 0.25, 0.125]


# --- weight-norm (opt-in) -----------------------------------------------------------------------------------

WEIGHT_NORM = textwrap.dedent(
    """
    import torch
    from torch.nn.utils import remove_weight_norm, weight_norm

    torch.manual_seed(0)
    lin = weight_norm(torch.nn.Linear(3, 2))
    x = torch.randn(4, 3)
    out = lin(x)
    keys = sorted(lin.state_dict())
    remove_weight_norm(lin)
    plain_keys = sorted(lin.state_dict())
    out_after_removal = lin(x)
    """
)


def test_weight_norm_is_opt_in_and_changes_only_the_keys() -> None:
    assert migrate_source(WEIGHT_NORM, to="2.12", from_=FROM, unsafe_fixes=True).code == WEIGHT_NORM  # not selected: untouched
    before = run_code(WEIGHT_NORM)
    assert any("weight_norm" in d for d in deprecations_anywhere(run_all_warnings(WEIGHT_NORM)[1]))
    code = migrate(WEIGHT_NORM, select=["weight-norm"])
    after = run_code(code)
    assert after.deprecations == [] and deprecations_anywhere(run_all_warnings(code)[1]) == []
    _same(before.namespace["out"], after.namespace["out"])
    _same(before.namespace["out_after_removal"], after.namespace["out_after_removal"])
    assert before.namespace["plain_keys"] == after.namespace["plain_keys"] == ["bias", "weight"]
    assert before.namespace["keys"] == ["bias", "weight_g", "weight_v"]
    assert after.namespace["keys"] == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]


# --- the legacy example file --------------------------------------------------------------------------------

TRAINING = Path(__file__).resolve().parents[2] / "examples" / "legacy_project" / "src" / "legacy_app" / "training.py"


def _exercise(ran: Ran, tmp_path: Path) -> dict[str, Any]:
    ns = ran.namespace
    torch.manual_seed(0)
    model = ns["Net"]()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = ns["make_scheduler"](opt)
    scaler = ns["make_scaler"](False)
    x, y = torch.randn(4, 8, requires_grad=True), torch.randn(4, 1)  # reentrant checkpoint needs an input with grad
    losses = []
    for _ in range(2):
        losses.append(ns["train_step"](model, opt, scaler, x, y))
        sched.step()
    path = tmp_path / "net.pt"
    torch.save(model.state_dict(), path)
    restored = ns["restore"](ns["Net"](), str(path))
    return {"losses": losses, "lr": sched.get_last_lr(), "state": restored.state_dict()}


def test_legacy_training_file_migrates_runs_clean_and_matches(tmp_path: Path) -> None:
    legacy = TRAINING.read_text(encoding="utf-8")
    result = migrate_source(legacy, to="2.12", from_="2.0", path=str(TRAINING), unsafe_fixes=True)
    assert result.error is None
    assert set(result.passes_applied) == {"checkpoint-reentrant", "amp-namespace", "torch-load-weights-only", "lr-verbose"}
    assert len(result.findings) == 2  # the full-checkpoint load and the functools.partial: reported, not guessed
    assert migrate_source(result.code, to="2.12", from_="2.0", unsafe_fixes=True).code == result.code
    with pytest.raises(TypeError, match="verbose"):  # the legacy file cannot even build its scheduler on 2.13
        _exercise(run_code(legacy), tmp_path)
    migrated = run_code(result.code)
    assert migrated.deprecations == []
    reference_code = legacy.replace(", verbose=False", "")  # the only change torch 2.13 forces
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = _exercise(run_code(reference_code), tmp_path)
    got = _exercise(migrated, tmp_path)
    _same(torch.stack(got["losses"]), torch.stack(reference["losses"]))
    assert got["lr"] == reference["lr"]
    for key, value in reference["state"].items():
        _same(got["state"][key], value)
