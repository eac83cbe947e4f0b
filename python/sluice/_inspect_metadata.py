"""Reads ``metadata=sieve.Metadata(...)`` statically, as Sieve's function files write it.

The usual spelling reads the README beside the code: ``readme=open("README.md").read()``; the
inspector reads that file itself (it never runs the code), from the function's folder only.
``image=sieve.Image(url=...)`` is the cover image's URL; an image given by path is put inline
as a data: URL. The value may be a module-level name bound to the ``Metadata(...)`` call.
"""

from __future__ import annotations

import ast
import base64
import mimetypes
from pathlib import Path

from sluice._inspect_names import Invalid, Names
from sluice._metadata import METADATA_FIELDS, Metadata

__all__ = ["metadata_value"]

MAX_IMAGE_BYTES = 1_000_000
FILE_TYPES = ("sluice.File", "sluice.Image")


def metadata_value(node: ast.expr, names: Names, root: Path, folder: Path) -> Metadata | None:
    if isinstance(node, ast.Name) and node.id in names.assigned:
        node = names.assigned[node.id]
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if not (isinstance(node, ast.Call) and names.resolve(node.func) == "sluice.Metadata"):
        raise Invalid(f"metadata must be sieve.Metadata(...) or a name bound to it at the top of the module "
                      f"(got {ast.unparse(node)})")
    if node.args:
        raise Invalid("metadata: sieve.Metadata takes keyword arguments only, such as title=...")
    fields: dict[str, object] = {}
    for keyword in node.keywords:
        if keyword.arg not in METADATA_FIELDS:
            raise Invalid(f'metadata: unknown field "{keyword.arg}" (use {", ".join(METADATA_FIELDS)})')
        if keyword.arg == "image":
            fields["image"] = _image(keyword.value, names, root, folder)
        elif keyword.arg == "readme":
            fields["readme"] = _text(keyword.value, root, folder)
        else:
            fields[keyword.arg] = _literal(keyword.arg, keyword.value)
    return Metadata(**fields)  # type: ignore[arg-type] - normalize checks each field's type


def _literal(field: str, node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise Invalid(f"metadata.{field} must be a literal value, not an expression ({ast.unparse(node)})") from None


def _text(node: ast.expr, root: Path, folder: Path) -> object:
    """A literal, or ``open("X").read()`` / ``Path("X").read_text()``: the file's text."""
    path = _read_call_path(node)
    if path is None:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise Invalid(f'metadata.readme must be a string or open("README.md").read() (got {ast.unparse(node)})') from None
    try:
        return _inside(root, folder, path).read_text(encoding="utf-8")
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


def _inside(root: Path, folder: Path, relative: str) -> Path:
    path = (folder / relative).resolve()
    if not path.is_relative_to(root.resolve()):
        raise Invalid(f"{relative} is outside the function's folder: only its own files are read")
    return path


def _image(node: ast.expr, names: Names, root: Path, folder: Path) -> str | None:
    """The cover image's URL: ``sieve.Image(url=...)``, or a local image inline as a data: URL."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    if not (isinstance(node, ast.Call) and names.resolve(node.func) in FILE_TYPES):
        raise Invalid(f'metadata.image must be sieve.Image(url="https://...") (got {ast.unparse(node)})')
    given = {k.arg: k.value for k in node.keywords}
    if node.args:
        given.setdefault("path", node.args[0])
    for key in ("url", "path"):
        value = given.get(key)
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value if key == "url" else _data_url(_inside(root, folder, value.value))
    raise Invalid(f"metadata.image needs a literal url= or path= (got {ast.unparse(node)})")


def _data_url(path: Path) -> str:
    try:
        content = path.read_bytes()
    except OSError as error:
        raise Invalid(f"metadata.image: cannot read {path.name}: {error}") from None
    if len(content) > MAX_IMAGE_BYTES:
        raise Invalid(f"metadata.image: {path.name} is over {MAX_IMAGE_BYTES // 1_000_000} MB; give its URL instead")
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(content).decode('ascii')}"
