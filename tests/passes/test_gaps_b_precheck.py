"""The catalog-gaps passes with common words (``names``, ``cross``, ``softmax``, ``torch.cat``, ``pipeline``) keep the
precheck's promise: a file that spells the word but cannot need the pass is never handed to libcst (transformers'
tree had 805 of its 2,912 files in play for ``named-tensors`` alone before their triggers were narrowed)."""

from __future__ import annotations

import textwrap

import pytest

from torchmigrate.core.registry import get_pass
from torchmigrate.python.precheck import relevant_passes

NOT_IN_PLAY = [
    ("named-tensors", "import torch\n\nnames = [n for n, _ in model.named_parameters()]\nfilenames = sorted(names)\n"),
    ("named-tensors", "import torch\n\nsd = {k.replace('a', 'b'): v for k, v in sd.items()}\nos.rename(src, dst)\n"),
    ("cross-implicit-dim", "import torch\n\nloss = torch.nn.CrossEntropyLoss()(x, y)\ncross_attention = True\n"),
    ("softmax-implicit-dim", "import torch.nn.functional as F\n\np = F.softmax(x, dim=-1)\nq = F.log_softmax(x, 1)\n"),
    ("cat-error-type", "import torch\n\ny = torch.cat([a, b])\n"),  # no handler at all
    ("cat-error-type", "import torch\n\ntry:\n    y = f(a)\nexcept RuntimeError:\n    pass\n"),  # no torch.cat
    ("pipeline-sync", "from transformers import pipeline\n\nnlp = pipeline('ner')\n"),
]

IN_PLAY = [
    ("named-tensors", "import torch\n\nx = torch.zeros(2, 3, names=('N', 'C'))\n"),
    ("named-tensors", "y = x.rename(None)\n"),
    ("cross-implicit-dim", "import torch\n\nn = (b - a).cross(c - a)\n"),
    ("softmax-implicit-dim", "import torch.nn.functional as F\n\np = F.softmax(x)\n"),
    ("softmax-implicit-dim", "import torch.nn as nn\n\nm = nn.Softmax(1)\n"),  # a module's one argument is dim: libcst decides
    ("cat-error-type", "import torch\n\ntry:\n    y = torch.cat(xs)\nexcept RuntimeError:\n    y = None\n"),
    ("pipeline-sync", "import torch\n\nm = torch.distributed.pipeline.sync.Pipe(seq)\n"),
]


@pytest.mark.parametrize(("pass_id", "code"), NOT_IN_PLAY)
def test_files_that_cannot_need_the_pass_are_not_parsed(pass_id: str, code: str) -> None:
    assert relevant_passes(textwrap.dedent(code), [get_pass(pass_id)]) == []


@pytest.mark.parametrize(("pass_id", "code"), IN_PLAY)
def test_files_that_may_need_it_are(pass_id: str, code: str) -> None:
    assert [p.id for p in relevant_passes(textwrap.dedent(code), [get_pass(pass_id)])] == [pass_id]
