"""Catalog passes, part A: the API facts each pass rests on, checked against the installed torch, plus engine
behaviour the passes rely on (version guards, opt-in, listing)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest
from support.torchrun import torch_or_skip

from torchmigrate import migrate_source
from torchmigrate.codemods.v1_12 import assert_allclose
from torchmigrate.codemods.v2_0 import functorch as functorch_pass
from torchmigrate.codemods.v2_3 import sdp_kernel
from torchmigrate.codemods.v2_4 import amp_namespace
from torchmigrate.codemods.v2_7 import lr_verbose
from torchmigrate.core.registry import all_passes, get_pass

torch = torch_or_skip()

IDS = [
    "torch-load-weights-only",
    "amp-namespace",
    "dtensor-public",
    "fsdp2-public",
    "sdp-kernel",
    "impl-abstract",
    "assert-allclose",
    "functorch",
    "checkpoint-reentrant",
    "lr-verbose",
    "weight-norm",
]


def resolve(dotted: str) -> Any:
    """The object a dotted name denotes: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def params(fn: Any) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("pass_id", IDS)
def test_every_rename_target_exists_in_the_installed_torch(pass_id: str) -> None:
    for new in get_pass(pass_id).renames.values():
        resolve(new)


@pytest.mark.parametrize("pass_id", ["dtensor-public", "fsdp2-public", "functorch", "impl-abstract"])
def test_public_renames_name_the_same_object_or_a_thin_wrapper(pass_id: str) -> None:
    for old, new in get_pass(pass_id).renames.items():
        try:
            before = resolve(old)
        except (ImportError, AttributeError):
            continue  # an old private path that no longer exists on 2.13: the rename repairs it
        after = resolve(new)
        if inspect.ismodule(before) or inspect.isclass(before):
            assert before is after or inspect.ismodule(after), (old, new)
        else:
            assert callable(before) and callable(after), (old, new)


def test_submodule_names_used_by_the_renames() -> None:
    import torch.distributed._tensor as old_dt
    import torch.distributed.fsdp as fsdp
    import torch.distributed.tensor as dt

    assert old_dt.DTensor is dt.DTensor and old_dt.Shard is dt.Shard
    from torch.distributed._composable.fsdp import fully_shard as old_fully_shard
    from torch.distributed._composable.fsdp.fully_shard import FSDPModule

    assert old_fully_shard is fsdp.fully_shard and FSDPModule is fsdp.FSDPModule
    with pytest.raises(ModuleNotFoundError):  # why `…fsdp.fully_shard` cannot simply become `torch.distributed.fsdp.fully_shard`
        importlib.import_module("torch.distributed.fsdp.fully_shard")


def test_amp_old_positional_order() -> None:
    assert params(torch.cuda.amp.autocast.__init__) == list(amp_namespace._AUTOCAST_POSITIONAL)
    assert params(torch.cpu.amp.autocast.__init__) == list(amp_namespace._AUTOCAST_POSITIONAL)
    new = params(torch.amp.GradScaler.__init__)
    assert new[0] == "device" and new[1:] == params(torch.cuda.amp.GradScaler.__init__)
    assert "device_type" in params(torch.amp.custom_fwd) and "device_type" in params(torch.amp.custom_bwd)


def test_sdp_kernel_flags_and_defaults() -> None:
    signature = inspect.signature(torch.backends.cuda.sdp_kernel)
    assert list(signature.parameters) == list(sdp_kernel._FLAGS)
    assert all(p.default is True for p in signature.parameters.values())
    assert {member for _, member in sdp_kernel._BACKENDS} <= set(torch.nn.attention.SDPBackend.__members__)


def test_register_fake_is_positional_only_for_op_and_func() -> None:
    kinds = [p.kind for p in inspect.signature(torch.library.register_fake).parameters.values()][:2]
    assert kinds == [inspect.Parameter.POSITIONAL_ONLY] * 2
    assert params(torch.library.impl_abstract)[:2] == ["qualname", "func"]


def test_assert_allclose_parameters() -> None:
    assert params(torch.testing.assert_allclose) == list(assert_allclose._PARAMS)
    close = inspect.signature(torch.testing.assert_close).parameters
    assert close["equal_nan"].default is False and close["check_dtype"].default is True


def test_functorch_transforms_match_torch_func() -> None:
    import functorch

    for name in functorch_pass.TRANSFORMS:
        assert params(getattr(functorch, name)) == params(getattr(torch.func, name)), name


def test_lr_scheduler_table_matches_torch() -> None:
    from torch.optim import lr_scheduler

    for name, count in lr_verbose.POSITIONAL.items():
        cls = getattr(lr_scheduler, name)
        positional = [
            p
            for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD
        ]
        assert len(positional) == count, name
        assert "verbose" not in inspect.signature(cls.__init__).parameters, name


def test_checkpoint_default_is_still_reentrant() -> None:
    # 2.14 moved the default from checkpoint() into _checkpoint_impl(): read the whole module.
    source = inspect.getsource(torch.utils.checkpoint)
    assert "use_reentrant = True" in source


def test_torch_load_defaults() -> None:
    from torch.serialization import _default_to_weights_only

    assert _default_to_weights_only(None) is True
    assert _default_to_weights_only(object()) is False  # an explicit pickle_module keeps the old default


# --- engine behaviour the passes rely on ----------------------------------------------------------------------


