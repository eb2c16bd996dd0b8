"""The group positions the group-names pass relies on match the installed torch (signatures and op schemas)."""

from __future__ import annotations

import inspect

from support.torchrun import torch_or_skip

from torchmigrate.codemods.v2_12 import group_names_to_process_groups as pass_module


def test_functional_collective_group_positions() -> None:
    torch_or_skip()
    import torch.distributed._functional_collectives as funcol

    for name, index in pass_module._FUNCOL_GROUP_INDEX.items():
        params = list(inspect.signature(getattr(funcol, name)).parameters)
        assert params[index] == "group", (name, params)


def test_op_schemas_take_any_group() -> None:
    torch = torch_or_skip()
    for name, index in pass_module._OP_GROUP_INDEX.items():
        schema = getattr(torch.ops._c10d_functional, name).default._schema
        argument = schema.arguments[index]
        assert argument.name == "group_name" and str(argument.type) == "Any", (name, str(schema))
    # The P2P ops still want a string: the pass must not touch them.
    for name in ("isend", "irecv", "batch_p2p_ops"):
        assert name not in pass_module._OP_GROUP_INDEX
        schema = getattr(torch.ops._c10d_functional, name).default._schema
        assert str(schema.arguments[-1].type) == "str", str(schema)
