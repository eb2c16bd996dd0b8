"""Catalog-gaps passes on real torch 2.13 (profiler, backends flags, compile helpers, pytree, samplers, …): the old code
warns or fails, the migrated code runs without a deprecation warning and agrees."""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()


@pytest.fixture(autouse=True)
def _warn_always() -> Iterator[None]:
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def migrate(code: str, *pass_ids: str, to: str = "2.13", findings: int = 0) -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=list(pass_ids), unsafe_fixes=True)
    assert result.error is None
    assert result.edits, f"{pass_ids} changed nothing"
    assert len(result.findings) == findings, result.findings
    return result.code


def run(code: str, **env: Any) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every warning (any category) whose text says "deprecated"."""
    namespace: dict[str, Any] = dict(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(textwrap.dedent(code), "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [str(w.message) for w in caught if "deprecat" in str(w.message).lower()]


PROFILER = """
import torch

per_event = [(e.key, e.cuda_time_total, e.self_cuda_time_total, e.self_cuda_memory_usage) for e in prof.function_events]
"""
PROFILER_AVERAGES = """
import torch

top = sorted(prof.key_averages(), key=lambda e: e.self_cuda_time_total)
averaged = [(e.key, e.cuda_time_total, e.cuda_time) for e in top]
"""


def test_profiler_event_attributes() -> None:
    # the same FunctionEvent / FunctionEventAvg objects torch.profiler returns; the legacy (non-kineto) profiler
    # starts in milliseconds where kineto takes seconds
    with torch.autograd.profiler.profile(use_kineto=False) as prof:
        torch.randn(16, 16) @ torch.randn(16, 16)
    after = migrate(PROFILER, "profiler-device-attrs")
    _, old_warnings = run(PROFILER, prof=prof)
    assert old_warnings  # FunctionEvent's cuda_* properties warn
    new, new_warnings = run(after, prof=prof)
    assert new_warnings == []
    assert new["per_event"] and all(isinstance(v, int) for _, *values in new["per_event"] for v in values)
    # on the averaged events the old names are gone altogether
    with pytest.raises(AttributeError):
        run(PROFILER_AVERAGES, prof=prof)
    new, new_warnings = run(migrate(PROFILER_AVERAGES, "profiler-device-attrs"), prof=prof)
    assert new_warnings == [] and new["averaged"]


HAS_FLAGS = """
import torch as th
from torch import has_mkldnn

flags = (th.has_cuda, th.has_cudnn, th.has_mps, has_mkldnn)
"""


def test_has_flags_become_backends_calls() -> None:
    old, old_warnings = run(HAS_FLAGS)
    assert len(old_warnings) >= 4  # one per flag (the from-import may be looked up twice)
    new, new_warnings = run(migrate(HAS_FLAGS, "has-backends"))
    assert new_warnings == []
    assert new["flags"] == old["flags"]


SIX = """
import torch._six
from torch._six import container_abcs, inf, int_classes as ints, string_classes

checks = (
    isinstance("s", string_classes),
    isinstance(b"b", string_classes),
    isinstance({}, container_abcs.Mapping),
    isinstance(3, ints),
    inf == float("inf"),
    torch._six.nan != torch._six.nan,
    isinstance([], torch._six.container_abcs.Sequence),
)
"""


def test_torch_six_becomes_the_standard_library() -> None:
    with pytest.raises(ModuleNotFoundError):
        run(SIX)
    new, new_warnings = run(migrate(SIX, "torch-six", to="2.0"))
    assert new_warnings == []
    assert new["checks"] == (True,) * 7


IS_COMPILING = """
import torch

flag = torch._utils.is_compiling()
"""


def test_is_compiling_moves_to_torch_compiler() -> None:
    # (torch._dynamo.external_utils.is_compiling is checked from its source in test_gaps_b_facts: importing
    # torch._dynamo costs seconds)
    old, old_warnings = run(IS_COMPILING)
    assert old_warnings  # torch._utils.is_compiling warns since 2.5
    after = migrate(IS_COMPILING, "is-compiling")
    assert "torch.compiler.is_compiling()" in after
    new, new_warnings = run(after)
    assert new_warnings == [] and new["flag"] is old["flag"] is False


DEFAULT_TYPE = """
import torch

torch.set_default_tensor_type(torch.DoubleTensor)
a = (torch.get_default_dtype(), torch.tensor([1.5]).dtype, torch.zeros(2).dtype, torch.empty(1).device)
torch.set_default_tensor_type('torch.BFloat16Tensor')
b = (torch.get_default_dtype(), torch.ones(1).dtype)
torch.set_default_tensor_type(torch.FloatTensor)
c = torch.get_default_dtype()
"""


def test_set_default_tensor_type_becomes_set_default_dtype() -> None:
    try:
        old, old_warnings = run(DEFAULT_TYPE)
        assert old_warnings  # warns once per process; set_warn_always is on
        after = migrate(DEFAULT_TYPE, "set-default-tensor-type")
        assert "set_default_tensor_type" not in after
        new, new_warnings = run(after)
    finally:
        torch.set_default_dtype(torch.float32)
    assert new_warnings == []
    assert (new["a"], new["b"], new["c"]) == (old["a"], old["b"], old["c"])
    assert new["a"][0] is torch.float64 and new["b"][0] is torch.bfloat16


SAMPLER = """
import torch
from torch.utils.data import DataLoader, Sampler


