"""Sluice's Python SDK: declare functions for a Sluice service, in Sieve's style.

    import sluice

    @sluice.function(name="hello")
    def hello(name: str) -> str:
        return f"Hello, {name}."

Only the standard library is used, because this package is imported inside function
processes (where only the author's packages are installed) and by the deploy-time inspector.
"""

from sluice import gpu
from sluice._decorator import FunctionSpec, RemoteError, RemoteFunction, RemoteJob, function
from sluice._types import Env, File

__all__ = ["Env", "File", "FunctionSpec", "RemoteError", "RemoteFunction", "RemoteJob", "function", "gpu"]
__version__ = "0.1.0"
