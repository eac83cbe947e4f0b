"""Value types a function author uses: ``Env`` (a declared environment variable) and ``File``.

Standard library only: these are imported inside function processes, where only the
author's own packages are installed.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from sluice._service import key_header_for

__all__ = ["Env", "File"]

#: How a File is marked inside dicts and lists, of inputs and outputs: ``{"_type": "sieve.File", "url": ...}``.
FILE_MARKER_KEY = "_type"
FILE_TYPES = ("sieve.File", "sluice.File")
#: Strings a positional File argument takes for a URL rather than a path.
URL_PREFIXES = ("http://", "https://", "data:")


@dataclass(frozen=True, init=False)
class Env:
    """An environment variable the function expects; the service shows it and sets its default.

    As in Sieve, one without a default (``default=None``) is required: a push must set it. A
    default that is not a string (``default=30``) is the string Python prints for it (``"30"``),
    since environment variables are strings. Other keywords of older Sieve SDKs (``is_secret``)
    are accepted and ignored.
    """

    name: str
    description: str = ""
    default: Optional[str] = None

    def __init__(self, name: str, description: str = "", default: Any = None, **_ignored: Any) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "default", default)

    def to_dict(self) -> Dict[str, Optional[str]]:
        return {"name": self.name, "description": self.description, "default": self.default}


class File:
    """A file input or output.

    Inputs arrive as local paths (the service's agent fetches their URLs before the job starts),
    so the author only reads ``.path``. A ``File`` made from a URL alone downloads lazily on the first
    ``.path`` access, which keeps ``File(url=...)`` cheap for code that only passes it along. As
    with Sieve's SDK, a positional argument that is an http(s) or data: URL is taken for the URL.
    """

    #: Attributes that travel with the file when it is returned or passed on (sluice._media's Image, Audio).
    TRAVELLING: Tuple[str, ...] = ()

    def __init__(self, path: str | os.PathLike[str] | None = None, *, url: str | None = None, **attributes: Any) -> None:
        if path is None and url is None:
            raise ValueError("File needs a path or a url")
        if url is None and isinstance(path, str) and path.startswith(URL_PREFIXES):
            path, url = None, path
        self._path: str | None = os.fspath(path) if path is not None else None
        self._url = url
        # Sieve code sets attributes of its own (sieve.Image(path=..., x0=10)) and reads them back
        # where the file arrives: they travel with it, as JSON.
        self._extra = tuple(attributes)
        self._given: Dict[str, Any] = {}  # values given for what is otherwise read from the content (a Video's fps)
        for name, value in attributes.items():
            if isinstance(getattr(type(self), name, None), property):
                self._given[name] = value
            else:
                setattr(self, name, value)

    @property
    def path(self) -> str:
        """A local path to the file's content, downloading it first when only a URL is known."""
        if self._path is None:
            self._path = self._download()
        return self._path

    @property
    def url(self) -> str | None:
        return self._url

    def travelling(self) -> Dict[str, Any]:
        """The attributes that go with the file (``frame_number``, ``fps``, its own...), those set."""
        names = (*self.TRAVELLING, *(name for name in self._extra if name not in self._given))
        found = {name: getattr(self, name) for name in names if getattr(self, name, None) is not None}
        given = {name: value for name, value in self._given.items() if value is not None}
        # A numpy number (a frame index from an array, say) as the plain number JSON holds.
        return {name: value.item() if callable(getattr(value, "item", None)) else value for name, value in {**found, **given}.items()}

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
        request = urllib.request.Request(self._url, headers=key_header_for(self._url))
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request) as response:  # noqa: S310
            shutil.copyfileobj(response, out)
        return target


def file_marker(file: File, **where: str) -> Dict[str, Any]:
    """A File as its JSON marker: its attributes, then ``_type`` and where it is (``url=``, or
    ``path=`` and ``name=``), which no attribute can take the place of."""
    return {**file.travelling(), FILE_MARKER_KEY: "sieve.File", **where}


def loaded_struct() -> Optional[type]:
    """sluice.Struct, if anything has used it yet: until then no value can be one, and its module
    (which imports pydantic) stays unimported."""
    return getattr(sys.modules.get("sluice._struct"), "Struct", None)


def is_file_marker(value: object) -> bool:
    return isinstance(value, dict) and value.get(FILE_MARKER_KEY) in FILE_TYPES