class EvenFirst(Sampler):
    def __init__(self, data_source):
        super().__init__(data_source)
        self.data_source = data_source

    def __iter__(self):
        n = len(self.data_source)
        return iter([*range(0, n, 2), *range(1, n, 2)])

    def __len__(self):
        return len(self.data_source)


order = [int(b) for b in DataLoader(list(range(5)), sampler=EvenFirst(list(range(5))), batch_size=None)]
"""


def test_sampler_subclass_init() -> None:
    with pytest.raises(TypeError, match="object.__init__"):
        run(SAMPLER)
    new, new_warnings = run(migrate(SAMPLER, "sampler-init"))
    assert new_warnings == [] and new["order"] == [0, 2, 4, 1, 3]


PYTREE = """
import torch.utils._pytree as pytree


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


pytree._register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda leaves, ctx: Pair(*leaves))
leaves, spec = pytree.tree_flatten(Pair(1, [2, 3]))
back = pytree.tree_unflatten([10, 20, 30], spec)
result = (leaves, back.a, back.b)
"""


def test_pytree_registration() -> None:
    old, old_warnings = run(PYTREE)
    assert old_warnings
    after = migrate(PYTREE, "pytree-register")
    new, new_warnings = run(after)
    assert new_warnings == [] and new["result"] == old["result"] == ([1, 2, 3], 10, [20, 30])
    # the review note: a second registration of the same class raises now
    with pytest.raises(ValueError, match="already registered"):
        new["pytree"].register_pytree_node(new["Pair"], lambda p: ([], None), lambda leaves, ctx: None)


UNBACKED = """
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv


@torch.library.custom_op(OP, mutates_args=())
def nz(x: torch.Tensor) -> torch.Tensor:
    return x.nonzero()


@nz.register_fake
def _(x):
    ctx = torch.library.get_ctx()
    n = ctx.create_unbacked_symint()
    return x.new_empty(n, x.dim(), dtype=torch.long)


with FakeTensorMode(shape_env=ShapeEnv()):
    y = nz(torch.empty(3, 4))
size = y.shape[0]
low = size.node.shape_env.var_to_range[size.node.expr].lower
"""


def test_create_unbacked_symint_keeps_its_lower_bound() -> None:
    old, old_warnings = run(UNBACKED, OP="gapsb::nonzero_old")
    assert old_warnings
    after = migrate(UNBACKED, "fake-unbacked-symint")
    assert "new_dynamic_size(min=2)" in after
    new, new_warnings = run(after, OP="gapsb::nonzero_new")
    assert new_warnings == [] and int(new["low"]) == int(old["low"]) == 2


DCP = """
import torch
import torch.distributed.checkpoint as dcp

sd = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2)}
dcp.save_state_dict(sd, dcp.FileSystemWriter(PATH), None, 0, True)
loaded = {"w": torch.zeros(2, 3), "b": torch.zeros(2)}
dcp.load_state_dict(loaded, dcp.FileSystemReader(PATH), no_dist=True)
"""


def test_dcp_save_and_load(tmp_path: Any) -> None:
    old, old_warnings = run(DCP, PATH=str(tmp_path / "old"))
    assert old_warnings
    after = migrate(DCP, "dcp-save-state-dict")
    assert "dcp.save(" in after and "dcp.load(" in after
    new, new_warnings = run(after, PATH=str(tmp_path / "new"))
    assert new_warnings == []
    for key in ("w", "b"):
        assert torch.equal(new["loaded"][key], old["loaded"][key])
        assert torch.equal(new["loaded"][key], new["sd"][key])


REDUCE_OP = """
import torch.distributed as dist

ops = (dist.reduce_op.SUM, dist.reduce_op.MAX, dist.reduce_op.PRODUCT)
"""


def test_reduce_op_members_are_reduceop_members() -> None:
    old, old_warnings = run(REDUCE_OP)
    assert old_warnings
    new, new_warnings = run(migrate(REDUCE_OP, "reduce-op"))
    assert new_warnings == [] and new["ops"] == old["ops"]
    assert all(a is b for a, b in zip(new["ops"], old["ops"], strict=True))


PREFETCH = """
from torch.utils.data import DataLoader

batches = [b.tolist() for b in DataLoader(list(range(6)), batch_size=2, num_workers=0, prefetch_factor=2)]
"""


def test_prefetch_factor_without_workers() -> None:
    with pytest.raises(ValueError, match="prefetch_factor"):
        run(PREFETCH)
    new, new_warnings = run(migrate(PREFETCH, "prefetch-factor", to="2.0"))
    assert new_warnings == [] and new["batches"] == [[0, 1], [2, 3], [4, 5]]
