"""Exceptions a function raises to tell the service how its job ended."""

from __future__ import annotations

__all__ = ["FatalException"]


class FatalException(Exception):
    """Ends the job in error and keeps the replica: it is not restarted, even with
    ``restart_on_error=True`` (the failure is the job's, e.g. a bad input, not the process's)."""
