"""Value types a function author uses: ``Env`` (a declared environment variable) and ``File``.

Standard library only: these are imported inside function processes, where only the
author's own packages are installed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Audio", "Env", "File", "Image", "Video"]

#: How a File is marked inside dicts and lists, of inputs and outputs: ``{"_type": "sieve.File", "url": ...}``.
FILE_MARKER_KEY = "_type"
FILE_TYPES = ("sieve.File", "sluice.File")
#: Strings a positional File argument takes for a URL rather than a path.
_URL_PREFIXES = ("http://", "https://", "data:")


@dataclass(frozen=True)
class Env:
    """An environment variable the function expects; the service shows it and sets its default."""

    name: str
    description: str = ""
    default: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "description": self.description, "default": self.default}


class File:
    """A file input or output.

    Inputs arrive as local paths (the service's agent fetches their URLs before the job starts),
    so the author only reads ``.path``. A ``File`` made from a URL alone downloads lazily on the first
    ``.path`` access, which keeps ``File(url=...)`` cheap for code that only passes it along. As
    with Sieve's SDK, a positional argument that is an http(s) or data: URL is taken for the URL.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, url: str | None = None) -> None:
        if path is None and url is None:
            raise ValueError("File needs a path or a url")
        if url is None and isinstance(path, str) and path.startswith(_URL_PREFIXES):
            path, url = None, path
        self._path: str | None = os.fspath(path) if path is not None else None
        self._url = url

    @property
    def path(self) -> str:
        """A local path to the file's content, downloading it first when only a URL is known."""
        if self._path is None:
            self._path = self._download()
        return self._path

    @property
    def url(self) -> str | None:
        return self._url

    def __fspath__(self) -> str:
        # Lets a File go straight to open(), shutil, subprocess arguments and the like.
        return self.path

    def __repr__(self) -> str:
        if self._url is not None:
            return f"sluice.File(url={self._url!r})"
        return f"sluice.File(path={self._path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, File) and (self._path, self._url) == (other._path, other._url)

    def __hash__(self) -> int:
        return hash((self._path, self._url))

    def _download(self) -> str:
        # Imported here: urllib.request is slow to import and most processes never download.
        import shutil
        import tempfile
        import urllib.parse
        import urllib.request

        assert self._url is not None
        parsed = urllib.parse.urlparse(self._url)
        if parsed.scheme == "data":
            with urllib.request.urlopen(self._url) as response:  # noqa: S310 - decoded here, no network
                fd, target = tempfile.mkstemp(prefix="sluice-")
                with os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(response, out)
            return target
        if parsed.scheme not in ("http", "https"):  # never file:// or the like: a File's URL names a download
            raise ValueError(f"a sluice.File URL must be http or https, not {parsed.scheme or 'a path'}: {self._url!r}")
        suffix = os.path.splitext(parsed.path)[1]
        fd, target = tempfile.mkstemp(prefix="sluice-", suffix=suffix)
        request = urllib.request.Request(self._url, headers=_service_key_for(self._url))
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request) as response:  # noqa: S310
            shutil.copyfileobj(response, out)
        return target


def is_file_marker(value: object) -> bool:
    return isinstance(value, dict) and value.get(FILE_MARKER_KEY) in FILE_TYPES


def decode_files(value: object) -> object:
    """The value with each File marked in its dicts and lists made a File (from the ``path`` the
    agent fetched it to, else its ``url``)."""
    if is_file_marker(value):
        assert isinstance(value, dict)
        path, url = value.get("path"), value.get("url")
        if isinstance(path, str):
            return File(path, url=url if isinstance(url, str) else None)
        if isinstance(url, str):
            return File(url=url)
        return value
    if isinstance(value, list):
        return [decode_files(item) for item in value]
    if isinstance(value, dict):
        return {key: decode_files(item) for key, item in value.items()}
    return value


def _service_key_for(url: str) -> dict[str, str]:
    """The API key header for a URL of the service this program is configured for (an output file
    it serves), so a client reads its outputs as Sieve's do; nothing for any other address."""
    from sluice._client import Client

    client = Client.from_environment()
    if client.api_key and url.startswith(client.url + "/"):
        return {"X-API-Key": client.api_key}
    return {}


class Image(File):
    """Sieve's ``sieve.Image``: a File (the service types it as one)."""


class Video(File):
    """Sieve's ``sieve.Video``: a File (the service types it as one)."""


class Audio(File):
    """Sieve's ``sieve.Audio``: a File (the service types it as one)."""
