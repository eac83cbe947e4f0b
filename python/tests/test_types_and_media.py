"""The value types an author uses (sluice._types: Env, File; sluice._media: Image, Video, Audio,
Array) and how they travel as JSON: the ``{"_type": "sieve.File", ...}`` marker, and back."""

import dataclasses
import os
import shutil
import subprocess
import wave

import pytest

import sluice
from sluice._media import Array, Audio, Image, Video, _rate, decode_files, file_from, media_class
from sluice._types import Env, File, file_marker, is_file_marker

# --- Env -------------------------------------------------------------------------------------


def test_an_env_is_its_name_description_and_default_and_ignores_older_sieve_keywords():
    env = Env("TOKEN", "the API token", is_secret=True)
    assert env.to_dict() == {"name": "TOKEN", "description": "the API token", "default": None}
    assert Env(name="N", default=30).to_dict() == {"name": "N", "description": "", "default": 30}
    assert Env("A") == Env("A") and Env("A") != Env("B")


def test_an_env_cannot_be_changed_once_made():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Env("A").name = "B"


# --- File ------------------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["https://example.com/a.mp4", "http://example.com/a", "data:text/plain,hi"])
def test_a_file_made_from_a_url_string_is_that_url_not_a_path(given):
    made = File(given)
    assert (made.url, made._path) == (given, None)


def test_a_file_made_from_a_path_is_that_path_with_no_url(tmp_path):
    assert (File("local.txt").url, File("local.txt")._path) == (None, "local.txt")
    assert File(tmp_path / "x.bin")._path == str(tmp_path / "x.bin")  # any os.PathLike
    both = File("cache.mp4", url="https://example.com/a.mp4")
    assert (both.path, both.url) == ("cache.mp4", "https://example.com/a.mp4")


def test_a_file_needs_a_path_or_a_url():
    with pytest.raises(ValueError, match="File needs a path or a url"):
        File()


def test_a_file_opens_like_a_path(tmp_path):
    (tmp_path / "note.txt").write_text("hi")
    made = File(str(tmp_path / "note.txt"))
    with open(made) as opened:
        assert opened.read() == "hi"
    assert os.fspath(made) == str(tmp_path / "note.txt")


def test_files_are_equal_and_hash_alike_when_their_path_and_url_are():
    assert File("a") == File(path="a") and hash(File("a")) == hash(File("a"))
    assert File("a") != File("b") and File("a") != "a"
    assert File(url="https://x/a") == File("https://x/a")
    assert len({File("a"), File("a"), File("b")}) == 2


def test_a_files_repr_names_its_url_or_its_path():
    assert repr(File("https://x/a")) == "sluice.File(url='https://x/a')"
    assert repr(File("a.txt")) == "sluice.File(path='a.txt')"


def test_attributes_given_to_a_file_are_kept_and_travel_with_it_unless_none():
    made = File("a.png", x0=10, label="cat", missing=None)
    assert (made.x0, made.label, made.missing) == (10, "cat", None)
    assert made.travelling() == {"x0": 10, "label": "cat"}


def test_a_number_with_item_travels_as_the_plain_number_json_holds():
    class NumpyLike:  # what a numpy scalar offers
        def item(self):
            return 7

    assert File("a", frame=NumpyLike()).travelling() == {"frame": 7}


def test_a_data_url_file_is_decoded_to_a_local_file_without_the_network():
    made = File("data:text/plain;base64,aGVsbG8=")
    try:
        first = made.path
        with open(first, "rb") as content:
            assert content.read() == b"hello"
        assert made.path == first  # decoded once
    finally:
        os.unlink(made.path)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/a"])
def test_a_file_url_that_is_not_http_is_never_read(url):
    with pytest.raises(ValueError, match="must be http or https"):
        File(url=url).path


def test_a_url_file_downloads_on_first_path_with_the_urls_extension(serve, service_env):
    service = serve(lambda method, path, headers, body: (200, b"pixels"))
    made = File(url=service.url + "/outputs/photo.png")
    assert service.requests == []  # cheap until asked for
    try:
        assert made.path.endswith(".png")
        with open(made.path, "rb") as content:
            assert content.read() == b"pixels"
        made.path
        assert len(service.requests) == 1
    finally:
        os.unlink(made.path)


