"""The most common legacy forms (catalog gaps, rows 1-8) on real torch 2.13: the old code warns (or is shown to be a
deprecated path), the migrated code runs without a deprecation warning and gives the same results.

UserWarnings raised in torch's C++ code (``TORCH_WARN_ONCE``: meshgrid) fire once per process unless
``torch.set_warn_always(True)``, so the tests switch it on; they look for the warning text in every warning the
snippet triggered, whatever file it names.
"""

from __future__ import annotations

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


def migrate(code: str, pass_id: str, to: str = "2.13", **options: Any) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=[pass_id], **options)
    assert result.error is None
    assert result.edits, f"{pass_id} changed nothing"
    assert not result.findings, result.findings
    again = migrate_source(result.code, to=to, select=[pass_id], **options)
    assert again.code == result.code and not again.edits
    return result.code


def warnings_of(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every warning it triggered (any category, any file)."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(textwrap.dedent(code), "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [f"{w.category.__name__}: {w.message}" for w in caught]


# --- meshgrid-indexing -----------------------------------------------------------------------------------------

MESHGRID = """
import torch
a, b, c = torch.arange(3.0), torch.arange(4.0), torch.arange(2.0)
ys, xs = torch.meshgrid(a, b)
grid = torch.stack(torch.meshgrid([a, b, c]), dim=-1)
coords = [a, c]
g1, g2 = torch.meshgrid(*coords)
"""


def test_meshgrid_gets_its_default_indexing() -> None:
    new = migrate(MESHGRID, "meshgrid-indexing")
    assert new.count('indexing="ij"') == 3
    old_ns, old_warnings = warnings_of(MESHGRID)
    new_ns, new_warnings = warnings_of(new)
    assert any("indexing argument" in w for w in old_warnings)
    assert new_warnings == []
    for name in ("ys", "xs", "grid", "g1", "g2"):
        assert torch.equal(old_ns[name], new_ns[name]), name


# --- cuda-memory-names -----------------------------------------------------------------------------------------

CUDA_MEMORY = """
import torch
reserved = torch.cuda.memory_cached()
peak = torch.cuda.max_memory_cached(0)
torch.cuda.reset_max_memory_allocated()
torch.cuda.reset_max_memory_cached(0)
"""


def test_cuda_memory_names_call_what_the_old_ones_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CPU build ``reset_peak_memory_stats`` itself cannot run (no CUDA allocator), so both the old and the new
    spelling are pointed at a recorder: the old functions are shown to call exactly the new one."""
    import torch.cuda.memory as memory

    calls: list[Any] = []

    def record(device: Any = None) -> None:
        calls.append(device)

    monkeypatch.setattr(memory, "reset_peak_memory_stats", record)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", record)
    new = migrate(CUDA_MEMORY, "cuda-memory-names")
    assert "cached" not in new and "reset_max" not in new
    old = run_code(CUDA_MEMORY)
    old_calls, calls[:] = list(calls), []
    ran = run_code(new)
    assert len(old.deprecations) == 4 and all(w.startswith("FutureWarning") for w in old.deprecations)
    assert ran.deprecations == [] and ran.all_deprecations == []
    assert calls == old_calls == [None, 0]
    assert (ran.namespace["reserved"], ran.namespace["peak"]) == (old.namespace["reserved"], old.namespace["peak"])


# --- autograd-variable -----------------------------------------------------------------------------------------

VARIABLE = """
import numpy as np
import torch
from torch.autograd import Variable

w = torch.randn(3, requires_grad=True)
hidden = w * 2                                   # has history
a = Variable(hidden)                             # detached alias
b = Variable(hidden, requires_grad=True)         # a new leaf on the same storage
c = Variable(hidden + 1, True)
d = Variable(hidden.data)
h0 = Variable(torch.zeros(2, 3))
c0 = Variable(torch.zeros(2, 3), requires_grad=True)
n = Variable(torch.from_numpy(np.ones(2)), requires_grad=True)
legacy = Variable(torch.Tensor(hidden))          # the legacy constructor aliases with history: detach kept
loss = (b * a).sum() + (c * c0.sum()).sum() + n.sum() + legacy.sum()
loss.backward()
is_var = isinstance(a, Variable)
"""


def _facts(t: Any) -> tuple[Any, ...]:
    return (t.requires_grad, t.is_leaf, t.grad_fn is None, tuple(t.shape), t.dtype)


def test_variable_is_a_detach_with_the_same_autograd_facts() -> None:
    new = migrate(VARIABLE, "autograd-variable")
    assert "Variable" not in new
    assert "h0 = torch.zeros(2, 3)\n" in new and "c0 = torch.zeros(2, 3, requires_grad=True)\n" in new
    assert "a = hidden.detach()" in new and "legacy = torch.Tensor(hidden).detach()" in new
    torch.manual_seed(0)
    old = run_code(VARIABLE)
    torch.manual_seed(0)
    ran = run_code(new)
    assert ran.deprecations == [] and ran.all_deprecations == []
    o, r = old.namespace, ran.namespace
    for name in ("a", "b", "c", "d", "h0", "c0", "n", "legacy", "loss"):
        assert _facts(o[name]) == _facts(r[name]), name
        assert torch.equal(o[name], r[name]), name
    # the same storage as the wrapped tensor, and gradients stop where Variable stopped them
    assert r["a"].data_ptr() == r["hidden"].data_ptr() and r["b"].data_ptr() == r["hidden"].data_ptr()
    assert o["w"].grad is None and r["w"].grad is None
    for name in ("b", "c0", "n"):
        assert torch.equal(o[name].grad, r[name].grad), name
    assert o["is_var"] is r["is_var"] is True
    # without the detach the rewrite would differ: plain `hidden` carries history back to w
    assert not o["hidden"].is_leaf


def test_variable_with_volatile_warns_and_is_left_as_a_finding() -> None:
    _, caught = warnings_of("import torch\nfrom torch.autograd import Variable\nv = Variable(torch.ones(2), volatile=True)\n")
    assert any("volatile was removed" in w for w in caught)
    result = migrate_source("from torch.autograd import Variable\nv = Variable(x, volatile=True)\n", to="2.13", select=["autograd-variable"])
    assert result.code.endswith("v = Variable(x, volatile=True)\n") and len(result.findings) == 1


# --- torch-norm --------------------------------------------------------------------------------------------------

NORM = """
import math
import numpy as np
import torch
from torch import norm

g = torch.Generator().manual_seed(0)
v = torch.randn(7, generator=g, dtype=torch.float64, requires_grad=True)
m = torch.randn(4, 5, generator=g, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, 4, 5, generator=g, requires_grad=True)
h = torch.randn(6, 3, generator=g).half()
buf = torch.empty(5, dtype=torch.float64)

def method_forms(x: torch.Tensor, y: torch.Tensor):
    return x.norm(), x.norm(1), x.norm(p=3, dim=-1, keepdim=True), y.norm(2, (1, 2)), y.float().norm(dim=0), y.norm(2, 1, False, torch.float64)

r = [
    torch.norm(v), torch.norm(m), torch.norm(b),
    torch.norm(m, p="fro"), torch.norm(m, "fro", 1), torch.norm(b, "fro", (1, 2), True),
    torch.norm(v, p=None), torch.norm(m, None, 0),
    torch.norm(m, 2), torch.norm(m, 2, dim=(0, 1)), torch.norm(m, p=1, dim=1), torch.norm(m, 0), torch.norm(m, 0.5, 1),
    torch.norm(v, float("inf")), torch.norm(v, -math.inf), torch.norm(v, np.inf), torch.norm(m, -1, 1, True),
    torch.norm(m, "nuc"), torch.norm(b, p="nuc", dim=(1, 2)), torch.norm(b, "nuc", (0, 2), True),
    torch.norm(m, "nuc", None), torch.norm(m, p="nuc", dim=None, keepdim=True), torch.norm(m, "nuc", None, True),
    torch.norm(h), torch.norm(h, dim=1, dtype=torch.float32), torch.norm(b, 2, 2, dtype=torch.float64),
    norm(m, dim=0),
    torch.stack([torch.norm(m), torch.norm(v)]).norm(),
    *method_forms(m, b),
]
o = torch.norm(m.detach(), 2, 0, False, buf)
total = sum(x.double().sum() for x in r)
total.backward()
grads = (v.grad, m.grad, b.grad)
"""


def test_torch_norm_becomes_the_call_it_makes() -> None:
    new = migrate(NORM, "torch-norm")
    assert "torch.norm(" not in new and ".norm(" not in new.replace("_norm(", "")
    old, ran = run_code(NORM), run_code(new)
    assert ran.deprecations == [] and ran.all_deprecations == []
    assert len(old.namespace["r"]) == len(ran.namespace["r"]) == 34
    for i, (a, b) in enumerate(zip(old.namespace["r"], ran.namespace["r"], strict=True)):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b), i
    assert ran.namespace["o"] is ran.namespace["buf"] and torch.equal(old.namespace["buf"], ran.namespace["buf"])
    for a, b in zip(old.namespace["grads"], ran.namespace["grads"], strict=True):
        assert torch.equal(a, b)


def test_torch_norm_findings_are_the_forms_with_other_results() -> None:
    """What stays a finding really differs: a string p the rewrite would have to guess, and sparse inputs."""
    with pytest.raises(NotImplementedError):
        torch.linalg.vector_norm(torch.eye(3).to_sparse())
    assert torch.norm(torch.eye(3).to_sparse()) == torch.norm(torch.eye(3))
    with pytest.raises(TypeError):
        torch.linalg.vector_norm(torch.ones(3, 3), "fro")  # so p=<variable> holding "fro" cannot become ord=p
    code = "import torch\nn = torch.norm(x, p=norm_type)\ns = torch.norm(y.to_sparse())\n"
    result = migrate_source(code, to="2.13", select=["torch-norm"])
    assert result.code == code and len(result.findings) == 2


# --- local-rank-argument -----------------------------------------------------------------------------------------

LOCAL_RANK = """
import argparse

def build():
    parser = argparse.ArgumentParser(prog="train")
    group = parser.add_argument_group("distributed")
    group.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=1)
    return parser
