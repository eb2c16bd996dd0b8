"""torchaudio 2.9 removed its I/O backends, `sox_effects`, `io`, `kaldi_io`, `prototype` and `info`: findings.

## What it does
Reports (no edit) each import and use of what torchaudio 2.8 deprecated and 2.9 removed, with what replaces it:

| removed | instead |
|---|---|
| `torchaudio.info`, `AudioMetaData` | `torchcodec.decoders.AudioDecoder(path).metadata` (`sample_rate`, `num_channels`, `duration_seconds`) |
| `set_audio_backend`, `get_audio_backend`, `list_audio_backends`, `torchaudio.backend`, `torchaudio._backend` | nothing to choose any more: `load`/`save` use TorchCodec; drop the calls |
| `torchaudio.sox_effects` | `torchaudio.transforms` / `torchaudio.functional` (`Resample`, `Vol`, `Speed`, `Fade`, `lowpass_biquad`, …) |
| `torchaudio.io.StreamReader` / `StreamWriter` | `torchcodec.decoders.AudioDecoder` / `VideoDecoder`, `torchcodec.encoders.AudioEncoder` / `VideoEncoder` |
| `torchaudio.io.AudioEffector`, `play_audio`, `CodecConfig` | no replacement in torchaudio (FFmpeg filters: call FFmpeg; playback: another library) |
| `torchaudio.functional.apply_codec` | a round trip through `torchcodec.encoders.AudioEncoder(...).to_tensor(format)` and `AudioDecoder` |
| `torchaudio.kaldi_io` | the `kaldi_io` package it wrapped (convert its numpy arrays with `torch.from_numpy`) |
| `torchaudio.utils.sox_utils`, `ffmpeg_utils` | nothing: they configured the removed backends |
| `torchaudio.utils.download_asset` | `torch.hub.download_url_to_file(url, path)` |
| `torchaudio.prototype` | no replacement: copy what you use from torchaudio 2.8's sources |

## Why
"Starting with version 2.8, we are refactoring TorchAudio to transition it into a maintenance phase": torchaudio 2.8
deprecated these APIs (each warned "… It will be removed from the 2.9 release", pytorch/audio#3902) and torchaudio 2.9
(for torch 2.9) removed them ("APIs deprecated in version 2.8 have been removed in 2.9"); the imports fail.

## Fix safety
Finding only: the replacements live in another package (TorchCodec) or in other functions with other arguments.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.removed import RemovedAPIs, removed_analyser

_GONE = "removed in torchaudio 2.9"
_BACKENDS = f"{_GONE}: there are no I/O backends any more (torchaudio.load/save use TorchCodec); drop the call"
_METADATA = f"{_GONE}: use torchcodec.decoders.AudioDecoder(path).metadata (sample_rate, num_channels, duration_seconds)"
_CODEC = "torchcodec.decoders.AudioDecoder / VideoDecoder"
REMOVED = {
    "torchaudio.info": _METADATA,
    "torchaudio.AudioMetaData": _METADATA,
    "torchaudio.set_audio_backend": _BACKENDS,
    "torchaudio.get_audio_backend": _BACKENDS,
    "torchaudio.list_audio_backends": _BACKENDS,
    "torchaudio.backend": f"{_GONE} with the I/O backends: use torchaudio.load/save (TorchCodec) or torchcodec directly",
    "torchaudio._backend": f"{_GONE} with the I/O backends: use torchaudio.load/save (TorchCodec) or torchcodec directly",
    "torchaudio.sox_effects": f"{_GONE}: use torchaudio.transforms / torchaudio.functional (Resample, Vol, Speed, Fade, "
    "lowpass_biquad, …) or run sox yourself",
    "torchaudio.io": f"{_GONE}: decode with {_CODEC}, encode with torchcodec.encoders.AudioEncoder / VideoEncoder",
    "torchaudio.io.StreamReader": f"{_GONE}: use {_CODEC} (torchcodec)",
    "torchaudio.io.StreamWriter": f"{_GONE}: use torchcodec.encoders.AudioEncoder / VideoEncoder",
    "torchaudio.io.AudioEffector": f"{_GONE}, with no replacement in torchaudio: apply the FFmpeg filter with FFmpeg itself",
    "torchaudio.io.play_audio": f"{_GONE}, with no replacement in torchaudio: play audio with another library",
    "torchaudio.io.CodecConfig": f"{_GONE}: pass the codec settings to torchcodec.encoders.AudioEncoder.to_file(...)",
    "torchaudio.functional.apply_codec": f"{_GONE}: encode with torchcodec.encoders.AudioEncoder(waveform, sample_rate=sr)"
    ".to_tensor(format) and decode the result with torchcodec.decoders.AudioDecoder",
    "torchaudio.kaldi_io": f"{_GONE}: use the kaldi_io package it wrapped (torch.from_numpy on its arrays)",
    "torchaudio.utils.sox_utils": f"{_GONE} with the sox backend: drop the configuration calls",
    "torchaudio.utils.ffmpeg_utils": f"{_GONE} with the FFmpeg backend: drop the configuration calls",
    "torchaudio.utils.download_asset": f"{_GONE} (now private): download with torch.hub.download_url_to_file(url, path)",
    "torchaudio.prototype": f"{_GONE}, with no replacement: copy the code you use from torchaudio 2.8's sources",
}

PASS = Pass(
    since="1.8",
    id="torchaudio-removed-apis",
    release="2.9",
    package="torchaudio 2.9",
    kind=REMOVAL,
    safety=SAFE,
    title="torchaudio 2.9 removals: backends, sox_effects, io.StreamReader/Writer, kaldi_io, prototype, info (findings)",
    evidence="torchaudio 2.8 wheel (dropping_support / dropping_io_support deprecations, pytorch/audio#3902) and 2.9 "
    "wheel (the modules and names are gone); torchaudio 2.9 docs: 'APIs deprecated in version 2.8 have been removed in 2.9'"
    "; finding only: emits no new form",
    qualnames=frozenset(REMOVED),
    examples=[
        Example(
            """
            import torchaudio

            meta = torchaudio.info(path)
            torchaudio.set_audio_backend("soundfile")
            """,
            findings=2,
        ),
        Example(
            title="from-imports and a module alias",
            before="""
            from torchaudio.io import StreamReader
            import torchaudio.sox_effects as sox

            reader = StreamReader(src)
            out, sr = sox.apply_effects_tensor(wave, 16000, [["gain", "-n"]])
            """,
            findings=2,
        ),
        Unchanged(
            """
            import torchaudio
            from torchaudio import transforms

            spec = transforms.MelSpectrogram(16000)(wave)
            resampled = torchaudio.functional.resample(wave, 44100, 16000)
            info = self.info(path)
            """,
            title="what torchaudio 2.9 keeps; look-alikes",
        ),
    ],
)


@PASS.uses
class RemovedTorchaudio(RemovedAPIs):
    REMOVED = REMOVED


PASS.analyse = removed_analyser(PASS.id, REMOVED)
