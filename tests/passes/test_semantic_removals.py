"""Catalog B passes on real torch 2.13: the old code warns or fails, the migrated code runs, warns nothing, and agrees.

Each test migrates a legacy snippet with the pass under test and runs both versions through ``run_code``. Linear
algebra deprecations are ``UserWarning``s raised once per process (``TORCH_WARN_ONCE``), so the tests switch
``torch.set_warn_always(True)`` on and look for "deprecated" in any warning the snippet triggered.
"""

from __future__ import annotations

import logging
import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.torchrun import run_code, torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def migrate(code: str, pass_id: str, to: str) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=[pass_id], unsafe_fixes=True)
    assert result.error is None
    assert result.edits, f"{pass_id} changed nothing"
    return result.code


def deprecation_warnings(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; return its namespace and every warning (any category) whose text says "deprecated"."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [f"{w.category.__name__}: {w.message}" for w in caught if "deprecat" in str(w.message).lower()]


def spd(n: int = 4, batch: tuple[int, ...] = ()) -> Any:
    g = torch.Generator().manual_seed(0)
    a = torch.randn(*batch, n, n, dtype=torch.float64, generator=g)
    return a @ a.mT + n * torch.eye(n, dtype=torch.float64)


# --- linalg-deprecated -----------------------------------------------------------------------------------------

LINALG_DEPRECATED = """
import torch
U = torch.cholesky(A, upper=True)
L = torch.cholesky(A)
Lb = torch.cholesky(Ab, False)
Q, R = torch.qr(M)
Qc, Rc = torch.qr(M, some=False)
Qv, Rv = torch.qr(M, flag)
LU, piv = torch.lu(A)
LUs, pivs = torch.lu(S)
LU2, piv2, info = torch.lu(S, pivot=True, get_infos=True)
X = torch.lu_solve(B, LU, piv)
T1 = torch.triangular_solve(B, Lt).solution
T2, _ = torch.triangular_solve(B, Ut, upper=True)
T3 = torch.triangular_solve(B, Lt, False, True)[0]
T4 = torch.triangular_solve(B, Ut, True, False, True).solution
T5 = torch.triangular_solve(B, Ut, upper=up, transpose=True).solution
P = torch.chain_matmul(M, A, A, M.mT)
O = torch.ger(v, w)
r1 = torch.range(0, 5)
r2 = torch.range(1, 10, 3)
r3 = torch.range(5, -5, -2)
r4 = torch.range(2, 7, dtype=torch.int32)
"""


def _linalg_inputs() -> dict[str, Any]:
    a = spd()
    lt = torch.linalg.cholesky(a)
    g = torch.Generator().manual_seed(1)
    return {
        "A": a,
        "Ab": spd(3, (2,)),
        "M": torch.randn(5, 4, dtype=torch.float64, generator=g),
        "flag": False,
        "S": torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64),  # singular: torch.lu did not raise
        "B": torch.randn(4, 3, dtype=torch.float64, generator=g),
        "Lt": lt,
        "Ut": lt.mT.contiguous(),
        "up": True,
        "v": torch.arange(3.0),
        "w": torch.arange(4.0),
    }


