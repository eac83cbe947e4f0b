"""Sieve's SDK names for Sluice's SDK: a Sieve function file (``import sieve``) deploys to Sluice
unchanged, and a Sieve client program runs against Sluice with SIEVE_API_URL and SIEVE_API_KEY
pointing at it. Every name here is the ``sluice`` object itself, so both spellings mix freely.
"""

from sieve import gpu
from sluice import (Audio, Env, FatalException, File, Image, Job, Metadata, Model, RemoteError, RemoteFunction, RemoteJob, Struct,
                    Video, __version__, function)

# Sieve's client hands back a "SieveFuture" from push(): here, the same Job.
SieveFuture = Job

__all__ = ["Audio", "Env", "FatalException", "File", "Image", "Job", "Metadata", "Model", "RemoteError", "RemoteFunction", "RemoteJob",
           "SieveFuture", "Struct", "Video", "function", "gpu"]
