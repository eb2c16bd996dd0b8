"""Tensor-parallel helpers written against PyTorch 2.11: group names, torch.distributed.nn.functional, old names."""

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.distributed.nn.functional as dist_fn


def reduce_grads(grad: torch.Tensor, pg: dist.ProcessGroup) -> torch.Tensor:
    # Functional collectives were called with the group's registered name.
    return funcol.all_reduce(grad, "sum", group=pg.group_name)


def gather_shards(shard: torch.Tensor, pg: dist.ProcessGroup) -> torch.Tensor:
    name = pg.group_name
    full = funcol.all_gather_tensor(shard, 0, name)
    return torch.ops._c10d_functional.wait_tensor(full)


def reduce_scatter_rows(rows: torch.Tensor, pg: dist.ProcessGroup) -> torch.Tensor:
    out = torch.ops._c10d_functional.reduce_scatter_tensor(rows, "sum", dist.get_world_size(pg), pg.group_name)
    return torch.ops._c10d_functional.wait_tensor(out)


def mean_loss(loss: torch.Tensor) -> torch.Tensor:
    # Differentiable all-reduce; raises inside torch.compile from 2.12.
    return dist_fn.all_reduce(loss) / dist.get_world_size()


def gather_features(features: torch.Tensor, pg: dist.ProcessGroup) -> torch.Tensor:
    return torch.cat(dist_fn.all_gather(features, group=pg), dim=0)


def gather_into(out: torch.Tensor, shard: torch.Tensor) -> None:
    dist.all_gather_into_tensor(out, shard)
