"""torchvision's video decoding and encoding is deprecated since torchvision 0.22 and gone from 0.26: use TorchCodec.

## What it does
Reports (no edit) each import and use of `torchvision.io.read_video`, `read_video_timestamps`, `write_video`,
`VideoReader`, `VideoMetaData` and the `torchvision.io.video` / `video_reader` / `_video_opt` modules, each with its
TorchCodec counterpart:

- `read_video(path)` → `torchcodec.decoders.VideoDecoder(path)` (frames by index or slice, `get_frames_in_range`,
  `get_frames_played_in_range(start_s, stop_s)`; NCHW by default where `read_video` gave THWC) and
  `torchcodec.decoders.AudioDecoder(path)` for the audio;
- `read_video_timestamps(path)` → `VideoDecoder(path).metadata` (and each frame's `pts_seconds`);
- `write_video(path, frames, fps)` → `torchcodec.encoders.VideoEncoder(frames, frame_rate=fps).to_file(path)` (frames
  N, C, H, W);
- `VideoReader(path)` → `torchcodec.decoders.VideoDecoder(path)`.

## Why
torchvision 0.22 (for torch 2.7) deprecated them ("The video decoding and encoding capabilities of torchvision are
deprecated from version 0.22 and will be removed in version 0.24. We recommend that you migrate to TorchCodec");
from 0.26 (for torch 2.11) the open-source build no longer has them (`torchvision/io/__init__.py` imports them from an
internal location only, so `from torchvision.io import read_video` raises `ImportError`).

## Fix safety
Finding only: TorchCodec returns frames in another layout and with other metadata, so the calling code changes too.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.removed import RemovedAPIs, removed_analyser

_IO = "torchvision.io"
_WHY = "torchvision's video I/O is deprecated since 0.22 and gone from 0.26"
REMOVED = {
    f"{_IO}.read_video": f"{_WHY}: use torchcodec.decoders.VideoDecoder(path) for the frames (NCHW, not THWC) and "
    "torchcodec.decoders.AudioDecoder(path) for the audio",
    f"{_IO}.read_video_timestamps": f"{_WHY}: use torchcodec.decoders.VideoDecoder(path).metadata (frames carry pts_seconds)",
    f"{_IO}.write_video": f"{_WHY}: use torchcodec.encoders.VideoEncoder(frames_nchw, frame_rate=fps).to_file(path)",
    f"{_IO}.VideoReader": f"{_WHY}: use torchcodec.decoders.VideoDecoder(path)",
    f"{_IO}.VideoMetaData": f"{_WHY}: use torchcodec.decoders.VideoDecoder(path).metadata",
    f"{_IO}.video": f"{_WHY}: use torchcodec.decoders.VideoDecoder / torchcodec.encoders.VideoEncoder",
    f"{_IO}.video_reader": f"{_WHY}: use torchcodec.decoders.VideoDecoder",
    f"{_IO}._video_opt": f"{_WHY}: use torchcodec.decoders.VideoDecoder",
}

PASS = Pass(
    since="1.8",
    id="torchvision-video-io",
    release="2.7",
    package="torchvision 0.22",
    kind=DEPRECATION,
    removed_in="2.11",
    safety=SAFE,
    title="torchvision.io.read_video / write_video / VideoReader → TorchCodec (finding)",
    evidence="torchvision 0.25 io/video.py and io/_video_deprecation_warning.py (warning text); 0.26 and 0.28 "
    "io/__init__.py (video names only from the internal fb location); torchcodec 0.17 decoders/encoders"
    "; finding only: emits no new form",
    qualnames=frozenset(REMOVED),
    examples=[
        Example(
            """
            import torchvision

            frames, audio, info = torchvision.io.read_video("clip.mp4", pts_unit="sec")
            """,
            findings=1,
        ),
        Example(
            title="from-imports are reported at the import",
            before="""
            from torchvision.io import VideoReader, read_image, write_video

            reader = VideoReader(path, "video")
            write_video("out.mp4", frames, fps=30)
            """,
            findings=2,
        ),
        Unchanged(
            """
            from torchvision.io import decode_jpeg, read_image

            try:
                from torchvision.io import read_video
            except ImportError:
                read_video = None
            """,
            title="image I/O stays; a guarded import is left alone",
        ),
    ],
)


@PASS.uses
class VideoIO(RemovedAPIs):
    REMOVED = REMOVED


PASS.analyse = removed_analyser(PASS.id, REMOVED)
