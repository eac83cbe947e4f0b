"""Sluice's Python SDK: declare functions for a Sluice service, in Sieve's style, and call them.

    import sluice

    @sluice.function(name="hello")
    def hello(name: str) -> str:
        return f"Hello, {name}."

    sluice.function.get("my-org/hello").run("Ada")  # from any program: SLUICE_URL, SLUICE_API_KEY

The same SDK is importable as ``sieve`` (Sieve's names), so Sieve function files and Sieve
client programs run unchanged. Only the standard library is used, because this package is
imported inside function processes (where only the author's packages are installed) and by
the deploy-time inspector.
"""

from sluice import gpu
from sluice._decorator import FunctionSpec, Model, RemoteError, RemoteFunction, RemoteJob, function, reference, workflow
from sluice._errors import FatalException
from sluice._metadata import Metadata
from sluice._remote import Job
from sluice._media import Array, Audio, Image, Video
from sluice._types import Env, File

__all__ = ["Array", "Audio", "Env", "FatalException", "File", "FunctionSpec", "Image", "Video", "Job", "Metadata", "Model", "RemoteError", "RemoteFunction",
           "RemoteJob", "Struct", "function", "gpu", "reference", "workflow"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Struct imports pydantic where it is installed: only for the code that uses it.
    if name == "Struct":
        from sluice._struct import Struct

        return Struct
    raise AttributeError(f"module 'sluice' has no attribute {name!r}")
