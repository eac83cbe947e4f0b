"""make_clip.py: writes a short MP4 to try video-thumbnails on, with PyAV and Pillow.

Each second of the clip is one solid colour, in the order of COLOURS (red, green, blue, white by
default), so a thumbnail shows at a glance which second it came from.

    python examples/video/make_clip.py clip.mp4 [fps]
"""

import sys

import av
from PIL import Image

COLOURS = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (235, 235, 235)]
SIZE = (320, 240)


def make_clip(path: str, fps: int = 12) -> None:
    with av.open(path, "w") as container:
        # MPEG-4 Part 2 is built into every FFmpeg, so any PyAV wheel can write it.
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height = SIZE
        stream.pix_fmt = "yuv420p"
        for second, colour in enumerate(COLOURS):
            for index in range(fps):
                frame = av.VideoFrame.from_image(Image.new("RGB", SIZE, colour))
                frame.pts = second * fps + index
                container.mux(stream.encode(frame))
        container.mux(stream.encode())


if __name__ == "__main__":
    make_clip(sys.argv[1], *(int(arg) for arg in sys.argv[2:3]))
