"""Helpers the specs share: the SDK's folder, an environment for processes that import it, a
local HTTP service, and a replica of ``python -m sluice._runtime`` started as the agent starts it.

The replica gets what shared/runtime/replica.ts gives it: cwd = the code folder, the protocol
socket on file descriptor 3 and the jobs socket on 4 (Unix stream sockets, one JSON object a
line), stdout and stderr as sockets too (Node's stdio pipes are socket pairs), and the entry
point in SLUICE_ENTRY_FILE and SLUICE_ENTRY_SYMBOL.
"""

import http.server
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any, Callable, Dict, List, Optional

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(SDK_DIR)
# The interpreter replicas run on: this one, unless SLUICE_PYTHON names another (as for the
# TypeScript harness), so the runtime can be tried on an older Python than pytest's.
REPLICA_PYTHON = os.environ.get("SLUICE_PYTHON") or sys.executable

Message = Dict[str, Any]


def sdk_env(**extra: str) -> Dict[str, str]:
    """The environment for a process that imports this checkout's SDK (and no service settings
    of the machine running the specs)."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SLUICE_", "SIEVE_")) and key != "PYTHONPATH"}
    env.update({"PYTHONPATH": SDK_DIR, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def write_files(folder: str, files: Dict[str, str]) -> None:
    for relative, content in files.items():
        path = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(textwrap.dedent(content).lstrip("\n") if relative.endswith(".py") else content)


# Puts the sockets it is given on descriptors 3 and 4, then becomes the runtime (same pid), as
# Node's spawn with stdio ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] does. Run with -S: it needs no site.
_LAUNCH = """
import fcntl, os, sys
given = [int(sys.argv[1]), int(sys.argv[2])]
high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in given]
os.dup2(high[0], 3)
os.dup2(high[1], 4)
for fd in set(given + high) - {3, 4}:
    os.close(fd)
os.execv(sys.argv[3], [sys.argv[3], "-m", "sluice._runtime"])
"""


class Replica:
    """One replica: ``send(message)``, ``next(type)`` for the next message of a type not yet
    taken, ``stdout()`` and ``stderr()`` for what it wrote so far, ``exited()`` for its status."""

    def __init__(self, folder: str, symbol: str, entry_file: str = "main.py", env: Optional[Dict[str, str]] = None,
                 raw_env: Optional[Dict[str, str]] = None) -> None:
        self.folder = folder
        self.protocol, protocol_child = socket.socketpair()
        self.jobs, jobs_child = socket.socketpair()
        self._out, out_child = socket.socketpair()
        self._err, err_child = socket.socketpair()
        environment = raw_env if raw_env is not None else sdk_env(
            SLUICE_ENTRY_FILE=entry_file, SLUICE_ENTRY_SYMBOL=symbol, SLUICE_ENTRY_KIND="function")
        environment.update(env or {})
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-S", "-c", _LAUNCH, str(protocol_child.fileno()), str(jobs_child.fileno()), REPLICA_PYTHON],
                cwd=folder, env=environment, stdin=subprocess.DEVNULL, stdout=out_child.fileno(), stderr=err_child.fileno(),
                pass_fds=(protocol_child.fileno(), jobs_child.fileno()), start_new_session=True)
        finally:
            for child_end in (protocol_child, jobs_child, out_child, err_child):
                child_end.close()
        self.received: List[Message] = []
        self._taken: set = set()
        self._changed = threading.Condition()
        self._closed = False
        self._logs = {"stdout": bytearray(), "stderr": bytearray()}
        threading.Thread(target=self._read_protocol, daemon=True).start()

    def _read_protocol(self) -> None:
        buffered = b""
        while True:
            try:
                chunk = self.protocol.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            with self._changed:
                self.received.extend(json.loads(line) for line in lines if line.strip())
                self._changed.notify_all()
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def send(self, message: Message) -> None:
        """Where the agent sends it: ``run`` on the jobs socket, the rest on the protocol socket."""
        (self.jobs if message.get("type") == "run" else self.protocol).sendall((json.dumps(message) + "\n").encode())

    def send_raw(self, data: bytes) -> None:
        self.protocol.sendall(data)

    def until(self, matches: Callable[[Message], bool], what: str, timeout: float = 10.0) -> Message:
        """The first message received that matches and was not taken yet (waits for it)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for index, message in enumerate(self.received):
                    if index not in self._taken and matches(message):
                        self._taken.add(index)
                        return message
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    raise AssertionError(f"no {what} ({'the replica closed fd 3' if self._closed else 'timed out'})\n"
                                         f"received: {self.received}\nstderr: {self.stderr()}")
                self._changed.wait(left)

    def next(self, kind: str, timeout: float = 10.0) -> Message:
        return self.until(lambda message: message.get("type") == kind, f"{kind} message", timeout)

    def ready(self) -> "Replica":
        self.next("hello")
        self.next("ready")
        return self

    def run(self, inputs: Dict[str, Any], job_id: str = "job-1", env: Optional[Dict[str, str]] = None, **fields: Any) -> Dict[str, Any]:
        """Sends a run and collects its outputs up to its done or error: {"outputs": [...], "end": message}."""
        self.send({"type": "run", "job_id": job_id, "run_id": f"run-{job_id}", "inputs": inputs, "env": env or {},
                   "end_marker": f"--end-of-{job_id}--", "max_output_bytes": 1_000_000, **fields})
        end = self.until(lambda m: m.get("job_id") == job_id and m.get("type") in ("done", "error"), f"the end of {job_id}")
        outputs = [m for m in self.received if m.get("type") == "output" and m.get("job_id") == job_id]
        return {"outputs": outputs, "values": [m.get("value") for m in outputs], "end": end}

    def _drain(self, name: str) -> str:
        sock = self._out if name == "stdout" else self._err
        sock.setblocking(False)
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                self._logs[name] += chunk
        except (BlockingIOError, OSError):
            pass
        return self._logs[name].decode("utf-8", "replace")

    def stdout(self) -> str:
        return self._drain("stdout")

    def stderr(self) -> str:
        return self._drain("stderr")

    def logs_until(self, name: str, matches: Callable[[str], bool], timeout: float = 10.0) -> str:
        """What the replica wrote to ``name`` ("stdout" or "stderr") once it matches (waits for it)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self._drain(name)
            if matches(text) or time.monotonic() > deadline:
                return text
            time.sleep(0.01)

    def exited(self, timeout: float = 10.0) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 9)
            except OSError:
                pass
            self.process.wait(5)
        for sock in (self.protocol, self.jobs, self._out, self._err):
            sock.close()


class Service:
    """A local HTTP service: ``handler(method, path, headers, body) -> (status, json_body or bytes,
    headers)``, or None to drop the connection without an answer; every request recorded in
    ``requests``; started in a thread, on 127.0.0.1 (on ``port``, else on a free one)."""

    def __init__(self, handler: Callable[[str, str, Dict[str, str], bytes], Any], port: int = 0) -> None:
        self.requests: List[Dict[str, Any]] = []
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {key.lower(): value for key, value in self.headers.items()}
                service.requests.append({"method": self.command, "path": self.path, "headers": headers, "body": body})
                answer = handler(self.command, self.path, headers, body)
                if answer is None:  # drop the connection without an answer
                    self.close_connection = True
                    return
                status, payload, *more = answer
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if isinstance(payload, bytes) else "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (more[0] if more else {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def paths(self) -> List[str]:
        return [f"{request['method']} {request['path']}" for request in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
