"""Catalog B passes beyond their generated examples: chaining, the example project, guards, mixed files, engine fixes."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from torchmigrate import migrate_paths, migrate_source
from torchmigrate.core.registry import get_pass, select_passes
from torchmigrate.core.versions import OLDEST, parse_version
from torchmigrate.python.engine import trigger_regex
from torchmigrate.python.helpers import module_part

ROOT = Path(__file__).resolve().parents[2]

CATALOG_B = (
    "linalg-deprecated",
    "linalg-removed",
    "capture-pre-autograd",
    "ao-quantization",
    "autograd-view-inplace",
    "dlpack-names",
    "export-strict-default",
    "fx-definitely",
    "notimplemented-error-type",
    "fx-is-fx-tracing",
    "onnx-dynamo-default",
    "pin-memory-device",
    "check-is-size",
    "pt2e-quant",
)


def test_every_catalog_b_row_is_listed_up_to_2_12() -> None:
    listed = {p.id for p in select_passes(to=parse_version("2.12"), from_=OLDEST, select=[*CATALOG_B])}
    assert listed == set(CATALOG_B)
    defaults = {p.id for p in select_passes(to=parse_version("2.12"), from_=OLDEST)}
    assert set(CATALOG_B) - defaults == {"export-strict-default"}  # the only opt-in one
    assert get_pass("export-strict-default").opt_in


# --- engine: references to class members and module aliases ---------------------------------------------------


def test_module_part_stops_at_the_class() -> None:
    assert module_part("torch.utils.dlpack.DLDeviceType") == "torch.utils.dlpack"
    assert module_part("torch.fx.experimental.symbolic_shapes") == "torch.fx.experimental.symbolic_shapes"


@pytest.mark.parametrize(
    "code",
    [
        "import torch\n\nd = torch.utils.dlpack.DLDeviceType.kDLGPU\n",
        "import torch.utils.dlpack\n\nd = torch.utils.dlpack.DLDeviceType.kDLGPU\n",
        "from torch.utils import dlpack\n\nd = dlpack.DLDeviceType.kDLGPU\n",
    ],
)
def test_enum_member_rename_never_imports_the_class_as_a_module(code: str) -> None:
    # --to 2.9: the 2.8.0 wheel still names the members kDLGPU / kDLCPUPinned (the pass's since is 2.9)
    result = migrate_source(code, to="2.9", select=["dlpack-names"])
    assert "DLDeviceType.kDLCUDA" in result.code
    assert "import torch.utils.dlpack.DLDeviceType" not in result.code
    assert result.code.splitlines()[0] == code.splitlines()[0]


# --- export passes chain without double edits ------------------------------------------------------------------

INFERENCE = "import torch\n\nep = torch.export.export_for_inference(model, (x,))\nep2 = torch.export.export(model, (x,))\n"


def test_strict_default_after_export_for_inference_adds_strict_once() -> None:
    both = ["export-for-inference", "export-strict-default"]
    at_2_8 = migrate_source(INFERENCE, to="2.8", select=both, unsafe_fixes=True).code
    assert at_2_8.count("strict=True") == 2
    assert "export_for_training(model, (x,), strict=True).run_decompositions()" in at_2_8
    assert "torch.export.export(model, (x,), strict=True)" in at_2_8
    at_2_12 = migrate_source(INFERENCE, to="2.12", select=[*both, "export-for-training"], unsafe_fixes=True).code
    assert at_2_12 == (
        "import torch\n\nep = torch.export.export(model, (x,), strict=True).run_decompositions()\n"
        "ep2 = torch.export.export(model, (x,), strict=True)\n"
    )
    again = migrate_source(at_2_12, to="2.12", select=[*both, "export-for-training"], unsafe_fixes=True)
    assert again.code == at_2_12 and not again.edits


def test_strict_default_is_opt_in_so_current_export_calls_stay() -> None:
    code = "import torch\n\nep = torch.export.export(model, (x,))\n"
    result = migrate_source(code, to="2.12", from_="2.7", unsafe_fixes=True)
    assert result.code == code and not result.edits


def test_capture_pre_autograd_then_strict_default() -> None:
    code = "from torch._export import capture_pre_autograd_graph\n\ngm = capture_pre_autograd_graph(m, (x,))\n"
    default = migrate_source(code, to="2.12", unsafe_fixes=True).code
    assert default == "from torch.export import export\n\ngm = export(m, (x,)).module()\n"
    strict = migrate_source(code, to="2.12", select=["capture-pre-autograd", "export-strict-default"], unsafe_fixes=True).code
    assert strict == "from torch.export import export\n\ngm = export(m, (x,), strict=True).module()\n"


def test_example_project_still_migrates_as_intended() -> None:
    report = migrate_paths([ROOT / "examples" / "legacy_project"], to="2.12", write=False, unsafe_fixes=True)
    changed = {Path(r.path).name: r for r in report.changed}
    assert "modern.py" not in changed  # current code stays byte-for-byte: export-strict-default is opt-in
    assert not set(CATALOG_B) & {p for r in report.changed for p in r.passes_applied}  # nothing of B applies there
    new = changed["export_model.py"].code
    assert "torch.export.export(model, (example,), decomp_table" not in new
    assert new.count("strict=True") == 2  # only from export-for-inference's rewrite


# --- guards, suppressions, prefilter ---------------------------------------------------------------------------


def test_version_guarded_legacy_branches_are_left_alone() -> None:
    code = textwrap.dedent(
        """
        import torch

        if hasattr(torch, "linalg"):
            L = torch.linalg.cholesky(A)
        else:
            L = torch.cholesky(A)

        try:
            from torch._export import capture_pre_autograd_graph
        except ImportError:
            capture_pre_autograd_graph = None
        """
    )
    result = migrate_source(code, to="2.12", unsafe_fixes=True)
    assert result.code == code and not result.findings


def test_suppression_comment() -> None:
    code = "import torch\n\nL = torch.cholesky(A)  # migrate: ignore[linalg-deprecated]\nQ, R = torch.qr(A)\n"
    result = migrate_source(code, to="2.12", select=["linalg-deprecated"], unsafe_fixes=True)
    assert "L = torch.cholesky(A)  # migrate: ignore" in result.code
    assert "torch.linalg.qr(A)" in result.code


def test_linalg_prefilter_skips_builtin_range_and_common_words() -> None:
    regex = trigger_regex([get_pass("linalg-deprecated")])
    for text in ("for i in range(3):\n    value = larger(i)\n", "logger.info(sqrt(x))\n", "x = list(range(10))\n"):
        assert regex.search(text) is None, text
    for text in ("torch.range(0, 5)", "th.lu(A)", "from torch import ger\n", "from torch import (\n    lu,\n)\n"):
        assert regex.search(text) is not None, text


# --- edge cases of individual passes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "pass_id", "findings"),
    [
        ("import torch\n\ne, V = torch.symeig(A)\n", "linalg-removed", 1),  # eigenvectors=False: V was empty
        ("import torch\n\nr = torch.matrix_rank(A, tol=None)\n", "linalg-removed", 0),
        ("import torch\n\nP = torch.chain_matmul(*mats)\n", "linalg-deprecated", 1),
        ("import torch\n\nX = torch.triangular_solve(B, A, transpose=t).solution\n", "linalg-deprecated", 1),
        ("import torch\n\ntorch.onnx.export(m, args, f, dynamic_axes=axes, **kw)\n", "onnx-dynamo-default", 1),
        ("import torch\n\nprog = torch.onnx.dynamo_export(m, *inputs)\n", "onnx-dynamo-default", 1),
    ],
)
def test_unmappable_forms_are_findings(code: str, pass_id: str, findings: int) -> None:
    result = migrate_source(code, to="2.12", select=[pass_id], unsafe_fixes=True)
    assert len(result.findings) == findings
    if findings:
        assert result.code == code


def test_rewrites_that_need_care_with_precedence() -> None:
    code = (
        "from torch.fx.experimental.symbolic_shapes import definitely_false\n\n"
        "a = not definitely_false(x)\nb = [definitely_false(y) + 1]\n"
    )
    new = migrate_source(code, to="2.12", select=["fx-definitely"], unsafe_fixes=True).code
    assert "a = not not guard_or_true(x)" in new and "b = [(not guard_or_true(y)) + 1]" in new
    cst.parse_module(new)
    tri = migrate_source("import torch\n\nX = torch.triangular_solve(B, A + D, upper=u, transpose=True)[0]\n", to="2.12", unsafe_fixes=True)
    assert "torch.linalg.solve_triangular((A + D).mT, B, upper=not u)" in tri.code


# --- a realistic mixed file ------------------------------------------------------------------------------------

MIXED = textwrap.dedent(
    """
    import torch as th
    from torch.utils.data import DataLoader
    from torch.utils.dlpack import DLDeviceType
    from torch.fx._symbolic_trace import is_fx_tracing


    class Factor:
        def cholesky(self, x):  # a look-alike method
            return x + 0


    def build(A, B, ds):
        L = th.cholesky(A)
        X = th.triangular_solve(B, L, upper=False).solution
        P = th.chain_matmul(A, th.ger(B[:, 0], B[:, 1]), A)
        Q, R = th.qr(A)
        loader = DataLoader(ds, batch_size=2, pin_memory_device="cuda")
        kind = DLDeviceType.kDLGPU
        r = th.range(0, 3)
        s = th.solve(B, A).solution
        th._check_is_size(A.shape[0])
        return L, X, P, Q, R, [b for b in loader], kind, r, s, Factor().cholesky(A), is_fx_tracing()


    A = th.eye(3, dtype=th.float64) * 4 + 1
    B = th.arange(6, dtype=th.float64).reshape(3, 2)
    out = build(A, B, list(range(4)))
    """
)


def test_mixed_file_migrates_in_one_run_and_runs_clean_on_2_13() -> None:
    torch = pytest.importorskip("torch")
    result = migrate_source(MIXED, to="2.12", unsafe_fixes=True)
    assert result.error is None
    assert result.findings == []
    assert {
        "linalg-deprecated",
        "linalg-removed",
        "dlpack-names",
        "fx-is-fx-tracing",
        "pin-memory-device",
        "check-is-size",
    } <= set(result.passes_applied)
    assert "Factor().cholesky(A)" in result.code
    second = migrate_source(result.code, to="2.12", unsafe_fixes=True)
    assert second.code == result.code and not second.edits
    ns: dict[str, Any] = {}
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(result.code, "<migrated>", "exec"), ns)  # noqa: S102 - test code we wrote ourselves
    finally:
        torch.set_warn_always(before)
    assert [str(w.message) for w in caught if "deprecat" in str(w.message).lower()] == []
    A, B = ns["A"], ns["B"]
    L, X, P, Q, R, batches, kind, r, s, same, tracing = ns["out"]
    assert torch.equal(L, torch.linalg.cholesky(A))
    assert torch.equal(X, torch.linalg.solve_triangular(L, B, upper=False))
    assert torch.equal(P, torch.linalg.multi_dot([A, torch.outer(B[:, 0], B[:, 1]), A]))
    torch.testing.assert_close(Q @ R, A)
    assert [b.tolist() for b in batches] == [[0, 1], [2, 3]]
    assert int(kind) == 2 and r.tolist() == [0.0, 1.0, 2.0, 3.0] and r.dtype == torch.get_default_dtype()
    torch.testing.assert_close(A @ s, B)
    assert torch.equal(same, A) and tracing is False
