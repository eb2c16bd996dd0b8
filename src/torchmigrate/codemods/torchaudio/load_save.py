"""From torchaudio 2.9 `torchaudio.load` and `save` run on TorchCodec: torchcodec is required and results change.

## What it does
Reports (no edit) each call of `torchaudio.load` and `torchaudio.save`, saying what changed for that call:

- `load`: the `torchcodec` package (and FFmpeg) must be installed; the result is always `float32` in [-1, 1], so
  `normalize=False` (integer PCM before) is ignored; `buffer_size=` and `backend=` are ignored;
- `save`: `torchcodec` is required; the format follows the file name's extension, and `format=`, `encoding=`,
  `bits_per_sample=`, `buffer_size=`, `backend=` are ignored (`compression=` maps to the bit rate).

TorchCodec's own `AudioDecoder(path).get_all_samples()` / `AudioEncoder(samples, sample_rate=sr).to_file(path)` are
the recommended way on.

## Why
torchaudio 2.9 (for torch 2.9) made `load` / `save` aliases of `load_with_torchcodec` / `save_with_torchcodec`
("Because of the reliance on Torchcodec, the parameters normalize, buffer_size, and backend are ignored and accepted
only for backwards compatibility" — torchaudio 2.9 `__init__.py`); an environment without torchcodec raises
`ImportError` at the first call.

## Fix safety
Finding only: installing torchcodec is a dependency change, and code that relied on integer samples or a backend must
be looked at.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    since="1.8",
    id="torchaudio-load-save-torchcodec",
    release="2.9",
    package="torchaudio 2.9",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="torchaudio.load/save need torchcodec from 2.9; float32 output, normalize/backend ignored (finding)",
    evidence="torchaudio 2.9 wheel __init__.py (load/save docstrings: TorchCodec, ignored parameters); pytorch/audio#3902"
    "; finding only: emits no new form",
    examples=[
        Example(
            """
            import torchaudio

            wave, sr = torchaudio.load(path, normalize=False)
            torchaudio.save("out.wav", wave, sr, bits_per_sample=16)
            """,
            findings=2,
        ),
        Example(
            title="a from-import with an alias",
            before="""
            from torchaudio import load as load_audio

            wave, sr = load_audio(path, backend="soundfile")
            """,
            findings=1,
        ),
        Unchanged(
            """
            import torch
            import soundfile

            state = torch.load(path)
            data, sr = soundfile.read(path)
            """,
            title="other loads",
        ),
    ],
)

_IGNORED = {
    "torchaudio.load": ("buffer_size", "backend"),
    "torchaudio.save": ("format", "encoding", "bits_per_sample", "buffer_size", "backend"),
}


@PASS.rewrites_calls("torchaudio.load", "torchaudio.save")
def report(call: cst.Call, ctx: CallContext) -> None:
    name = ctx.qualname.rsplit(".", 1)[1]
    notes = []
    if name == "load":
        notes.append("it always returns float32 in [-1, 1]")
        normalize = kwarg(call, "normalize")
        if normalize is not None:
            notes.append("normalize= is ignored (normalize=False no longer gives integer samples)")
    else:
        notes.append("the format follows the file extension")
    ignored = [k for k in _IGNORED[ctx.qualname] if kwarg(call, k) is not None]
    if ignored:
        notes.append(f"{', '.join(k + '=' for k in ignored)} {'is' if len(ignored) == 1 else 'are'} ignored")
    ctx.finding(
        f"torchaudio.{name} uses TorchCodec from torchaudio 2.9: install torchcodec; {'; '.join(notes)} "
        f"(or use torchcodec.{'decoders.AudioDecoder' if name == 'load' else 'encoders.AudioEncoder'} directly)"
    )
    return None
