"""The 2.14 / 2.15 passes (and the catalog-gap passes that came with them) on real torch.

CI runs these on torch 2.13.0: the migrated code runs there, warns no deprecation and gives the old code's results,
where the emitted form exists on 2.13 (``since``). The same tests run on torch 2.14.1 (README, "Semantic tests on a
newer torch"): there the old code fails or warns the way the catalog says, which is what each pass is for. Every test
branches on the installed release, so neither run can pass by skipping its point.
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.dist_group import one_rank_group
from support.torchrun import run_code, torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()
RELEASE = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
ON_2_14 = RELEASE >= (2, 14)


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # the linalg deprecations are TORCH_WARN_ONCE
    yield
    torch.set_warn_always(before)


def migrate(code: str, pass_id: str, to: str) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=[pass_id])
    assert result.error is None
    assert result.edits, f"{pass_id} changed nothing"
    return result.code


def warnings_of(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every deprecation-like warning it caused (any file, any category)."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    text = [f"{w.category.__name__}: {w.message}" for w in caught]
    return namespace, [t for t in text if "deprecat" in t.lower() or t.startswith(("FutureWarning", "DeprecationWarning"))]


# --- cholesky-qr-removed (2.14) -----------------------------------------------------------------------------------

CHOLESKY_QR = """
import torch
g = torch.Generator().manual_seed(0)
A = torch.randn(2, 5, 4, dtype=torch.float64, generator=g)
S = A.mT @ A + 4 * torch.eye(4, dtype=torch.float64)
L = S.cholesky()
U = S.cholesky(upper=True)
Q, R = A.qr()
Qc, Rc = A.qr(some=False)
Lf = torch.cholesky(S)
Qf, Rf = torch.qr(A, False)
"""


def test_cholesky_qr_methods_migrate_to_identical_linalg_results() -> None:
    migrated = migrate(CHOLESKY_QR, "cholesky-qr-removed", "2.14")
    assert ".cholesky(" not in migrated.replace("linalg.cholesky(", "") and ".qr(" not in migrated.replace("linalg.qr(", "")
    after, found = warnings_of(migrated)
    assert found == []
    if ON_2_14:
        with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
            warnings_of(CHOLESKY_QR)
    else:
        before, old_warnings = warnings_of(CHOLESKY_QR)
        assert any("torch.cholesky is deprecated" in w for w in old_warnings)
        for name in ("L", "U", "Q", "R", "Qc", "Rc", "Lf", "Qf", "Rf"):
            assert torch.equal(before[name], after[name]), name
    s, a = after["S"], after["A"]
    torch.testing.assert_close(after["L"] @ after["L"].mT, s)
    torch.testing.assert_close(after["U"].mT @ after["U"], s)
    torch.testing.assert_close(after["Q"] @ after["R"], a)
    assert after["Q"].shape == (2, 5, 4) and after["Qc"].shape == after["Qf"].shape == (2, 5, 5)


# --- profiler-use-cuda (2.4, removed in 2.14) --------------------------------------------------------------------

USE_CUDA = """
import torch
x = torch.ones(8)
with torch.profiler.profile(use_cuda=False, record_shapes=True) as kineto:
    y = x + 1
with torch.autograd.profiler.profile(use_cuda=False) as legacy:
    z = x * 2
names = {e.key for e in kineto.key_averages()} | {e.key for e in legacy.key_averages()}
"""


def test_profiler_use_cuda_dropped() -> None:
    migrated = migrate(USE_CUDA, "profiler-use-cuda", "2.14")
    assert "use_cuda" not in migrated
    after, found = warnings_of(migrated)
    assert found == []
    assert {"aten::add", "aten::mul"} <= after["names"]
    if ON_2_14:
        with pytest.raises(TypeError, match="use_cuda"):
            warnings_of(USE_CUDA)
    else:
        before, old = warnings_of(USE_CUDA)
        assert any("use_cuda" in w for w in old)
        assert before["names"] == after["names"]


def test_autograd_profiler_use_cuda_true_is_use_device_cuda() -> None:
    code = "import torch\nprof = torch.autograd.profiler.profile(use_cuda=flag)\n"
    migrated = migrate(code, "profiler-use-cuda", "2.14")
    assert 'use_device="cuda" if flag else None' in migrated
    for flag in (True, False):
        after, found = warnings_of(migrated, flag=flag)
        assert found == []
        expected = "cuda" if flag and torch.cuda.is_available() else None  # 2.13 drops "cuda" without a GPU, too
        assert after["prof"].use_device == expected
        if not ON_2_14:
            assert warnings_of(code, flag=flag)[0]["prof"].use_device == expected


# --- compile-shapes-spec (2.14) ------------------------------------------------------------------------------------

SHAPES_SPEC = """
import torch
compiled = torch.compile(lambda x: x * 2, shapes_spec={"x": {0: "batch"}}, backend="eager")
"""


def test_compile_shapes_spec_keyword() -> None:
    migrated = migrate(SHAPES_SPEC, "compile-shapes-spec", "2.14")
    assert "dynamic_shapes=" in migrated
    if ON_2_14:
        warnings_of(migrated)
        with pytest.raises(TypeError, match="shapes_spec"):
            warnings_of(SHAPES_SPEC)
    else:  # the new keyword does not exist before 2.14: hence since=2.14
        warnings_of(SHAPES_SPEC)
        with pytest.raises(TypeError, match="dynamic_shapes"):
            warnings_of(migrated)


# --- profiler-experimental-metrics (2.14), profiler-adjust-step (2.15) -----------------------------------------------

EXPERIMENTAL = """
import torch
config = torch.profiler._ExperimentalConfig([], True, True)
with torch.profiler.profile(experimental_config=config) as prof:
    y = torch.ones(4) + 1