def test_a_download_from_the_configured_service_sends_its_api_key_and_no_other_download_does(serve, service_env):
    ours = serve(lambda method, path, headers, body: (200, b"ours"))
    theirs = serve(lambda method, path, headers, body: (200, b"theirs"))
    service_env.setenv("SIEVE_API_URL", ours.url + "/v2/")  # Sieve's variable, naming the /v2 base
    service_env.setenv("SIEVE_API_KEY", "secret")
    for url in (ours.url + "/v2/files/a.txt", theirs.url + "/a.txt"):
        os.unlink(File(url=url).path)
    assert ours.requests[0]["headers"].get("x-api-key") == "secret"
    assert "x-api-key" not in theirs.requests[0]["headers"]


# --- the JSON marker -------------------------------------------------------------------------


def test_a_file_marker_holds_its_attributes_then_its_type_and_where_it_is():
    marker = file_marker(Image("a.png", frame_number=2), path="/abs/a.png", name="a.png")
    assert marker == {"frame_number": 2, "_type": "sieve.File", "path": "/abs/a.png", "name": "a.png"}
    # Where it is cannot be taken over by an attribute of the same name.
    assert file_marker(File("a", url_note="x", name="attr"), url="https://u")["_type"] == "sieve.File"
    assert file_marker(File("a", name="attr"), name="real")["name"] == "real"


def test_both_sieve_and_sluice_markers_are_files_and_nothing_else_is():
    assert is_file_marker({"_type": "sieve.File", "url": "u"})
    assert is_file_marker({"_type": "sluice.File", "path": "p"})
    assert not is_file_marker({"_type": "other", "url": "u"})
    assert not is_file_marker({"url": "u"})
    assert not is_file_marker([{"_type": "sieve.File"}])


def test_decoding_makes_each_marked_file_in_dicts_and_lists_a_file_of_its_media_class():
    decoded = decode_files({
        "doc": {"_type": "sieve.File", "path": "/tmp/a", "url": "https://x/a"},
        "frames": [{"_type": "sieve.File", "url": "https://x/f.png", "frame_number": 3, "fps": 30}],
        "clip": {"_type": "sluice.File", "url": "https://x/c.wav", "start_time": 1.0},
        "plain": [1, "two", {"three": 3}],
        "nowhere": {"_type": "sieve.File", "name": "n"},
    })
    assert type(decoded["doc"]) is File and (decoded["doc"].path, decoded["doc"].url) == ("/tmp/a", "https://x/a")
    (frame,) = decoded["frames"]
    assert type(frame) is Image and (frame.frame_number, frame.fps, frame.url) == (3, 30, "https://x/f.png")
    assert type(decoded["clip"]) is Audio and decoded["clip"].start_time == 1.0
    assert decoded["plain"] == [1, "two", {"three": 3}]
    assert decoded["nowhere"] == {"_type": "sieve.File", "name": "n"}  # names no file: left as it is


def test_file_from_keeps_the_files_own_attributes_and_leaves_out_how_it_travelled():
    made = file_from({"path": "/p", "url": "https://u", "name": "n", "upload_id": "u1", "array": [1], "_type": "sieve.File",
                      "_private": 1, "not-an-identifier": 2, "unset": None, "label": "cat"})
    assert type(made) is File and made.travelling() == {"label": "cat"}
    assert file_from({"name": "n"}) is None
    assert file_from({"path": 3, "url": None}) is None
    assert type(file_from({"path": "/p", "frame_number": 1}, Video)) is Video


@pytest.mark.parametrize("attributes, expected", [
    ({"frame_number": 0}, Image), ({"fps": 24.0}, Image), ({"start_time": 0.5}, Audio), ({"end_time": 2}, Audio),
    ({"frame_number": None}, File), ({"label": "x"}, File), ({}, File),
])
def test_the_media_class_of_a_file_is_told_by_its_travelling_attributes(attributes, expected):
    assert media_class(attributes) is expected