"""


def _launcher_argv() -> list[str]:
    """The arguments torch.distributed.launch (2.13) gives the script of rank 0: built by torch's own code."""
    import torch.distributed.launch as launch
    import torch.distributed.run as run

    _, _, argv = run.config_from_args(launch.parse_args(["--nproc-per-node=1", "train.py", "--epochs", "3"]))
    return [a.replace("${local_rank}", "0") for a in argv if a not in ("-u", "train.py")]


def test_local_rank_parser_accepts_what_the_launcher_passes(capsys: pytest.CaptureFixture[str]) -> None:
    new = migrate(LOCAL_RANK, "local-rank-argument")
    argv = _launcher_argv()
    assert argv == ["--local-rank=0", "--epochs", "3"]
    old_parser, new_parser = run_code(LOCAL_RANK).namespace["build"](), run_code(new).namespace["build"]()
    with pytest.raises(SystemExit):
        old_parser.parse_args(argv)
    assert "unrecognized arguments: --local-rank=0" in capsys.readouterr().err
    assert vars(new_parser.parse_args(argv)) == {"local_rank": 0, "epochs": 3}
    # every command line the old parser accepted gives the same namespace
    for accepted in ([], ["--local_rank", "2"], ["--local_rank=1", "--epochs", "4"]):
        assert vars(new_parser.parse_args(accepted)) == vars(old_parser.parse_args(accepted))


