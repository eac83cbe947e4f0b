"""Sieve's SDK names for Sluice's SDK: a Sieve function file (``import sieve``) deploys to Sluice
unchanged, and a Sieve client program runs against Sluice with SIEVE_API_URL and SIEVE_API_KEY
pointing at it. Every name here is the ``sluice`` object itself, so both spellings mix freely.
"""

from sieve import gpu
from sluice import (Array, Audio, Env, FatalException, File, Image, Job, Metadata, Model, RemoteError, RemoteFunction, RemoteJob,
                    Video, __version__, function, reference, workflow)

# Sieve's client hands back a "SieveFuture" from push(): here, the same Job.
SieveFuture = Job

__all__ = ["Array", "Audio", "Env", "FatalException", "File", "Image", "Job", "Metadata", "Model", "RemoteError", "RemoteFunction", "RemoteJob",
           "SieveFuture", "Struct", "Video", "function", "gpu", "reference", "workflow"]


def __getattr__(name: str) -> object:
    if name == "Struct":  # imported when first used, as sluice.Struct is
        from sluice._struct import Struct

        return Struct
    raise AttributeError(f"module 'sieve' has no attribute {name!r}")