def test_linalg_deprecated_before_warns_after_is_identical() -> None:
    migrated = migrate(LINALG_DEPRECATED, "linalg-deprecated", "2.12")
    for old in (
        "torch.cholesky(",
        "torch.qr(",
        "torch.lu(",
        "torch.lu_solve(",
        "torch.triangular_solve(",
        "torch.chain_matmul(",
        "torch.ger(",
        "torch.range(",
    ):
        assert old not in migrated, old
    legacy = LINALG_DEPRECATED
    removed = ("U", "L", "Lb", "Q", "R", "Qc", "Rc", "Qv", "Rv")
    if torch.__version__ >= "2.14":  # torch.cholesky / torch.qr now raise: compare the rest (cholesky-qr-removed)
        with pytest.raises(RuntimeError, match="now removed"):
            deprecation_warnings(legacy, **_linalg_inputs())
        legacy = "\n".join(line for line in legacy.splitlines() if "torch.cholesky(" not in line and "torch.qr(" not in line)
    before, before_warnings = deprecation_warnings(legacy, **_linalg_inputs())
    after, after_warnings = deprecation_warnings(migrated, **_linalg_inputs())
    assert len(before_warnings) >= (7 if legacy is LINALG_DEPRECATED else 5)  # cholesky, qr, lu, lu_solve, …, range
    assert after_warnings == []
    for name in (
        "U",
        "L",
        "Lb",
        "Q",
        "R",
        "Qc",
        "Rc",
        "Qv",
        "Rv",
        "LU",
        "piv",
        "LUs",
        "pivs",
        "LU2",
        "piv2",
        "info",
        "X",
        "T1",
        "T2",
        "T3",
        "T4",
        "T5",
        "P",
        "O",
        "r1",
        "r2",
        "r3",
        "r4",
    ):
        if name not in before:
            assert name in removed
            continue
        old, new = before[name], after[name]
        assert old.dtype == new.dtype and old.shape == new.shape, name
        assert torch.equal(old, new), name


# --- linalg-removed --------------------------------------------------------------------------------------------

LINALG_REMOVED = """
import torch
X = torch.solve(B, A).solution
Y, _ = torch.solve(B, A)
e = torch.symeig(N).eigenvalues
w, V = torch.symeig(N, eigenvectors=True)
l, _ = torch.symeig(N, upper=False)
r = torch.matrix_rank(D)
h = torch.matrix_rank(D, symmetric=True)
t = torch.matrix_rank(D, 0.5)
"""


def _removed_inputs() -> dict[str, Any]:
    g = torch.Generator().manual_seed(2)
    n = torch.randn(4, 4, dtype=torch.float64, generator=g)  # not symmetric: which triangle is read matters
    d = torch.diag(torch.tensor([3.0, 1.0, 0.25, 1e-20], dtype=torch.float64))
    return {"A": spd(), "B": torch.randn(4, 2, dtype=torch.float64, generator=g), "N": n, "D": d}


def test_linalg_removed_before_fails_after_matches_the_old_definitions() -> None:
    with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
        run_code(textwrap.dedent(LINALG_REMOVED), **_removed_inputs())
    migrated = migrate(LINALG_REMOVED, "linalg-removed", "2.12")
    ns, found = deprecation_warnings(migrated, **_removed_inputs())
    assert found == []
    inputs = _removed_inputs()
    a, b, n, d = inputs["A"], inputs["B"], inputs["N"], inputs["D"]
    # torch.solve(B, A) solved A X = B
    torch.testing.assert_close(a @ ns["X"], b)
    assert torch.equal(ns["X"], ns["Y"])
    # symeig's default upper=True read the upper triangle; upper=False the lower one
    upper_sym = torch.triu(n) + torch.triu(n, 1).mT
    lower_sym = torch.tril(n) + torch.tril(n, -1).mT
    torch.testing.assert_close(ns["e"], torch.linalg.eigvalsh(upper_sym))
    torch.testing.assert_close(ns["w"], torch.linalg.eigvalsh(upper_sym))
    torch.testing.assert_close(upper_sym @ ns["V"], ns["V"] * ns["w"])
    torch.testing.assert_close(ns["l"], torch.linalg.eigvalsh(lower_sym))
    # matrix_rank: default tolerance sigma_max * max(m, n) * eps (drops 1e-20); tol=0.5 counts sigma > 0.5
    sv = torch.linalg.svdvals(d)
    old_default_tol = sv.max() * max(d.shape) * torch.finfo(d.dtype).eps
    assert int(ns["r"]) == int((sv > old_default_tol).sum()) == 3
    assert int(ns["h"]) == 3 and int(ns["t"]) == int((sv > 0.5).sum()) == 2


