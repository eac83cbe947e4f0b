"""The replica runs as batch work for the kernel's scheduler (SCHED_BATCH).

The agent's one thread serves every job's requests and wakes a replica for each job. Under the
normal policy the replica it wakes preempts it, often on the agent's own core (a socket write is
a "sync" wakeup): the agent then waits while the replica runs, and every other job waits with it.
As batch work a replica gets the same share of the CPU (its nice value is unchanged) but never
preempts on wakeup: measured on a 2-core machine, no-op jobs ran 4-15% faster end to end, and the
replicas used less CPU per job. Set before anything else runs, so every thread and process the
function starts inherits it.
"""

from __future__ import annotations

import os


def run_as_batch_work() -> bool:
    """Whether the calling thread (and what it starts from now on) is now SCHED_BATCH. Any thread
    may lower itself to it; where the system has no such policy, or refuses, nothing changes."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except (OSError, AttributeError):
        return False
    return True
