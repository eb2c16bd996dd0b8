"""Done-when for the catalog-gaps passes: a realistic legacy training script that mixes their forms (aliases, nested
calls, look-alike methods) migrates in one run to code that runs on torch 2.13 without a deprecation warning, gives
the results of a hand-written modern version, and is a fixed point of a second run."""

from __future__ import annotations

import sys
import textwrap
import types
import warnings
from typing import Any

from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

torch = torch_or_skip()

LEGACY = '''
import torch
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch._six import string_classes
from torch.nn.init import kaiming_normal
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


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up = nn.UpsamplingBilinear2d(scale_factor=2)
        kaiming_normal(self.conv.weight, mode="fan_out")
        nn.init.constant(self.conv.bias, 0.0)

    def upsample(self, x):  # a look-alike: a method of the model, not F.upsample
        return F.upsample(x, scale_factor=0.5, mode="nearest")

    def forward(self, x):
        return self.upsample(self.up(F.relu(self.conv(x))))


def train(seed):
    torch.manual_seed(seed)
    th.set_default_tensor_type(th.FloatTensor)
    model = Net()
    criterion = nn.NLLLoss2d(size_average=False)
    data = [torch.randn(3, 8, 8) for _ in range(6)]
    loader = DataLoader(data, batch_size=2, sampler=EvenFirst(data), prefetch_factor=2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, norms = [], []
    for x in loader:
        opt.zero_grad()
        logp = F.log_softmax(model(x), dim=1)
        target = torch.zeros(x.shape[0], 8, 8, dtype=torch.long)
        loss = criterion(logp, target) + F.mse_loss(logp.exp().sum(1), torch.ones(x.shape[0], 8, 8), reduce=True)
        loss.backward()
        norms.append(nn.utils.clip_grad_norm(model.parameters(), 1.0))
        opt.step()
        losses.append(loss.item())
    spec = torch.stft(torch.ones(64), 16, window=torch.hann_window(16), return_complex=False)
    flags = (torch.has_cuda, th.has_mkldnn, torch._utils.is_compiling(), isinstance("s", string_classes))
    return losses, norms, spec, flags


result = train(0)
'''

MODERN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Sampler


class EvenFirst(Sampler):
    def __init__(self, data_source):
        super().__init__()
        self.data_source = data_source

    def __iter__(self):
        n = len(self.data_source)
        return iter([*range(0, n, 2), *range(1, n, 2)])

    def __len__(self):
        return len(self.data_source)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        nn.init.kaiming_normal_(self.conv.weight, mode="fan_out")
        nn.init.constant_(self.conv.bias, 0.0)

    def forward(self, x):
        return F.interpolate(self.up(F.relu(self.conv(x))), scale_factor=0.5, mode="nearest")


def train(seed):
    torch.manual_seed(seed)
    torch.set_default_dtype(torch.float32)
    model = Net()
    criterion = nn.NLLLoss(reduction="sum")
    data = [torch.randn(3, 8, 8) for _ in range(6)]
    loader = DataLoader(data, batch_size=2, sampler=EvenFirst(data))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, norms = [], []
    for x in loader:
        opt.zero_grad()
        logp = F.log_softmax(model(x), dim=1)
        target = torch.zeros(x.shape[0], 8, 8, dtype=torch.long)
        loss = criterion(logp, target) + F.mse_loss(logp.exp().sum(1), torch.ones(x.shape[0], 8, 8), reduction="mean")
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        opt.step()
        losses.append(loss.item())
    spec = torch.view_as_real(torch.stft(torch.ones(64), 16, window=torch.hann_window(16), return_complex=True))
    flags = (torch.backends.cuda.is_built(), torch.backends.mkldnn.is_available(), torch.compiler.is_compiling(), True)
    return losses, norms, spec, flags


result = train(0)
'''


def run(code: str) -> tuple[Any, list[str]]:
    name = "gaps_b_mixed_snippet"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(code, "<migrated>", "exec"), module.__dict__)  # noqa: S102 - test code we wrote ourselves
    finally:
        del sys.modules[name]
    return module.__dict__["result"], [str(w.message) for w in caught if "deprecat" in str(w.message).lower()]


def test_a_legacy_script_migrates_in_one_run_and_matches_modern_code() -> None:
    legacy = textwrap.dedent(LEGACY)
    first = migrate_source(legacy, to="2.13", unsafe_fixes=True)
    assert first.error is None
    assert first.findings == [], first.findings
    applied = {e.pass_id for e in first.edits}
    assert applied >= {
        "torch-six",
        "sampler-init",
        "upsampling-modules",
        "upsample-interpolate",
        "init-underscore",
        "set-default-tensor-type",
        "loss-reduction",
        "nllloss2d",
        "prefetch-factor",
        "stft-return-complex",
        "has-backends",
        "is-compiling",
    }, applied
    assert "def upsample(self, x):" in first.code  # the look-alike method keeps its name
    second = migrate_source(first.code, to="2.13", unsafe_fixes=True)
    assert second.code == first.code and not second.edits and not second.findings

    try:
        (losses, norms, spec, flags), new_warnings = run(first.code)
        (ref_losses, ref_norms, ref_spec, ref_flags), _ = run(textwrap.dedent(MODERN))
    finally:
        torch.set_default_dtype(torch.float32)
    assert new_warnings == [], new_warnings
    assert losses == ref_losses
    assert all(torch.equal(a, b) for a, b in zip(norms, ref_norms, strict=True))
    assert torch.equal(spec, ref_spec)
    assert flags == ref_flags
