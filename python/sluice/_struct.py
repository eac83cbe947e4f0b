"""``sluice.Struct`` (Sieve's ``sieve.Struct``): a typed record passed as a JSON object.

Subclasses declare fields with annotations (and defaults); an instance is built from keyword
arguments, and travels as a dict: a Struct output is its fields, and a dict input for a
parameter annotated with a Struct subclass arrives as an instance of it. Standard library only.
"""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["Struct"]


class Struct:
    """A record of named fields; ``to_dict()`` gives them as a dict (what a job's output shows)."""

    def __init__(self, **fields: Any) -> None:
        for klass in reversed(type(self).__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if not name.startswith("_") and name not in fields and hasattr(klass, name):
                    setattr(self, name, getattr(klass, name))
        for name, value in fields.items():
            setattr(self, name, value)

    def to_dict(self) -> Dict[str, Any]:
        return {name: _plain(value) for name, value in vars(self).items() if not name.startswith("_")}

    # Sieve's Struct is a pydantic model: the names its users call.
    dict = to_dict

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