def test_the_sdks_media_types_are_files_under_both_names():
    import sieve

    for name in ("File", "Image", "Video", "Audio", "Array"):
        assert getattr(sieve, name) is getattr(sluice, name)
        assert issubclass(getattr(sluice, name), File)


# --- media -----------------------------------------------------------------------------------


def test_an_image_carries_its_place_in_a_video_as_travelling_attributes():
    image = Image(url="https://x/f.png", frame_number=4, fps=25.0, x0=1)
    assert image.travelling() == {"frame_number": 4, "fps": 25.0, "x0": 1}
    assert Image("a.png").travelling() == {}


def test_a_videos_properties_given_when_it_is_made_are_not_read_from_the_content_and_travel():
    video = Video("/no/such/file.mp4", fps=30.0, frame_count=90, width=64, height=48, duration=3.0)
    assert (video.fps, video.frame_count, video.width, video.height, video.duration, video.channels) == (30.0, 90, 64, 48, 3.0, 3)
    assert video.travelling() == {"fps": 30.0, "frame_count": 90, "width": 64, "height": 48, "duration": 3.0}


def _wav(path, rate=8000, channels=2, frames=4000):
    with wave.open(str(path), "wb") as sound:
        sound.setnchannels(channels)
        sound.setsampwidth(2)
        sound.setframerate(rate)
        sound.writeframes(b"\0\0" * channels * frames)
    return str(path)


def test_an_audio_reads_its_sample_rate_channels_and_duration_from_a_wav(tmp_path):
    audio = Audio(_wav(tmp_path / "a.wav"), start_time=0.25, end_time=0.5)
    assert (audio.sample_rate, audio.channels, audio.duration) == (8000, 2, 0.5)
    assert audio.travelling() == {"start_time": 0.25, "end_time": 0.5}


def test_an_audios_given_properties_take_the_place_of_reading_them():
    audio = Audio("/no/such.wav", sample_rate=16000, channels=1, duration=2.0)
    assert (audio.sample_rate, audio.channels, audio.duration) == (16000, 1, 2.0)


@pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None, reason="needs ffmpeg and ffprobe")
def test_a_video_reads_its_frame_rate_size_and_length_from_the_file(tmp_path):
    target = str(tmp_path / "clip.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=10", "-pix_fmt", "yuv420p",
                    target], check=True, timeout=60)
    video = Video(target)
    assert (video.fps, video.frame_count, video.width, video.height) == (10.0, 10, 64, 48)
    assert video.duration == pytest.approx(1.0, abs=0.1)


@pytest.mark.parametrize("text, rate", [("30/1", 30.0), ("30000/1001", 30000 / 1001), ("25", 25.0), ("0/0", 0.0)])
def test_a_frame_rate_is_read_from_ffprobes_fraction(text, rate):
    assert _rate(text) == pytest.approx(rate)


def test_an_array_is_kept_as_a_npy_file_written_on_first_path_and_read_back():
    numpy = pytest.importorskip("numpy")
    pixels = numpy.arange(12).reshape(3, 4)
    made = Array(array=pixels)
    assert made._path is None  # not written until asked for
    try:
        assert made.path.endswith(".npy")
        assert (made.height, made.width) == (3, 4)
        again = Array(made.path)
        assert (again.array == pixels).all()
    finally:
        os.unlink(made.path)


def test_an_image_made_from_an_array_needs_an_image_library_to_be_written():
    numpy = pytest.importorskip("numpy")
    try:
        import cv2  # noqa: F401
        pytest.skip("OpenCV is installed: the image is written")
    except ImportError:
        pass
    try:
        import PIL  # noqa: F401
        pytest.skip("Pillow is installed: the image is written")
    except ImportError:
        pass
    image = Image(array=numpy.zeros((2, 2, 3), dtype="uint8"))
    assert image.channels == 3 and (image.height, image.width) == (2, 2)
    with pytest.raises(ImportError, match="needs opencv-python-headless or pillow"):
        image.path