def test_all_catalog_a_passes_are_listed_with_release_and_opt_in() -> None:
    listed = {p.id: p for p in all_passes()}
    assert set(IDS) <= set(listed)
    releases = {i: listed[i].release for i in IDS}
    assert releases == {
        "torch-load-weights-only": "2.6",
        "amp-namespace": "2.4",
        "dtensor-public": "2.5",
        "fsdp2-public": "2.6",
        "sdp-kernel": "2.3",
        "impl-abstract": "2.4",
        "assert-allclose": "1.12",
        "functorch": "2.0",
        "checkpoint-reentrant": "2.1",
        "lr-verbose": "2.7",
        "weight-norm": "2.1",
    }
    assert [i for i in IDS if listed[i].opt_in] == ["weight-norm"]


GUARDED = """import torch

if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()

scaler2 = torch.amp.GradScaler("cuda") if TORCH_GE_2_4 else torch.cuda.amp.GradScaler()

try:
    from torch.amp import autocast
except (ImportError, AttributeError):
    from torch.cuda.amp import autocast

if torch.__version__ >= "2.6":
    state = torch.load(path)
"""


def test_version_gated_legacy_code_is_left_alone() -> None:
    result = migrate_source(GUARDED, to="2.12", from_="1.8", unsafe_fixes=True)
    assert result.code == GUARDED and not result.edits and not result.findings


def test_suppression_comment() -> None:
    code = "import torch\n\nsd = torch.load(p)  # migrate: ignore[torch-load-weights-only]\n"
    result = migrate_source(code, to="2.12", from_="1.8", unsafe_fixes=True)
    assert result.code == code and not result.findings


def test_user_class_named_amp_or_autocast_is_never_touched() -> None:
    code = (
        "class amp:\n    @staticmethod\n    def autocast():\n        return None\n\n\n"
        "class GradScaler:\n    pass\n\n\nwith amp.autocast():\n    pass\ns = GradScaler()\n"
    )
    result = migrate_source(code, to="2.12", from_="1.8", unsafe_fixes=True)
    assert result.code == code and not result.findings


def test_mixed_file_migrates_in_one_run_and_is_a_fixed_point() -> None:
    code = (
        "import functools\n"
        "import torch as th\n"
        "from functorch import vmap\n"
        "from torch.cuda.amp import GradScaler\n"
        "from torch.distributed._tensor import Shard\n"
        "from torch.utils.checkpoint import checkpoint\n\n\n"
        "def step(model, x, path):\n"
        "    from torch.distributed._composable.fsdp import fully_shard\n\n"
        "    model.load_state_dict(th.load(path))\n"
        "    with th.cuda.amp.autocast(dtype=th.float16):\n"
        "        y = checkpoint(model, x)\n"
        "    th.testing.assert_allclose(y, x, 1e-3, 1e-3)\n"
        "    with th.backends.cuda.sdp_kernel(enable_math=False):\n"
        "        pass\n"
        "    sched = th.optim.lr_scheduler.StepLR(opt, 1, verbose=False)\n"
        "    return vmap(model)(x), GradScaler(), Shard(0), fully_shard(model), sched\n"
    )
    result = migrate_source(code, to="2.12", from_="1.8", unsafe_fixes=True)
    assert result.error is None
    for old in ("functorch", "cuda.amp", "_tensor", "_composable", "assert_allclose", "sdp_kernel", "verbose"):
        assert old not in result.code, old
    assert "th.load(path, weights_only=True)" in result.code
    assert "checkpoint(model, x, use_reentrant=True)" in result.code
    assert 'GradScaler("cuda")' in result.code
    assert migrate_source(result.code, to="2.12", from_="1.8", unsafe_fixes=True).code == result.code
    compile(result.code, "<mixed>", "exec")


# --- the two small engine extensions these passes needed --------------------------------------------------------


def _pass(**kwargs: Any) -> Any:
    from torchmigrate.core.passes import SAFE, Pass

    return Pass(id="t-rename", release="2.5", safety=SAFE, title="t", evidence="e", triggers=("_x",), doc="d", **kwargs)


def test_a_name_with_its_own_rename_is_split_out_of_a_renamed_module() -> None:
    from torchmigrate.python.engine import migrate_text

    p = _pass(renames={"pkg._x": "pkg.x", "pkg._x.y.Spec": "pkg.x._spec.Spec"})
    code = "from pkg._x.y import Other, Spec\n\nSpec(Other())\n"
    result = migrate_text(code, [p])
    assert result.code == "from pkg.x._spec import Spec\nfrom pkg.x.y import Other\n\nSpec(Other())\n"
    plain = migrate_text("from pkg._x.y import Other\n", [p])  # no specific rename: the module is renamed in place
    assert plain.code == "from pkg.x.y import Other\n"


def test_a_split_import_inside_a_function_stays_there() -> None:
    from torchmigrate.python.engine import migrate_text

    p = _pass(renames={"pkg._x": "pkg.x", "pkg._x.y.Spec": "pkg.x._spec.Spec"})
    code = "import os\n\n\ndef f():\n    # why\n    from pkg._x.y import Other, Spec\n    return Spec, Other\n"
    assert migrate_text(code, [p]).code == (
        "import os\n\n\ndef f():\n    # why\n    from pkg.x.y import Other\n    from pkg.x._spec import Spec\n"
        "    return Spec, Other\n"
    )


def test_a_rename_transformer_subclass_replaces_the_default_step() -> None:
    import libcst as cst

    from torchmigrate.python.engine import migrate_text
    from torchmigrate.python.renames import RenameTransformer

    class KeepsImports(RenameTransformer):
        def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
            return updated_node  # this pass's own policy: import statements stay as they are

    p = _pass(renames={"pkg._x": "pkg.x"})
    p.uses(KeepsImports)
    # Had the default RenameTransformer run as well, it would have renamed the import anyway.
    code = "import pkg._x\n\npkg._x.f()\n"
    assert migrate_text(code, [p]).code == "import pkg._x\n\npkg.x.f()\n"
