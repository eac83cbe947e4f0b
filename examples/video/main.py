"""video-thumbnails: JPEG thumbnails spread evenly through a video, with PyAV (FFmpeg) and Pillow.

Inputs:
    video   a video file in any container and codec FFmpeg reads (MP4, MOV, MKV, WebM, ...)
    count   how many thumbnails, 1 to 32 (default 4)
    width   each thumbnail's width in pixels, 16 to 1920 (default 320); the height keeps the
            frame's aspect ratio

Outputs (streamed: each thumbnail is an output of its own, in time order, as soon as it is made):
    a JPEG ``sluice.File`` named ``thumb-<n>-<seconds>s.jpg``, the frame shown at the middle of
    the n-th of ``count`` equal parts of the video

    npx sluice deploy examples/video

To make a clip to try it on: ``python examples/video/make_clip.py clip.mp4`` (needs av and pillow).
"""

import os
import tempfile
from typing import Iterator

import av
from PIL import Image

import sluice


@sluice.function(
    name="video-thumbnails",
    title="Video thumbnails",
    description="JPEG thumbnails spread evenly through a video (PyAV and Pillow).",
    tags=["example", "video"],
    python_packages=["av", "pillow"],
    readme=(
        "# video-thumbnails\n\n"
        "Streams `count` JPEG thumbnails, `width` pixels wide, each the frame at the middle of an "
        "equal part of `video`.\n"
    ),
)
def video_thumbnails(video: sluice.File, count: int = 4, width: int = 320) -> Iterator[sluice.File]:
    """Thumbnails of a video, evenly spaced in time.

    :param video: the video to take frames from
    :param count: how many thumbnails (1 to 32)
    :param width: thumbnail width in pixels (16 to 1920); the height keeps the aspect ratio
    :return: one JPEG file per thumbnail, streamed in time order
    """
    if not 1 <= count <= 32:
        raise ValueError(f"count must be between 1 and 32 (got {count})")
    if not 16 <= width <= 1920:
        raise ValueError(f"width must be between 16 and 1920 (got {width})")
    folder = tempfile.mkdtemp()
    with av.open(video.path) as container:
        if not container.streams.video:
            raise ValueError("the file has no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        duration = _duration_seconds(container, stream)
        for index in range(count):
            at = duration * (index + 0.5) / count
            image = _frame_at(container, stream, at).to_image()
            height = max(1, round(width * image.height / image.width))
            path = os.path.join(folder, f"thumb-{index + 1}-{at:.2f}s.jpg")
            image.resize((width, height), Image.Resampling.LANCZOS).save(path, "JPEG", quality=85)
            yield sluice.File(path)


def _duration_seconds(container, stream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    raise ValueError("the video does not say how long it is")


def _frame_at(container, stream, seconds: float):
    """The frame shown at `seconds`: seek to the keyframe before it, then decode forward to it."""
    container.seek(int(seconds / stream.time_base), stream=stream, backward=True)
    shown = None
    for frame in container.decode(stream):
        if shown is not None and frame.time is not None and frame.time > seconds:
            break
        shown = frame
    if shown is None:
        raise ValueError(f"no frame could be decoded at {seconds:.2f} s")
    return shown


if __name__ == "__main__":
    # Runs without the service: python examples/video/main.py clip.mp4
    import sys

    for thumbnail in video_thumbnails(sluice.File(sys.argv[1])):
        print(thumbnail.path)
