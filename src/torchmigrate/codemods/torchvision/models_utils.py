"""`torchvision.models.utils` was removed in torchvision 0.11: `load_state_dict_from_url` lives in `torch.hub`.

## What it does
Renames `torchvision.models.utils.load_state_dict_from_url` to `torch.hub.load_state_dict_from_url`, in imports and
uses: `from torchvision.models.utils import load_state_dict_from_url` →
`from torch.hub import load_state_dict_from_url`.

## Why
torchvision 0.11 (for torch 1.10) deleted `torchvision/models/utils.py`; the import raises `ModuleNotFoundError: No
module named 'torchvision.models.utils'` — one of the most reported breakages of old model-zoo code.

## Fix safety
Safe: the module was only a re-export (torchvision 0.10 `models/utils.py`: `from torch.hub import
load_state_dict_from_url`), so the very same function is called.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged

PASS = Pass(
    id="torchvision-models-utils",
    release="1.10",
    package="torchvision 0.11",
    kind=REMOVAL,
    safety=SAFE,
    since="1.8",
    title="torchvision.models.utils.load_state_dict_from_url → torch.hub.load_state_dict_from_url",
    evidence="torchvision 0.10 wheel models/utils.py (a re-export of torch.hub.load_state_dict_from_url); absent from the 0.11.1 wheel"
    "; since 1.8: torch.hub.load_state_dict_from_url (torch 1.9.0 wheel, torch/hub.py:496)",
    renames={"torchvision.models.utils.load_state_dict_from_url": "torch.hub.load_state_dict_from_url"},
    examples=[
        Example(
            """
            from torchvision.models.utils import load_state_dict_from_url

            state = load_state_dict_from_url(URL, progress=True)
            """,
            """
            from torch.hub import load_state_dict_from_url

            state = load_state_dict_from_url(URL, progress=True)
            """,
        ),
        Example(
            title="through the module",
            before="""
            import torch
            import torchvision.models.utils as tv_utils

            state = tv_utils.load_state_dict_from_url(URL, map_location="cpu")
            """,
            after="""
            import torch

            state = torch.hub.load_state_dict_from_url(URL, map_location="cpu")
            """,
        ),
        Unchanged("from torch.hub import load_state_dict_from_url\n\nload_state_dict_from_url(URL)\n", title="already torch.hub"),
    ],
)
