"""The processes a job starts end with the job.

A process a job leaves running would print into whichever job runs next, which may belong to
another organization, and would hold the replica's resources after its job ended. So when a job
returns, every process started during it is killed; processes started before it (``__setup__``'s
servers) are left alone. Inside the sandbox the replica has a PID namespace of its own: every
process there other than its init (bwrap) and the runtime is the function's, daemons that left
the session included. Unconfined, the runtime's descendants count (a daemon that detached
itself escapes: the sandbox is what holds it).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Set

DEATH_WAIT_S = 1.0  # a killed process dies within milliseconds; this bounds the wait
_WALL = 0x40000000  # Linux's __WALL (os does not name it): waitid considers children of every kind


def _pids_in(folder: str) -> Set[int]:
    try:
        return {int(name) for name in os.listdir(folder) if name.isdigit()}
    except OSError:
        return set()


def _children(pid: int) -> Set[int]:
    """A process's children, from each of its threads' ``children`` list (a cheap read, no scan)."""
    found: Set[int] = set()
    for task in _pids_in(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as children:
                found.update(int(child) for child in children.read().split())
        except (OSError, ValueError):
            pass  # the thread or process ended meanwhile
    return found


def _childless() -> bool:
    """Whether this process has no child at all, in one system call instead of a walk of /proc.

    WNOWAIT: a finished child stays for its own waiter (subprocess's, say) to reap.
    """
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT | _WALL)
    except ChildProcessError:
        return True
    except (OSError, AttributeError):  # no waitid here, or the flag refused: walk instead
        return False
    return False


def _only_child_of_init(me: int) -> bool:
    """Whether the namespace's init has no child but the runtime, from one short read: its thread's
    ``children`` is "<pid> " per child, and a read shorter than asked for has reached the end."""
    expected = f"{me} ".encode("ascii")
    try:
        fd = os.open("/proc/1/task/1/children", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(fd, len(expected) + 1) == expected
    except OSError:
        return False
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    """Not yet dead: a zombie (state Z) has closed its files, and a reaped process is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            # The state follows the command name, which is in parentheses and may hold any character.
            return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _in_own_pid_namespace() -> bool:
    try:
        with open("/proc/1/comm", encoding="utf-8") as comm:
            return comm.read().strip() == "bwrap"
    except OSError:
        return False


class JobProcesses:
    def __init__(self) -> None:
        self.me = os.getpid()
        self.confined = os.path.isdir("/proc") and _in_own_pid_namespace()
        # bwrap, the namespace's init, runs one thread, so its children (the runtime, and the
        # processes orphaned to it) are all in that thread's list.
        self.init_single_threaded = self.confined and _pids_in("/proc/1/task") == {1}

    def current(self) -> Set[int]:
        """The function's processes now (never the runtime itself)."""
        if self.confined:
            # Every process of the namespace descends from its init. Asked in this order, a
            # process alive throughout is seen: when the runtime has no child, the init's
            # children are the runtime and the roots of whatever else lives.
            if self.init_single_threaded and _childless() and _only_child_of_init(self.me):
                return set()
            return _pids_in("/proc") - {1, self.me}
        if _childless():
            return set()
        ours: Set[int] = set()
        frontier = _children(self.me)
        while frontier:
            ours |= frontier
            frontier = set().union(*(_children(pid) for pid in frontier)) - ours
        return ours

    def end_started_since(self, before: Set[int]) -> None:
        """Kills them, and waits (briefly) until they are dead: their writes to the logs are over."""
        killed = self.current() - before
        for pid in killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # gone already
        deadline = time.monotonic() + DEATH_WAIT_S
        while any(_alive(pid) for pid in killed) and time.monotonic() < deadline:
            time.sleep(0.002)