names = {e.key for e in prof.key_averages()}
"""


def test_experimental_config_positional_arguments_become_keywords() -> None:
    migrated = migrate(EXPERIMENTAL, "profiler-experimental-metrics", "2.14")
    assert "_ExperimentalConfig(verbose=True)" in migrated
    after, found = warnings_of(migrated)
    assert found == [] and "aten::add" in after["names"]
    before, old = warnings_of(EXPERIMENTAL)
    if ON_2_14:
        assert any("profiler_metrics and profiler_measure_per_kernel are deprecated" in w for w in old)
    assert before["names"] == after["names"]


def test_experimental_config_adjust_profiler_step_dropped() -> None:
    code = "import torch\nconfig = torch.profiler._ExperimentalConfig(verbose=False, adjust_profiler_step=False)\n"
    migrated = migrate(code, "profiler-adjust-step", "2.15")
    assert "adjust_profiler_step" not in migrated
    warnings_of(migrated)  # builds on 2.13 and 2.14


# --- softmax-dim-int (2.14) --------------------------------------------------------------------------------------

SOFTMAX = """
import numpy as np
import torch
x = torch.arange(6.0).view(2, 3)
a = torch.nn.Softmax(dim=np.int64(1))(x)
b = torch.nn.LogSoftmax(np.argmax([0, 5]))(x)
"""


def test_numpy_dims_become_ints() -> None:
    pytest.importorskip("numpy")
    migrated = migrate(SOFTMAX, "softmax-dim-int", "2.14")
    after, found = warnings_of(migrated)
    assert found == []
    x = torch.arange(6.0).view(2, 3)
    assert torch.equal(after["a"], torch.softmax(x, 1)) and torch.equal(after["b"], torch.log_softmax(x, 1))
    if ON_2_14:
        with pytest.raises(TypeError, match="dim must be an int"):
            warnings_of(SOFTMAX)
    else:
        before, _ = warnings_of(SOFTMAX)
        assert torch.equal(before["a"], after["a"]) and torch.equal(before["b"], after["b"])


def test_a_bool_dim_never_worked() -> None:
    """Why softmax-dim-int reports `dim=True` instead of rewriting it: 2.13 failed at the first forward."""
    if ON_2_14:
        with pytest.raises(TypeError, match="dim must be an int"):
            torch.nn.Softmax(dim=True)
    else:
        with pytest.raises(TypeError, match="must be int, not bool"):
            torch.nn.Softmax(dim=True)(torch.ones(2, 2))


def test_lp_pool_norm_zero_always_failed() -> None:
    """Why lp-pool-norm-zero reports rather than rewrites: norm_type=0 divided by zero before 2.14."""
    x = torch.rand(1, 1, 4, 4)
    error: type[Exception] = ValueError if ON_2_14 else ZeroDivisionError
    with pytest.raises(error):
        torch.nn.functional.lp_pool2d(x, 0, 2)
    with pytest.raises(error):
        torch.nn.LPPool2d(0, 2)(x)


# --- optimizer-param-set (2.15) ------------------------------------------------------------------------------------

OPTIMIZER = """
import torch
w = torch.nn.Parameter(torch.ones(3))
b = torch.nn.Parameter(torch.zeros(3))
params = {w, b}
opt = torch.optim.SGD(params, lr=0.1)
opt2 = torch.optim.Adam({p for p in (w, b)}, lr=0.1)
"""


def test_optimizer_gets_the_list_it_built_from_the_set() -> None:
    code = OPTIMIZER.replace("torch.optim.SGD(params", "torch.optim.SGD(set(params)")
    migrated = migrate(code, "optimizer-param-set", "2.15")
    assert "SGD(list(set(params))" in migrated and "Adam(list({p for p in (w, b)})" in migrated
    after, found = warnings_of(migrated)
    assert found == []
    for name in ("opt", "opt2"):
        group = after[name].param_groups[0]["params"]
        assert len(group) == 2 and {id(p) for p in group} == {id(after["w"]), id(after["b"])}
    assert after["opt"].param_groups[0]["params"] == list(set(after["params"]))


# --- config keys: dynamo-recompile-limit (2.7), inductor-config-renames (2.8), compiler-config-2-14 --------------------

def test_recompile_limit_sets_the_option_the_alias_set() -> None:
    import torch._dynamo.config as dcfg

    saved = dcfg.recompile_limit
    try:
        code = "import torch\ntorch._dynamo.config.cache_size_limit = 17\nvalue = torch._dynamo.config.cache_size_limit\n"
        migrated = migrate(code, "dynamo-recompile-limit", "2.7")
        assert "cache_size_limit" not in migrated
        before, _ = warnings_of(code)
        dcfg.recompile_limit = saved
        after, found = warnings_of(migrated)
        assert found == [] and before["value"] == after["value"] == dcfg.recompile_limit == 17
    finally:
        dcfg.recompile_limit = saved


def test_layout_constraint_moved_to_functorch() -> None:
    import torch._functorch.config as fcfg

    saved = fcfg.custom_op_default_layout_constraint
    try:
        code = 'import torch\ntorch._inductor.config.custom_op_default_layout_constraint = "flexible_layout"\n'
        migrated = migrate(code, "inductor-config-renames", "2.8")
        with pytest.raises(AttributeError):
            warnings_of(code)
        _, found = warnings_of(migrated)
        assert found == [] and fcfg.custom_op_default_layout_constraint == "flexible_layout"
    finally:
        fcfg.custom_op_default_layout_constraint = saved


def test_compile_on_one_rank_moves_to_torch_compiler_config() -> None:
    import torch.distributed.config as dist_config

    code = "import torch\nimport torch.distributed.config\ntorch.distributed.config.compile_on_one_rank = True\n"
    migrated = migrate(code, "compiler-config-2-14", "2.14")
    assert "torch.compiler.config.compile_on_one_rank = True" in migrated
    if not ON_2_14:  # the new home does not exist on 2.13: hence since=2.14
        import torch.compiler.config as compiler_config

        assert not hasattr(compiler_config, "compile_on_one_rank")
        return
    import torch.compiler.config as compiler_config

    saved = compiler_config.compile_on_one_rank
    try:
        _, old = warnings_of(code)
        assert any("compile_on_one_rank is deprecated" in w for w in old)
        compiler_config.compile_on_one_rank = saved
        _, found = warnings_of(migrated)
        assert found == [] and compiler_config.compile_on_one_rank is True
        assert dist_config.compile_on_one_rank is True  # the alias reads the same flag
    finally:
        compiler_config.compile_on_one_rank = saved


def test_fullgraph_with_dynamo_disabled_raises_from_2_13() -> None:
    """What fullgraph-no-compiled-frames reports: fullgraph=True while Dynamo is disabled."""
    import torch._dynamo.config as dcfg

    saved = dcfg.disable
    try:
        dcfg.disable = True
        compiled = torch.compile(lambda x: x * 2, fullgraph=True)
        if RELEASE >= (2, 13):
            with pytest.raises(RuntimeError, match="found no compiled frames"):
                compiled(torch.ones(2))
    finally:
        dcfg.disable = saved


# --- file-baton-import (2.14) ------------------------------------------------------------------------------------

def test_file_baton_import(tmp_path: Path) -> None:
    code = "from torch.utils.cpp_extension import FileBaton\nbaton = FileBaton(path)\nok = baton.try_acquire()\nbaton.release()\n"
    migrated = migrate(code, "file-baton-import", "2.14")
    after, found = warnings_of(migrated, path=str(tmp_path / "lock"))
    assert found == [] and after["ok"] is True
    if ON_2_14:
        with pytest.raises(ImportError, match="FileBaton"):
            warnings_of(code, path=str(tmp_path / "lock2"))
    else:
        from torch.utils.cpp_extension import FileBaton  # type: ignore[attr-defined]

        assert FileBaton is after["FileBaton"]


# --- collectives-base-names (2.0) → single-collectives (2.13); gather-single (2.14) -----------------------------------

BASE_NAMES = """
import torch
import torch.distributed as dist
t = torch.arange(4.0)
out = torch.empty(4)
dist._all_gather_base(out, t, group=pg)
out2 = torch.empty(4)
dist._reduce_scatter_base(out2, t * 3, dist.ReduceOp.SUM, pg)
"""


def test_base_collectives_chain_to_the_2_13_names(tmp_path: Path) -> None:
    to_2_12 = migrate(BASE_NAMES, "collectives-base-names", "2.12")
    assert "all_gather_into_tensor(" in to_2_12 and "reduce_scatter_tensor(" in to_2_12
    chained = migrate_source(textwrap.dedent(BASE_NAMES), to="2.13", select=["collectives-base-names", "single-collectives"])
    assert chained.passes_applied == ["collectives-base-names", "single-collectives"]
    assert "all_gather_single(" in chained.code and "reduce_scatter_single(" in chained.code
    with one_rank_group(tmp_path) as pg:
        before = run_code(BASE_NAMES, pg=pg)
        after = run_code(chained.code, pg=pg)
        middle = run_code(to_2_12, pg=pg)
    assert before.all_deprecations and after.all_deprecations == []
    for name in ("out", "out2"):
        torch.testing.assert_close(after.namespace[name], before.namespace[name])
        torch.testing.assert_close(middle.namespace[name], before.namespace[name])


def test_gather_single() -> None:
    import inspect

    import torch.distributed as dist

    code = "import torch\nimport torch.distributed as dist\nout = torch.empty(3)\ndist.gather_into_tensor(torch.ones(3), out, dst=0)\n"
    migrated = migrate(code, "gather-single", "2.14")
    assert "dist.gather_single(" in migrated
    if not ON_2_14:  # both names are new in 2.14
        assert not hasattr(dist, "gather_single") and not hasattr(dist, "gather_into_tensor")
        return
    # No CPU backend implements gather_single (gloo: "Backend gloo does not support gather_single"), so the wrapper
    # is checked directly: same signature, and it returns gather_single of its arguments.
    old, new = dist.gather_into_tensor, dist.gather_single
    assert inspect.signature(old) == inspect.signature(new)
    assert "return gather_single(tensor, gather_tensor, dst, group, async_op, group_dst)" in inspect.getsource(old)


# --- done when: a realistic 2.13-era script, migrated with --to 2.15, runs warning-free on 2.13 ----------------------

SCRIPT_2_13 = """
import numpy as np
import torch
import torch._dynamo.config as dynamo_config
from torch.profiler import ProfilerActivity, _ExperimentalConfig, profile
from torch.utils.cpp_extension import FileBaton

