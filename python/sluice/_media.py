"""Sieve's media Files: ``sieve.Image``, ``sieve.Video`` and ``sieve.Audio``.

Each is a File (the service types it as one) with what Sieve's SDK gives it:

- ``Image(path | url | array=ndarray, frame_number=, fps=)``: ``.array`` (a numpy array, BGR, as
  OpenCV reads it), ``.width``, ``.height``, ``.channels``. An Image made from an array is written
  to a PNG file the first time its ``.path`` is read (to be returned or passed on).
- ``Video(...)``: ``.fps``, ``.frame_count``, ``.width``, ``.height``, ``.channels``, ``.duration``.
- ``Audio(..., start_time=, end_time=)``: ``.sample_rate``, ``.channels``, ``.duration``.
- ``Array(path | url | array=ndarray)``: a .npy file, with ``.array``, ``.height``, ``.width``.

Any other keyword (``sieve.Image(path=..., x0=10)``) becomes an attribute that travels too.

``frame_number``, ``fps``, ``start_time`` and ``end_time`` travel with the file when it is
returned or passed to another function. What is read from the content is read when first
asked for, with what the function's environment has: OpenCV or Pillow for images, OpenCV or
ffprobe for videos, soundfile, the standard library (WAV) or ffprobe for audio.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, Optional, Tuple

from sluice._types import File, is_file_marker

__all__ = ["Array", "Audio", "Image", "Video", "decode_files", "file_from", "media_class"]


class Array(File):
    """Sieve's ``sieve.Array``: a numpy array kept as a .npy file, with ``.array``, ``.height`` and ``.width``.
    One made from an array is written to a file the first time its ``.path`` is read."""

    def __init__(self, path: Any = None, *, url: Optional[str] = None, array: Any = None, **attributes: Any) -> None:
        self._array = array
        unwritten = path is None and url is None and array is not None
        super().__init__("" if unwritten else path, url=url, **attributes)
        if unwritten:
            self._path = None

    @property
    def path(self) -> str:
        if self._path is None and self._url is None:
            self._path = self._write(self._array)
        return super().path

    @property
    def array(self) -> Any:
        if self._array is None:
            self._array = self._read(self.path)
        return self._array

    @staticmethod
    def _write(array: Any) -> str:
        fd, path = tempfile.mkstemp(prefix="sluice-array-", suffix=".npy")
        os.close(fd)
        _numpy().save(path, array)
        return path

    @staticmethod
    def _read(path: str) -> Any:
        return _numpy().load(path)

    height = property(lambda self: int(self.array.shape[0]))
    width = property(lambda self: int(self.array.shape[1]))


class Image(Array):
    """An image: an Array (as Sieve's is) kept as an image file, with ``.channels`` and its place
    in a video (``frame_number``, ``fps``). Its pixels are read and written as OpenCV does (BGR)."""

    TRAVELLING = ("frame_number", "fps")

    def __init__(self, path: Any = None, *, url: Optional[str] = None, array: Any = None,
                 frame_number: Optional[int] = None, fps: Optional[float] = None, **attributes: Any) -> None:
        super().__init__(path, url=url, array=array, **attributes)
        self.frame_number = frame_number
        self.fps = fps

    @staticmethod
    def _write(array: Any) -> str:
        return _write_image(array)

    @staticmethod
    def _read(path: str) -> Any:
        return _read_image(path)

    @property
    def channels(self) -> int:
        shape = self.array.shape
        return int(shape[2]) if len(shape) > 2 else 1


class Video(File):
    """A video: a File, with ``fps``, ``frame_count``, ``width``, ``height``, ``channels`` and ``duration`` read from it."""

    def __init__(self, path: Any = None, *, url: Optional[str] = None, **attributes: Any) -> None:
        super().__init__(path, url=url, **attributes)
        self._probed: Optional[Dict[str, float]] = None

    def _probe(self, key: str) -> float:
        if key in self._given:
            return self._given[key]
        if self._probed is None:
            self._probed = _probe_video(self.path)
        return self._probed[key]

    @property
    def cap(self) -> Any:
        """An OpenCV capture of the video (Sieve's ``Video.cap``); needs opencv-python-headless."""
        import cv2

        return cv2.VideoCapture(self.path)

    fps = property(lambda self: self._probe("fps"))
    frame_count = property(lambda self: int(self._probe("frame_count")))
    width = property(lambda self: int(self._probe("width")))
    height = property(lambda self: int(self._probe("height")))
    duration = property(lambda self: self._probe("duration"))
    channels = property(lambda self: 3)


class Audio(File):
    """A sound: a File, with the part of it meant (``start_time``, ``end_time``, seconds) and
    ``sample_rate``, ``channels`` and ``duration`` read from it."""

    TRAVELLING = ("start_time", "end_time")

    def __init__(self, path: Any = None, *, url: Optional[str] = None, start_time: Optional[float] = None,
                 end_time: Optional[float] = None, **attributes: Any) -> None:
        super().__init__(path, url=url, **attributes)
        self.start_time = start_time
        self.end_time = end_time
        self._probed: Optional[Tuple[int, int, float]] = None

    def _probe(self, index: int, key: str) -> Any:
        if key in self._given:
            return self._given[key]
        if self._probed is None:
            self._probed = _probe_audio(self.path)
        return self._probed[index]

    sample_rate = property(lambda self: self._probe(0, "sample_rate"))
    channels = property(lambda self: self._probe(1, "channels"))
    duration = property(lambda self: self._probe(2, "duration"))


def media_class(attributes: Dict[str, Any]) -> type:
    """The File class a file's travelling attributes say it was: an Image, an Audio, or a File."""
    if any(attributes.get(name) is not None for name in Image.TRAVELLING):
        return Image
    if any(attributes.get(name) is not None for name in Audio.TRAVELLING):
        return Audio
    return File


def file_from(value: Dict[str, Any], cls: Optional[type] = None) -> Any:
    """A File (of class ``cls``, else the one its attributes say) from how it travels:
    ``{"path", "url", "frame_number", ...}``; None when it names no file."""
    path, url = value.get("path"), value.get("url")
    if not isinstance(path, str) and not isinstance(url, str):
        return None
    attributes = {name: item for name, item in value.items() if name not in _NOT_ATTRIBUTES and name.isidentifier()
                  and not name.startswith("_") and item is not None}
    cls = cls or media_class(attributes)
    return cls(path if isinstance(path, str) else None, url=url if isinstance(url, str) else None, **attributes)


def decode_files(value: object) -> object:
    """The value with each File marked in its dicts and lists made a File (from the ``path`` the
    agent fetched it to, else its ``url``; an Image or Audio when its attributes say so)."""
    if is_file_marker(value):
        assert isinstance(value, dict)
        made = file_from(value)
        return value if made is None else made
    if isinstance(value, list):
        return [decode_files(item) for item in value]
    if isinstance(value, dict):
        return {key: decode_files(item) for key, item in value.items()}
    return value


# What a File's JSON holds besides its own attributes.
_NOT_ATTRIBUTES = {"path", "url", "name", "upload_id", "array"}


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("sieve.Image's array needs numpy: add numpy (and opencv-python-headless or pillow) "
                          "to python_packages") from None
    return numpy


def _read_image(path: str) -> Any:
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        pixels = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if pixels is None:
            raise ValueError(f"{path} is not an image OpenCV can read")
        return pixels
    numpy = _numpy()
    try:
        from PIL import Image as PillowImage
    except ImportError:
        raise ImportError("sieve.Image's array needs opencv-python-headless or pillow in python_packages") from None
    with PillowImage.open(path) as opened:
        pixels = numpy.asarray(opened)
    return pixels[..., ::-1].copy() if pixels.ndim == 3 and pixels.shape[2] in (3, 4) else pixels  # BGR, as OpenCV


def _write_image(array: Any) -> str:
    fd, target = tempfile.mkstemp(prefix="sluice-image-", suffix=".png")
    os.close(fd)
    try:
        import cv2

        if not cv2.imwrite(target, array):
            raise ValueError("OpenCV could not write the array as a PNG")
        return target
    except ImportError:
        pass
    numpy = _numpy()
    try:
        from PIL import Image as PillowImage
    except ImportError:
        raise ImportError("writing a sieve.Image made from an array needs opencv-python-headless or pillow in "
                          "python_packages") from None
    pixels = numpy.asarray(array)
    if pixels.ndim == 3 and pixels.shape[2] in (3, 4):
        pixels = pixels[..., ::-1]  # stored BGR, as OpenCV reads them
    PillowImage.fromarray(numpy.ascontiguousarray(pixels)).save(target)
    return target


def _ffprobe(path: str, stream: str) -> Dict[str, Any]:
    if shutil.which("ffprobe") is None:
        raise RuntimeError("reading this file's properties needs ffprobe: add ffmpeg to system_packages "
                           "(or opencv-python-headless, soundfile to python_packages)")
    ran = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                          "stream=avg_frame_rate,r_frame_rate,nb_frames,width,height,sample_rate,channels:format=duration",
                          "-of", "json", path], capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        raise ValueError(f"ffprobe cannot read {path}: {ran.stderr.strip()}")
    parsed = json.loads(ran.stdout)
    streams = parsed.get("streams") or [{}]
    return {**streams[0], "duration": float((parsed.get("format") or {}).get("duration") or 0)}


def _rate(text: str) -> float:
    top, _, bottom = text.partition("/")
    return float(top) / float(bottom or 1) if float(bottom or 1) else 0.0


def _probe_video(path: str) -> Dict[str, float]:
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        capture = cv2.VideoCapture(path)
        try:
            if capture.isOpened():
                fps = capture.get(cv2.CAP_PROP_FPS)
                frames = capture.get(cv2.CAP_PROP_FRAME_COUNT)
                return {"fps": fps, "frame_count": frames, "width": capture.get(cv2.CAP_PROP_FRAME_WIDTH),
                        "height": capture.get(cv2.CAP_PROP_FRAME_HEIGHT), "duration": frames / fps if fps else 0.0}
        finally:
            capture.release()
    probed = _ffprobe(path, "v:0")
    fps = _rate(probed.get("avg_frame_rate") or probed.get("r_frame_rate") or "0")
    frames = float(probed.get("nb_frames") or round(probed["duration"] * fps))
    return {"fps": fps, "frame_count": frames, "width": float(probed.get("width") or 0),
            "height": float(probed.get("height") or 0), "duration": probed["duration"]}


def _probe_audio(path: str) -> Tuple[int, int, float]:
    try:
        import soundfile

        info = soundfile.info(path)
        return int(info.samplerate), int(info.channels), float(info.duration)
    except ImportError:
        pass
    import wave

    try:
        with wave.open(path, "rb") as sound:
            rate = sound.getframerate()
            return rate, sound.getnchannels(), sound.getnframes() / rate
    except (wave.Error, EOFError):
        probed = _ffprobe(path, "a:0")
        return int(probed.get("sample_rate") or 0), int(probed.get("channels") or 0), probed["duration"]
