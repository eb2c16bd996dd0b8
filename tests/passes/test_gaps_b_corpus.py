"""Regression cases from running the catalog-gaps passes over real repositories: look-alikes that must stay as they
are, and the one true ``zero-grad-none`` finding (a test asserting zeroed gradients after an optimizer wrapper's
``zero_grad()``)."""

from __future__ import annotations

import textwrap

import pytest

from torchmigrate import migrate_source

LOOK_ALIKES = [
    # Lightning Fabric's own all_reduce keyword, and a strategy method with a reduce_op parameter
    """
    import torch.distributed as dist

    total = fabric.all_reduce(token_counts[key], reduce_op="sum")


    class Strategy:
        def all_reduce(self, tensor, group=None, reduce_op="mean"):
            return _sync_ddp_if_available(tensor, group, reduce_op=reduce_op)
    """,
    # a sharded optimizer's own clip_grad_norm method, defined and called
    """
    import torch.nn as nn


    class OSS:
        def clip_grad_norm(self, max_norm, norm_type=2.0):
            return nn.utils.clip_grad_norm_(self.params, max_norm, norm_type)


    norm = sharded_optimizer.clip_grad_norm(0.3, norm_type=2.0)
    """,
    # the private hook attribute, torch._dynamo.is_compiling (not deprecated on 2.13), torch.compiler already
    """
    import torch

    model._register_backward_hook = lambda *_: None
    if torch._dynamo.is_compiling() or torch.compiler.is_compiling():
        pass
    """,
    # a kernel wrapper that forwards its own size_average parameter
    """
    import torch


    def cross_entropy(logits, labels, size_average=None, reduce=None, reduction="mean"):
        return fast_ce(logits, labels, size_average=size_average, reduce=reduce, reduction=reduction)
    """,
]


@pytest.mark.parametrize("code", LOOK_ALIKES)
def test_corpus_look_alikes_are_left_alone(code: str) -> None:
    code = textwrap.dedent(code)
    result = migrate_source(code, to="2.13", unsafe_fixes=True)
    assert result.error is None
    assert result.code == code, [e.message for e in result.edits]
    assert result.findings == []


def test_zeroed_gradients_asserted_after_a_wrapped_zero_grad() -> None:
    code = textwrap.dedent(
        """
        import numpy as np
        import torch


        def test_gradient_value():
            model = torch.nn.Linear(2, 2, bias=False)
            optim = AdaScale(torch.optim.SGD(model.parameters(), lr=0.1), num_gradients_to_accumulate=2)
            model(torch.ones(2)).sum().backward()
            optim.step()
            assert np.allclose(model.weight.grad.numpy(), [[1.0, 1.0], [1.0, 1.0]])
            optim.zero_grad()
            assert np.allclose(model.weight.grad.numpy(), [[0.0, 0.0], [0.0, 0.0]])
        """
    )
    result = migrate_source(code, to="2.13", unsafe_fixes=True)
    assert [(f.pass_id, f.line) for f in result.findings] == [("zero-grad-none", 13)]
    assert result.code == code
