"""torchcomms-default: the facts its messages rely on, checked on the installed torch 2.13.0, and the 2.13 gate."""

from __future__ import annotations

from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

CODE = 'import torch.distributed as dist\ndist.init_process_group("cpu:gloo,cuda:nccl")\n'


def test_only_for_2_13() -> None:
    assert migrate_source(CODE, to="2.12").findings == []
    assert [f.pass_id for f in migrate_source(CODE, to="2.13").findings] == ["torchcomms-default"]


def test_torchcomms_is_opt_in_on_2_13_and_the_env_var_exists() -> None:
    torch_or_skip()
    import torch.distributed as dist
    import torch.distributed.config as config

    assert config.use_torchcomms is False  # the messages say "try it with TORCH_DISTRIBUTED_USE_TORCHCOMMS=1"
    source = open(config.__file__, encoding="utf-8").read()
    assert "TORCH_DISTRIBUTED_USE_TORCHCOMMS" in source
    # The multi-device string is still accepted by the classic process groups.
    assert str(dist.Backend("cpu:gloo,cuda:nccl")) == "cpu:gloo,cuda:nccl"