dynamo_config.cache_size_limit = 16
g = torch.Generator().manual_seed(0)
X = torch.randn(32, 4, dtype=torch.float64, generator=g)
cov = X.mT @ X / 32 + 1e-3 * torch.eye(4, dtype=torch.float64)
L = cov.cholesky()
basis, _ = X.qr()
w = torch.nn.Parameter(torch.zeros(4, dtype=torch.float64))
b = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
opt = torch.optim.SGD({w, b}, lr=0.1)
head = torch.nn.Softmax(dim=np.int64(0))
config = _ExperimentalConfig([], False, False)
with profile(activities=[ProfilerActivity.CPU], use_cuda=False, experimental_config=config) as prof:
    for _ in range(3):
        opt.zero_grad()
        loss = ((X @ L @ w + b - basis[:, 0]) ** 2).mean()
        loss.backward()
        opt.step()
with torch.autograd.profiler.profile(use_cuda=False) as legacy:
    probs = head(X[:, 0])
baton = FileBaton(lock)
events = {e.key for e in prof.key_averages()}
"""


def test_a_2_13_script_migrated_to_2_15_runs_warning_free_on_2_13(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    result = migrate_source(textwrap.dedent(SCRIPT_2_13), to="2.15", from_="2.13")
    assert result.error is None
    # what is left to decide: use_cuda=False never had an effect; a set of parameters has no stable order
    assert sorted(f.pass_id for f in result.findings) == ["optimizer-param-set", "profiler-use-cuda"], result.findings
    applied = set(result.passes_applied)
    assert applied >= {
        "cholesky-qr-removed", "dynamo-recompile-limit", "file-baton-import", "optimizer-param-set", "profiler-use-cuda",
        "profiler-experimental-metrics", "softmax-dim-int",
    }, applied
    after, found = warnings_of(result.code, lock=str(tmp_path / "lock"))
    assert found == []
    assert "aten::mm" in after["events"] or "aten::matmul" in after["events"]
    if not ON_2_14:
        before, old = warnings_of(textwrap.dedent(SCRIPT_2_13), lock=str(tmp_path / "lock2"))
        assert old  # the 2.13 script warns: use_cuda, cholesky, qr
        for name in ("L", "basis", "probs", "loss"):
            assert torch.equal(before[name], after[name]), name
        assert torch.equal(before["w"].detach(), after["w"].detach())
