"""The 0.4-era nn forms on real torch 2.13: the old code warns, the migrated code runs without a deprecation warning
and gives equal results (upsample-interpolate, upsampling-modules, loss-reduction, init-underscore, nllloss2d,
stft-return-complex)."""

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


def migrate(code: str, *pass_ids: str, to: str = "2.13") -> str:
    result = migrate_source(textwrap.dedent(code), to=to, select=list(pass_ids), unsafe_fixes=True)
    assert result.error is None
    assert result.edits, f"{pass_ids} changed nothing"
    assert not result.findings, result.findings
    return result.code


def run(code: str) -> tuple[dict[str, Any], list[str]]:
    """Run ``code``; its namespace and every warning (any category) whose text says "deprecated"."""
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(textwrap.dedent(code), "<migrated>", "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    return namespace, [str(w.message) for w in caught if "deprecat" in str(w.message).lower()]


def same_results(before: str, *pass_ids: str, names: tuple[str, ...]) -> dict[str, Any]:
    after = migrate(before, *pass_ids)
    old, old_warnings = run(before)
    new, new_warnings = run(after)
    assert old_warnings, "the legacy code should warn (else this test proves nothing)"
    assert new_warnings == [], after
    for name in names:
        assert torch.equal(old[name], new[name]), name
    return new


UPSAMPLE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(1, 2, 5, 7, generator=torch.Generator().manual_seed(0))
y1 = F.upsample(x, scale_factor=2, mode='bilinear', align_corners=False)
y2 = F.upsample_nearest(x, scale_factor=2)
y3 = F.upsample_bilinear(x, size=(9, 11))
y4 = F.upsample_bilinear(x, None, 2)
y5 = nn.UpsamplingBilinear2d(scale_factor=3)(x)
y6 = nn.UpsamplingNearest2d(size=(4, 4))(x)
"""


def test_upsample_and_upsampling_modules_give_identical_outputs() -> None:
    new = same_results(UPSAMPLE, "upsample-interpolate", "upsampling-modules", names=("y1", "y2", "y3", "y4", "y5", "y6"))
    # align_corners=True is what keeps upsample_bilinear's result: interpolate's default differs
    x = new["x"]
    assert not torch.equal(new["y3"], torch.nn.functional.interpolate(x, size=(9, 11), mode="bilinear"))
    assert type(new["y5"]) is torch.Tensor


LOSSES = """
import torch
import torch.nn as nn
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)
logits = torch.randn(6, 4, generator=g)
target = torch.randint(0, 4, (6,), generator=g)
logp = F.log_softmax(logits, 1)
a = torch.randn(6, 3, generator=g)
b = torch.randn(6, 3, generator=g)
l1 = nn.CrossEntropyLoss(size_average=False)(logits, target)
l2 = nn.MSELoss(reduce=False)(a, b)
l3 = F.nll_loss(logp, target, None, False)
l4 = F.l1_loss(a, b, size_average=True, reduce=True)
l5 = nn.NLLLoss(None, None, -100, False)(logp, target)
l6 = F.smooth_l1_loss(a, b, size_average=False, reduction='none')
l7 = nn.KLDivLoss(size_average=False)(logp, F.softmax(logits, 1))
l8 = F.binary_cross_entropy_with_logits(a, (b > 0).float(), size_average=False, reduce=True)
"""


def test_loss_flags_become_the_reduction_torch_derived() -> None:
    new = same_results(LOSSES, "loss-reduction", names=tuple(f"l{i}" for i in range(1, 9)))
    assert new["l2"].shape == (6, 3)  # reduce=False → "none": per element
    assert new["l1"].item() > new["l4"].item()  # sum vs mean


def test_legacy_flags_override_reduction_as_the_pass_assumes() -> None:
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        criterion = torch.nn.MSELoss(size_average=False, reduction="none")
    assert criterion.reduction == "sum"


INITS = """
import torch
import torch.nn as nn

torch.manual_seed(0)
w1 = nn.init.xavier_uniform(torch.empty(4, 5))
w2 = nn.init.kaiming_normal(torch.empty(4, 5), mode="fan_out")
w3 = nn.init.constant(torch.empty(3), 0.5)
w4 = nn.init.orthogonal(torch.empty(3, 3))
layer = nn.Linear(3, 2)
layer(torch.ones(1, 3)).sum().backward()
norm = nn.utils.clip_grad_norm(layer.parameters(), 0.1)
g = layer.weight.grad
"""


def test_init_and_clip_grad_norm_underscore_names() -> None:
    same_results(INITS, "init-underscore", names=("w1", "w2", "w3", "w4", "norm", "g"))


NLL2D = """
import torch
import torch.nn as nn
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)
logp = F.log_softmax(torch.randn(2, 3, 4, 4, generator=g), dim=1)
target = torch.randint(0, 3, (2, 4, 4), generator=g)
loss = nn.NLLLoss2d(ignore_index=1)(logp, target)
"""


def test_nllloss2d_is_nllloss() -> None:
    same_results(NLL2D, "nllloss2d", names=("loss",))


STFT = """
import torch

x = torch.randn(400, generator=torch.Generator().manual_seed(0))
window = torch.hann_window(64)
spec = torch.stft(x, 64, hop_length=16, window=window, return_complex=False)
"""


def test_stft_view_as_real_is_the_old_result() -> None:
    new = same_results(STFT, "stft-return-complex", names=("spec",))
    assert new["spec"].shape[-1] == 2 and not new["spec"].is_complex()


HOOKS = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
seen = []
model.register_backward_hook(lambda module, grad_input, grad_output: seen.append((grad_input, grad_output)))
model(torch.ones(5, 3, requires_grad=True)).sum().backward()
grad_output = seen[0][1][0]
grad_input = seen[0][0]
"""


def test_full_backward_hook_same_grad_output_other_grad_input() -> None:
    after = migrate(HOOKS, "register-backward-hook")
    old, old_warnings = run(HOOKS)
    new, new_warnings = run(after)
    assert old_warnings and new_warnings == []  # the non-full hook on a multi-node forward warns
    assert torch.equal(old["grad_output"], new["grad_output"])
    # the review note: grad_input is now the gradient of the module's input
    assert new["grad_input"][0].shape == (5, 3)
    assert [t.shape if t is not None else None for t in old["grad_input"]] != [t.shape for t in new["grad_input"]]