# --- dlpack-names, pin-memory-device -----------------------------------------------------------------------------


def test_dlpack_names() -> None:
    legacy = "from torch.utils.dlpack import DLDeviceType\n\nd1 = DLDeviceType.kDLGPU\nd2 = DLDeviceType.kDLCPUPinned\n"
    with pytest.raises(AttributeError, match="kDLGPU"):
        run_code(legacy)
    ran = run_code(migrate(legacy, "dlpack-names", "2.12"))
    assert ran.deprecations == []
    assert (int(ran.namespace["d1"]), int(ran.namespace["d2"])) == (2, 3)  # DLPack's kDLGPU / kDLCPUPinned codes


def test_pin_memory_device_dropped() -> None:
    legacy = (
        "from torch.utils.data import DataLoader\n\n"
        "batches = list(DataLoader(list(range(6)), batch_size=4, pin_memory=True, pin_memory_device='cuda'))\n"
    )
    before, before_warnings = deprecation_warnings(legacy)
    after, after_warnings = deprecation_warnings(migrate(legacy, "pin-memory-device", "2.12"))
    assert any("pin_memory_device is deprecated" in w for w in before_warnings)
    assert after_warnings == []
    assert [b.tolist() for b in before["batches"]] == [b.tolist() for b in after["batches"]]


# --- export: capture-pre-autograd, export-strict-default -----------------------------------------------------------

MODEL = """
import torch

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) + 1

torch.manual_seed(0)
model = Net()
x = torch.randn(2, 4)
expected = model(x)
"""


def test_capture_pre_autograd_graph() -> None:
    legacy = (
        MODEL
        + "from torch._export import capture_pre_autograd_graph\ngm = capture_pre_autograd_graph(model, (x,))\nout = gm(x)\n"
    )
    with pytest.raises(ImportError, match="capture_pre_autograd_graph"):
        run_code(legacy)
    migrated = migrate(legacy, "capture-pre-autograd", "2.12")
    ran = run_code(migrated)
    assert ran.deprecations == []
    torch.testing.assert_close(ran.namespace["out"], ran.namespace["expected"])


def test_export_strict_default_keeps_strict_tracing() -> None:
    legacy = MODEL + "ep = torch.export.export(model, (x,))\nout = ep.module()(x)\n"
    migrated = migrate(legacy, "export-strict-default", "2.12")
    assert "torch.export.export(model, (x,), strict=True)" in migrated
    ran = run_code(migrated)
    assert ran.deprecations == []
    torch.testing.assert_close(ran.namespace["out"], ran.namespace["expected"])


# --- fx internals -----------------------------------------------------------------------------------------------


def test_fx_definitely() -> None:
    legacy = (
        "from torch.fx.experimental.symbolic_shapes import definitely_false, definitely_true\n"
        "a = definitely_true(3 > 2)\nb = definitely_false(3 > 2)\nc = definitely_false(1 > 2) == True\n"
    )
    with pytest.raises(ImportError, match="definitely_"):
        run_code(legacy)
    ran = run_code(migrate(legacy, "fx-definitely", "2.12"))
    assert ran.deprecations == []
    assert (ran.namespace["a"], ran.namespace["b"], ran.namespace["c"]) == (True, False, True)


def test_fx_is_fx_tracing(caplog: pytest.LogCaptureFixture) -> None:
    legacy = textwrap.dedent(
        """
        import torch
        from torch.fx._symbolic_trace import is_fx_tracing

        class M(torch.nn.Module):
            def forward(self, x):
                if is_fx_tracing():
                    return x + 1
                return x - 1

        eager = M()(torch.zeros(1))
        traced = torch.fx.symbolic_trace(M())(torch.zeros(1))
        """
    )
    migrated = migrate(legacy, "fx-is-fx-tracing", "2.12")
    with caplog.at_level(logging.WARNING):
        ran = run_code(migrated)
    assert "is_fx_tracing will return true" not in caplog.text
    assert ran.deprecations == []
    assert ran.namespace["eager"].item() == -1.0 and ran.namespace["traced"].item() == 1.0


