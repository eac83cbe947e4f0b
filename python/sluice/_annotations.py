"""What a parameter's annotation asks of an input, for the runtime: a File (which class) or a Struct.

Annotations may be postponed (strings): they are evaluated where the function was defined,
and read as text when that fails (``File | None`` on Python before 3.10).
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, Dict, Optional

from sluice._media import Array, Audio, Image, Video
from sluice._types import File, loaded_struct

__all__ = ["file_class", "struct_class"]

_FILE_ANNOTATION = re.compile(
    r"^(?:(?:typing\.)?Optional\[\s*(?:[\w.]+\.)?(?P<a>File|Image|Video|Audio|Array)\s*\]"
    r"|(?:[\w.]+\.)?(?P<b>File|Image|Video|Audio|Array)(?:\s*\|\s*None)?"
    r"|None\s*\|\s*(?:[\w.]+\.)?(?P<c>File|Image|Video|Audio|Array))$"
)
_BY_NAME = {"File": File, "Image": Image, "Video": Video, "Audio": Audio, "Array": Array}


def _evaluated(annotation: Any, namespace: Dict[str, Any]) -> Any:
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, dict(namespace), {})  # noqa: S307 - the author's own annotation
    except Exception:
        return annotation


def file_class(annotation: Any, namespace: Dict[str, Any]) -> Optional[type]:
    """The File class a parameter is (File, Image, Video or Audio, or Optional of one); None otherwise."""
    annotation = _evaluated(annotation, namespace)
    if isinstance(annotation, str):
        matched = _FILE_ANNOTATION.match(annotation.strip())
        return _BY_NAME[matched.group("a") or matched.group("b") or matched.group("c")] if matched else None
    if isinstance(annotation, type):
        return annotation if issubclass(annotation, File) else None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    annotated = getattr(typing, "Annotated", None)
    if annotated is not None and origin is annotated and args:
        return file_class(args[0], namespace)
    union_type = getattr(types, "UnionType", None)
    if origin is typing.Union or (union_type is not None and isinstance(annotation, union_type)):
        members = [a for a in args if a is not type(None)]
        return file_class(members[0], namespace) if len(members) == 1 else None
    return None


def struct_class(annotation: Any, namespace: Dict[str, Any]) -> Optional[type]:
    """The Struct subclass a parameter is annotated with, if any (a dict input becomes one)."""
    struct = loaded_struct()
    if struct is None:  # the function's module does not use Struct
        return None
    annotation = _evaluated(annotation, namespace)
    return annotation if isinstance(annotation, type) and issubclass(annotation, struct) else None