# --- tensor-storage ----------------------------------------------------------------------------------------------

STORAGE = """
import torch

x = torch.arange(12, dtype=torch.float32)
view = x[3:].view(3, 3)
h = torch.zeros(5, dtype=torch.float16)
same = view.storage().data_ptr() == x.storage().data_ptr()
facts = (x.storage().nbytes(), x.storage().is_shared(), x.storage().is_pinned(), str(x.storage().device))
sizes = (x.storage().size(), view.storage().size(), h.storage().size(), h.storage().element_size(), h.storage().dtype)
empty_before = h.storage().size() == 0
h.storage().resize_(0)
empty_after = h.storage().size() == 0, 0 < h.storage().size()
buf = torch.empty(0, dtype=torch.float64)
buf.storage().resize_(2 + 5)
grown = (buf.storage().size(), buf.storage().nbytes(), buf.storage().untyped().nbytes())
total = sum(t.storage().size() * t.storage().element_size() for t in (x, h, buf))
"""


def test_untyped_storage_keeps_counts_in_elements_where_the_code_meant_them() -> None:
    new = migrate(STORAGE, "tensor-storage")
    assert ".storage()" not in new
    torch.storage._set_always_warn_typed_storage_removal(True)
    try:
        _, old_warnings = warnings_of(STORAGE)
        old, ran = run_code(STORAGE), run_code(new)
        _, new_warnings = warnings_of(new)
    finally:
        torch.storage._set_always_warn_typed_storage_removal(False)
    assert any("TypedStorage is deprecated" in w for w in old_warnings)
    assert not any("TypedStorage" in w for w in new_warnings)
    assert ran.deprecations == [] and ran.all_deprecations == []
    for name in ("same", "facts", "sizes", "empty_before", "empty_after", "grown", "total"):
        assert old.namespace[name] == ran.namespace[name], name
    assert ran.namespace["sizes"][:3] == (12, 12, 5) and ran.namespace["grown"] == (7, 56, 56)
    # the byte counts the rewrite converts from: an untyped storage's size() is not the element count
    assert ran.namespace["x"].untyped_storage().size() == 48


