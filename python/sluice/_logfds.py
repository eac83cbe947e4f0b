"""What file descriptors 1 and 2 reach: the agent's log pipes while a job runs, nothing between jobs.

sys.stdout and sys.stderr know which job the writing code works for (see _runtime.Attribution),
but native code (a C library's thread), ``os.write(1, ...)`` and ``sys.stdout.buffer`` write to
the descriptors directly. So the runtime keeps the agent's pipes on descriptors of its own and
points 1 and 2 at them only while a job runs. When the job returns, 1 and 2 are pointed at
/dev/null before the end marker goes out: a write that comes later, from whatever thread, is
dropped and never read as the next job's. A write already under way when they are switched (a
thread blocked on a full pipe while the agent catches up) still reaches the pipe, so the runtime
waits until no thread of the process is inside a write to 1 or 2 (their system calls, read from
/proc/self/task; not read at all when the only other thread is the protocol reader, which
writes no job's output) before it writes the marker.

Setup's output goes to the pipes as before (the version's log), and so do writes through
sys.stdout and sys.stderr of code that works for no job while no job runs (``idle_streams``).
"""

from __future__ import annotations

import fcntl
import io
import os
import platform
import struct
import sys
import termios
import threading
import time
from typing import AbstractSet, Any, Dict, List, Optional, Set

LOG_FDS = (1, 2)
TASKS = "/proc/self/task"  # one folder per thread of this process
WRITES_SETTLE_S = 5.0  # how long a write under way may hold the end marker back (the agent paused reading)
_POLL_S = 0.002

# The system calls that write through a descriptor given as their first argument.
_WRITE_SYSCALLS: Dict[str, Set[int]] = {
    "x86_64": {1, 18, 20, 296, 328},  # write, pwrite64, writev, pwritev, pwritev2
    "aarch64": {64, 66, 68, 70, 287},
}


def writes_under_way(fds: "tuple[int, ...]" = LOG_FDS, quiet: AbstractSet[str] = frozenset()) -> bool:
    """Whether a thread of this process is inside a write system call to one of ``fds``.

    A blocked call shows in /proc/self/task/<tid>/syscall as its number and arguments; one that
    is copying without blocking shows as running, and is over within microseconds. ``quiet``:
    ids of threads that never write to them, whose system calls are not read.
    """
    numbers = _WRITE_SYSCALLS.get(platform.machine())
    if numbers is None:
        return False
    try:
        tasks = os.listdir(TASKS)
    except OSError:
        return False
    me = str(threading.get_native_id())  # running this code, so in no write
    for task in tasks:
        if task == me or task in quiet:
            continue
        # Raw reads: a text file object costs twice as much, once per thread per job.
        try:
            fd = os.open(f"{TASKS}/{task}/syscall", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue  # the thread ended meanwhile
        try:
            fields = os.read(fd, 256).split()
        except OSError:
            continue
        finally:
            os.close(fd)
        if len(fields) >= 2 and fields[0].isdigit() and int(fields[0]) in numbers:
            try:
                if int(fields[1], 16) in fds:
                    return True
            except ValueError:
                pass
    return False


class LogDescriptors:
    """Descriptors 1 and 2, switched between the agent's pipes (during a job) and /dev/null."""

    def __init__(self) -> None:
        # Non-inheritable copies: processes a function starts get 1 and 2, never these.
        self.agent: Dict[int, int] = {fd: os.dup(fd) for fd in LOG_FDS}
        self.sink = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        self.idle_streams: List[io.TextIOWrapper] = [self._text_stream(fd) for fd in LOG_FDS]
        self.quiet: Set[str] = set()
        # /proc/self/task, kept open: Linux makes its link count 2 plus one per thread, so one
        # fstat tells whether any thread is there besides the caller and the quiet ones.
        try:
            self.tasks: Optional[int] = os.open(TASKS, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            self.tasks = None
        self.threads_counted = False  # whether that link count has been seen to count threads here

    def never_writes(self, native_id: int) -> None:
        """A thread of the runtime that writes no job's output for the rest of the process's life
        (the protocol reader): the end of a job does not wait on it."""
        self.quiet.add(str(native_id))
        # Two threads at least run now (this one and the main one): a count that matches the
        # listing then is the thread count, not a constant.
        try:
            self.threads_counted = self._threads() == len(os.listdir(TASKS)) >= 2
        except OSError:
            self.threads_counted = False

    def _threads(self) -> int:
        return os.fstat(self.tasks).st_nlink - 2 if self.tasks is not None else -1

    def others_quiet(self) -> bool:
        """Whether every thread but the calling one writes no job's output, from one fstat."""
        try:
            return self.threads_counted and self._threads() <= len(self.quiet) + 1
        except OSError:
            return False

    def _text_stream(self, fd: int) -> io.TextIOWrapper:
        like = sys.stdout if fd == 1 else sys.stderr
        encoding = getattr(like, "encoding", None) or "utf-8"
        errors = getattr(like, "errors", None) or "backslashreplace"
        return io.TextIOWrapper(io.FileIO(self.agent[fd], "w", closefd=False), encoding=encoding, errors=errors,
                                line_buffering=True, write_through=True)

    def job_started(self) -> None:
        for fd in LOG_FDS:
            os.dup2(self.agent[fd], fd)

    def job_ended(self, marker: Any, unless_read: bool = False) -> bool:
        """1 and 2 to /dev/null, the writes under way finished, then the marker on both pipes (a
        marker that is not one line of text is not written: the agent would never find it).

        ``unless_read``: no marker when the agent has already read every byte of both pipes, which
        is then what this answers (True): what the job wrote is in the agent's hands before the
        message that ends the job, so a marker would tell it nothing (and cost it two reads a job)."""
        for fd in LOG_FDS:
            os.dup2(self.sink, fd)
        deadline = time.monotonic() + WRITES_SETTLE_S
        while not self.others_quiet() and writes_under_way(quiet=self.quiet) and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        if unless_read and self.all_read():
            return True
        if not isinstance(marker, str) or not marker or "\n" in marker:
            return False
        for fd in LOG_FDS:
            try:
                # The agent also finds it at the end of a line that a write left unfinished.
                os.write(self.agent[fd], f"{marker}\n".encode("utf-8"))
            except OSError:  # the agent is gone
                pass
        return False

    def all_read(self) -> bool:
        """Whether the agent has read all that was written to its pipes: the sockets' queues of
        bytes sent and not yet read are empty (a pipe that is no socket cannot tell: False)."""
        for fd in LOG_FDS:
            try:
                unread = struct.unpack("i", fcntl.ioctl(self.agent[fd], termios.TIOCOUTQ, b"\0\0\0\0"))[0]
            except OSError:
                return False
            if unread != 0:
                return False
        return True

    def between_jobs(self, marker: Optional[str] = None) -> None:
        """After setup: until a job runs, what reaches 1 and 2 is dropped; setup's output ends with ``marker``."""
        self.job_ended(marker)
