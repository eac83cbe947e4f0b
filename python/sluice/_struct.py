"""``sluice.Struct`` (Sieve's ``sieve.Struct``): a typed record passed as a JSON object.

Sieve's Struct is a pydantic model, and so is this one wherever pydantic is installed (every
function environment has it by default): fields are validated and converted, and ``.dict()``,
``.json()``, ``model_dump()`` and validators work as in Sieve. Without pydantic (a client
program's environment, say) it is a plain record with the same constructor and ``.dict()``.
A Struct output is its fields; a dict input for a parameter annotated with a Struct subclass
arrives as an instance of it.

This module is imported only when ``Struct`` is first used (``sluice.__getattr__``), so a
function that does not use it does not pay for importing pydantic.
"""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["Struct"]

try:
    import pydantic
except ImportError:  # the plain record below
    pydantic = None  # type: ignore[assignment]


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


if pydantic is not None and hasattr(pydantic, "ConfigDict"):  # pydantic 2

    class Struct(pydantic.BaseModel):  # type: ignore[no-redef]
        """A record of named, validated fields; ``to_dict()`` (or ``dict()``) gives them as a dict."""

        # A sieve.File field, say; and Sieve code uses Struct(**fields) itself as a record, setting more later.
        model_config = pydantic.ConfigDict(arbitrary_types_allowed=True, extra="allow")

        def to_dict(self) -> Dict[str, Any]:
            return {name: _plain(value) for name, value in self}

        def dict(self, **_options: Any) -> Dict[str, Any]:  # type: ignore[override]
            return self.to_dict()

elif pydantic is not None:  # pydantic 1, for a version that pins it

    class Struct(pydantic.BaseModel):  # type: ignore[no-redef]
        """A record of named, validated fields; ``to_dict()`` (or ``dict()``) gives them as a dict."""

        class Config:
            arbitrary_types_allowed = True
            extra = "allow"

        def to_dict(self) -> Dict[str, Any]:
            return {name: _plain(value) for name, value in self}

else:

    class Struct:  # type: ignore[no-redef]
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