def test_check_is_size() -> None:
    legacy = "import torch\n\nn = 3\ntorch._check_is_size(n)\nok = True\n"
    assert any("_check_is_size" in d for d in run_code(legacy).deprecations)
    migrated = migrate(legacy, "check-is-size", "2.12")
    ran = run_code(migrated)
    assert ran.deprecations == [] and ran.namespace["ok"]
    with pytest.raises(RuntimeError):
        run_code(migrated.replace("n = 3", "n = -1"))


# --- findings whose premise is checked on torch ------------------------------------------------------------------


def test_notimplemented_premise() -> None:
    """2.13 raises NotImplementedError for an unsupported dtype, and it is a RuntimeError subclass."""
    with pytest.raises(NotImplementedError) as info:
        torch.nn.Hardshrink()(torch.randint(0, 5, (10,)))
    assert isinstance(info.value, RuntimeError)


def test_notimplemented_non_operators_exist_and_dispatch_no_op() -> None:
    """The torch functions the pass does not count as operators are torch 2.13 functions; a grad-mode context
    manager dispatches nothing on integer tensors (no NotImplementedError to catch)."""
    from torchmigrate.codemods.v2_8.notimplemented_error_type import NOT_OPERATORS, is_operator

    assert all(callable(getattr(torch, name.split(".")[1])) for name in NOT_OPERATORS)
    assert not is_operator("torch.no_grad") and is_operator("torch.erfinv")
    with torch.no_grad():
        torch.randint(0, 5, (10,))


def test_autograd_view_inplace_premise() -> None:
    code = textwrap.dedent(
        """
        import torch

        class Func(torch.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                inp.add_(1)
                ctx.mark_dirty(inp)
                return inp

            @staticmethod
            def backward(ctx, gO):
                return gO

        a = torch.tensor([1.0, 2.0], requires_grad=True)
        Func.apply(a.view_as(a))
        """
    )
    assert len(migrate_source(code, to="2.12", select=["autograd-view-inplace"], unsafe_fixes=True).findings) == 1
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        run_code(code)


def test_ao_quantization_still_present_but_deprecated() -> None:
    code = "import torch\nfrom torch.ao.quantization import quantize_dynamic\nq = quantize_dynamic(torch.nn.Sequential(torch.nn.Linear(2, 2)))\n"
    assert len(migrate_source(code, to="2.12", select=["ao-quantization"], unsafe_fixes=True).findings) == 1
    assert any("torch.ao.quantization is deprecated" in d for d in run_code(code).deprecations)


def test_pt2e_modules_are_gone() -> None:
    for module in ("quantize_pt2e", "pt2e", "quantizer"):
        with pytest.raises(ModuleNotFoundError):
            run_code(f"import torch.ao.quantization.{module}\n")
    pytest.importorskip("torchao")
    migrated = migrate("from torch.ao.quantization.quantize_pt2e import prepare_pt2e, convert_pt2e\n", "pt2e-quant", "2.12")
    assert run_code(migrated).deprecations == []


def test_onnx_signature_facts() -> None:
    """The options the onnx pass treats as TorchScript-only exist on torch 2.13's export; dynamo_export is gone."""
    import inspect

    from torchmigrate.codemods.v2_9.onnx_dynamo_default import TORCHSCRIPT_ONLY

    params = inspect.signature(torch.onnx.export).parameters
    assert params["dynamo"].default is True
    assert set(TORCHSCRIPT_ONLY) <= set(params)
    assert not hasattr(torch.onnx, "dynamo_export")
    pytest.importorskip("onnxscript")
    migrated = migrate(MODEL + "prog = torch.onnx.dynamo_export(model, x)\n", "onnx-dynamo-default", "2.12")
    assert run_code(migrated).deprecations == []