# --- fsdp1-state-dict (findings) ---------------------------------------------------------------------------------


def test_fsdp1_state_dict_apis_warn_and_the_named_replacements_exist() -> None:
    """Each API the pass reports warns a FutureWarning on 2.13 (before it fails on a module without FSDP units), and the
    APIs its message names exist with the parameters it names."""
    import inspect

    from torch.distributed.checkpoint import state_dict as dsd
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp import StateDictType

    from torchmigrate.codemods.v2_4.fsdp1_state_dict import ADVICE

    model = torch.nn.Linear(2, 2)
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = {
        "state_dict_type": lambda: FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT).__enter__(),
        "set_state_dict_type": lambda: FSDP.set_state_dict_type(model, StateDictType.FULL_STATE_DICT),
        "full_optim_state_dict": lambda: FSDP.full_optim_state_dict(model, optim),
        "sharded_optim_state_dict": lambda: FSDP.sharded_optim_state_dict(model, optim),
        "shard_full_optim_state_dict": lambda: FSDP.shard_full_optim_state_dict({}, model),
        "flatten_sharded_optim_state_dict": lambda: FSDP.flatten_sharded_optim_state_dict({}, model, optim),
        "scatter_full_optim_state_dict": lambda: FSDP.scatter_full_optim_state_dict({}, model),
    }
    assert set(calls) == set(ADVICE)
    for call in calls.values():
        with pytest.warns(FutureWarning, match="deprecated"):
            try:
                call()
            except (KeyError, IndexError, RuntimeError, ValueError):
                pass  # no FSDP unit in a plain module: the warning came first
    assert {"model", "optimizers", "options"} <= set(inspect.signature(dsd.get_state_dict).parameters)
    assert {"model_state_dict", "optim_state_dict", "options"} <= set(inspect.signature(dsd.set_state_dict).parameters)
    assert {"full_state_dict", "cpu_offload"} <= set(inspect.signature(dsd.StateDictOptions).parameters)
    assert callable(FSDP.optim_state_dict) and callable(FSDP.optim_state_dict_to_load)
