"""Reads ``metadata=sieve.Metadata(...)`` as Sieve's function files write it.

The usual spelling reads the README beside the code: ``readme=open("README.md").read()``; the
inspector reads that file itself, from the function's folder only. ``image=sieve.Image(url=...)``
(or ``sieve.File("https://...")``) is the cover image's URL; an image given by path is put inline
as a data: URL. The value may be a module-level name bound to the ``Metadata(...)`` call. What is
computed by the module's code (a readme read into a variable, a path built with ``os.path``)
raises NotLiteral: the inspector then takes the value the module computes (``metadata_from``).
"""

from __future__ import annotations

import ast
import base64
import mimetypes
from pathlib import Path
from typing import Any, Callable, Dict

from sluice._inspect_names import Invalid, Names, NotLiteral, is_computed, literal
from sluice._metadata import METADATA_FIELDS, Metadata
from sluice._types import URL_PREFIXES

__all__ = ["metadata_from", "metadata_value"]

MAX_IMAGE_BYTES = 1_000_000
FILE_TYPES = ("sluice.File", "sluice.Image", "sluice.Video", "sluice.Audio")
Warn = Callable[[str], None]


class Place:
    """Where a function's files are: its own folder, within the folder being deployed."""

    def __init__(self, root: Path, folder: Path, warn: Warn) -> None:
        self.root = root
        self.folder = folder
        self.warn = warn

    def inside(self, relative: str) -> Path:
        path = (self.folder / relative).resolve()
        if not _is_within(path, self.root.resolve()):
            raise Invalid(f"{relative} is outside the function's folder: only its own files are read")
        return path

    def image_url(self, relative: str) -> str | None:
        """A local cover image as a data: URL; None (with a warning) when it is too large to keep inline."""
        path = self.inside(relative)
        try:
            content = path.read_bytes()
        except OSError as error:
            raise Invalid(f"metadata.image: cannot read {relative}: {error}") from None
        if len(content) > MAX_IMAGE_BYTES:
            self.warn(f"metadata.image: {relative} is over {MAX_IMAGE_BYTES // 1_000_000} MB, so the function has no cover "
                      "image; give its URL (sieve.Image(url=...)) to show one")
            return None
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return f"data:{kind};base64,{base64.b64encode(content).decode('ascii')}"


def metadata_value(node: ast.expr, names: Names, place: Place) -> Metadata | None:
    """The Metadata a decorator's ``metadata=`` names; NotLiteral when the module computes it."""
    if isinstance(node, ast.Name):
        if node.id not in names.assigned:
            raise NotLiteral(f"metadata is {node.id}, which this module does not assign at its top level")
        node = names.assigned[node.id]
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if not (isinstance(node, ast.Call) and names.resolve(node.func) == "sluice.Metadata"):
        if is_computed(node):
            raise NotLiteral(f"metadata is computed ({ast.unparse(node)})")
        raise Invalid(f"metadata must be sieve.Metadata(...) or None (got {ast.unparse(node)})")
    if node.args:
        raise Invalid("metadata: sieve.Metadata takes keyword arguments only, such as title=...")
    fields: Dict[str, object] = {}
    for keyword in node.keywords:
        if keyword.arg not in METADATA_FIELDS:  # as Sieve's Metadata (a pydantic model) ignores it
            place.warn(f"metadata: {keyword.arg}= is not a field of sieve.Metadata ({', '.join(METADATA_FIELDS)}); ignored")
        elif keyword.arg == "image":
            fields["image"] = _image(keyword.value, names, place)
        elif keyword.arg == "readme":
            fields["readme"] = _text(keyword.value, place)
        else:
            fields[keyword.arg] = literal(f"metadata.{keyword.arg}", keyword.value)
    return Metadata(**fields)  # type: ignore[arg-type] - normalize checks each field's type


def metadata_from(value: Any, place: Place) -> Metadata | None:
    """The Metadata the module computed, as sluice._evaluate gives it (a dict of its fields)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Invalid(f"metadata must be sieve.Metadata(...) or None (got {value!r})")
    fields = {key: value[key] for key in METADATA_FIELDS if key in value}
    image = fields.get("image")
    if isinstance(image, dict):
        url, path = image.get("url"), image.get("path")
        fields["image"] = url if isinstance(url, str) else place.image_url(path) if isinstance(path, str) else None
    return Metadata(**fields)  # type: ignore[arg-type]


def _text(node: ast.expr, place: Place) -> object:
    """A literal, or ``open("X").read()`` / ``Path("X").read_text()``: the file's text."""
    path = _read_call_path(node)
    if path is None:
        return literal("metadata.readme", node)
    try:
        return place.inside(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Invalid(f"metadata.readme: cannot read {path}: {error}") from None


def _read_call_path(node: ast.expr) -> str | None:
    """"X" for ``open("X", ...).read()`` or ``Path("X").read_text(...)``; None for anything else."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args):
        return None
    inner = node.func.value
    opener = {"read": ("open",), "read_text": ("Path", "pathlib.Path")}.get(node.func.attr)
    if opener is None or not isinstance(inner, ast.Call) or ast.unparse(inner.func) not in opener or not inner.args:
        return None
    first = inner.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _image(node: ast.expr, names: Names, place: Place) -> str | None:
    """The cover image's URL: ``sieve.Image(url=...)``, ``sieve.File("https://...")``, or a local image inline."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    if not (isinstance(node, ast.Call) and names.resolve(node.func) in FILE_TYPES):
        raise NotLiteral(f"metadata.image is computed ({ast.unparse(node)})")
    given = {k.arg: k.value for k in node.keywords}
    if node.args:  # as the SDK reads it: a URL, else a path
        first = node.args[0]
        url = isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith(URL_PREFIXES)
        given.setdefault("url" if url else "path", first)
    for key in ("url", "path"):
        value = given.get(key)
        if value is None:
            continue
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            raise NotLiteral(f"metadata.image's {key} is computed ({ast.unparse(value)})")
        return value.value if key == "url" else place.image_url(value.value)
    raise Invalid(f"metadata.image needs a url or a path (got {ast.unparse(node)})")


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents  # Path.is_relative_to is Python 3.9+
