"""The replica's side of the agent protocol: JSON objects, one a line, on Unix stream sockets.

The agent (Node.js) starts the replica with a socket as file descriptor 3 (the protocol: every
message but ``run``) and one as file descriptor 4 (jobs: ``run`` only, from the agent). Each
carries one UTF-8 JSON object per '\\n'-terminated line. Jobs come on a socket of their own so
that the main thread, which runs them, reads them itself: handed over by the thread that reads
the protocol, each would cost two thread switches. stdout and stderr stay the function's logs,
so nothing here ever writes to them except a note on stderr about a malformed message.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
import threading
from typing import Any, Dict, Optional

__all__ = ["Channel", "ChannelClosed", "JOBS_FD", "PROTOCOL_FD", "exit_now", "flush_logs"]

PROTOCOL_FD = 3
JOBS_FD = 4

Message = Dict[str, Any]
# What one read takes from a socket at most: a message larger than this (a run's inline inputs) takes several.
RECEIVE_BYTES = 65536


class ChannelClosed(Exception):
    """The agent closed its end: nothing more can be sent."""


def flush_logs() -> None:
    """Flush stdout and stderr, so the agent reads a job's log lines before the message that follows."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed or broken log pipe must not stop the protocol
            pass


class Channel:
    """Newline-delimited JSON over a socket. send_lines() is thread-safe; receive() is for one reader thread."""

    def __init__(self, sock: socket.socket, poll_before_reading: bool = False) -> None:
        self._socket = sock
        self._received = bytearray()
        self._write_lock = threading.Lock()
        # A thread blocked in a socket's read is woken by every read the agent makes of what this
        # side wrote on the same socket (the kernel's "space to write" wake-up reaches readers too):
        # for the protocol socket, each job's done, a wake-up of a thread with nothing to read, that
        # the agent's thread pays for. A thread waiting in poll() for input sleeps through those.
        self._readable: Optional[select.poll] = None
        if poll_before_reading:
            self._readable = select.poll()
            self._readable.register(sock.fileno(), select.POLLIN)

    @classmethod
    def open(cls, fd: int = PROTOCOL_FD, poll_before_reading: bool = False) -> "Channel":
        sock = socket.socket(fileno=fd)  # family and type are read from the descriptor
        # Processes the function starts (os.system, fork/exec) must not keep the agent's socket open,
        # or the agent would not see this replica's end when it exits.
        sock.set_inheritable(False)
        sock.setblocking(True)
        return cls(sock, poll_before_reading)

    def send_lines(self, *lines: str) -> None:
        """Send already-encoded JSON objects (no newline inside), in one write: the agent wakes once
        for them. Raises ChannelClosed when the agent is gone."""
        data = ("\n".join(lines) + "\n").encode("utf-8")
        with self._write_lock:  # held only for the write itself: never while user code prints
            try:
                self._socket.sendall(data)
            except OSError as error:
                raise ChannelClosed(str(error)) from error

    def receive(self) -> Optional[Message]:
        """The next message, or None at end of stream. Lines that are not JSON objects are skipped."""
        while True:
            line = self._next_line()
            if not line:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line.decode("utf-8"))
            except ValueError:
                message = None
            if isinstance(message, dict):
                return message
            sys.stderr.write(f"sluice runtime: ignored a malformed protocol message: {line[:200]!r}\n")

    def _next_line(self) -> bytes:
        """The next line with its newline (at end of stream, what is left: b"" once nothing is)."""
        scanned = 0
        while True:
            end = self._received.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._received[: end + 1])
                del self._received[: end + 1]
                return line
            scanned = len(self._received)
            try:
                if self._readable is not None:
                    self._readable.poll()
                chunk = self._socket.recv(RECEIVE_BYTES)
            except OSError:
                return b""
            if not chunk:
                line = bytes(self._received)
                self._received.clear()
                return line
            self._received += chunk

    def stop_receiving(self) -> None:
        """Ends what receive() reads here, waking a thread blocked in it (sending still works)."""
        try:
            self._socket.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def close(self) -> None:
        try:
            self._socket.close()
        except OSError:
            pass


def exit_now(status: int) -> None:
    """End the process at once (other threads may be stuck in user code), logs flushed first."""
    flush_logs()
    os._exit(status)
