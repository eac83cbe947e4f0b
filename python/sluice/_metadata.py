"""``sluice.Metadata``: how a function presents itself (Sieve's ``sieve.Metadata``).

Given as ``@sluice.function(metadata=sluice.Metadata(...))``, its fields fill the decorator's
own ``title``, ``description``, ``code_url``, ``tags``, ``readme`` and ``cover_image_url``
(from ``image``, a File with a URL). Standard library only, like the rest of the SDK.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = ["Metadata", "METADATA_FIELDS"]

# Metadata field -> the decorator option it fills.
METADATA_FIELDS: Dict[str, str] = {
    "title": "title",
    "description": "description",
    "code_url": "code_url",
    "tags": "tags",
    "readme": "readme",
    "image": "cover_image_url",
}


class Metadata:
    """A function's title, description, code link, cover image, tags and README text.

    Other keywords (``name=``, which some Sieve code passes) are accepted and ignored, as
    Sieve's Metadata, a pydantic model, ignores them; ``ignored`` names them.
    """

    def __init__(self, title: Optional[str] = None, description: Optional[str] = None, code_url: Optional[str] = None,
                 image: Any = None, tags: Optional[List[str]] = None, readme: Optional[str] = None, **ignored: Any) -> None:
        self.title = title
        self.description = description
        self.code_url = code_url
        self.image = image  # a sluice.File (or sieve.Image) made from a URL
        self.tags = tags
        self.readme = readme
        self.ignored = sorted(ignored)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metadata) and vars(self) == vars(other)

    def __repr__(self) -> str:
        fields = ", ".join(f"{field}={getattr(self, field)!r}" for field in METADATA_FIELDS if getattr(self, field) is not None)
        return f"Metadata({fields})"

    def options(self) -> Dict[str, object]:
        """The decorator options these fields stand for (unset fields left out)."""
        found: Dict[str, object] = {}
        for field, option in METADATA_FIELDS.items():
            value = getattr(self, field)
            if field == "image" and value is not None:
                value = getattr(value, "url", value)
            if value is not None:
                found[option] = value
        return found
