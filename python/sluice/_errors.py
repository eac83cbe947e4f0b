"""Exceptions a function raises to tell the service how its job ended."""

from __future__ import annotations

__all__ = ["FatalException"]


class FatalException(Exception):
    """Ends the job in error and restarts the replica, even with ``restart_on_error=False``, as
    Sieve's does: for failures that leave the process beyond repair (a corrupted GPU context),
    in a function that otherwise keeps its replica across failed jobs."""
