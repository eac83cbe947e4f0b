"""One replica of one function version: ``python -m sluice._runtime``.

The agent starts it with cwd = the version's code directory and names the entry point in
SLUICE_ENTRY_FILE (a relative .py path), SLUICE_ENTRY_SYMBOL and SLUICE_ENTRY_KIND
('function' or 'class'). File descriptors 3 and 4 are the protocol and jobs sockets (see
sluice._protocol); stdout and stderr are the function's logs.

Logs: a job's output ends with the end marker the agent sent with it, on stdout and on stderr,
so the agent knows where the job's lines stop; unless the agent has read all of it by the job's
end, which ``done`` or ``error`` then says (``output_read``). Writes through sys.stdout and sys.stderr are
attributed: a thread started during a job (or an asyncio task made in one) belongs to that job,
and what it writes once the job is over is dropped, never shown in another job's logs. File
descriptors 1 and 2 reach the agent's pipes only while a job runs (sluice._logfds), so what
native code writes to them after the job returned is dropped too.

Threads: the main thread imports the code, runs ``__setup__`` and every job (user code may
install signal handlers, which Python allows only there), reading each job from the jobs
socket itself; a daemon thread reads the protocol socket and dispatches: call results wake
the caller waiting for them, shutdown or end of stream ends the process.

Replica -> agent (protocol): hello, ready | setup_error, output*, done | error, call, await.
Agent -> replica: run (jobs), call_result, shutdown (protocol).
"""

from __future__ import annotations

import contextvars
import inspect
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback
import uuid
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from sluice._decorator import ATTRIBUTE, FunctionSpec, _streams
from sluice._entry import Entry, import_entry
from sluice._errors import FatalException
from sluice._logfds import LOG_FDS, LogDescriptors
from sluice._processes import JobProcesses
from sluice._protocol import JOBS_FD, PROTOCOL_FD, Channel, ChannelClosed, exit_now, flush_logs
from sluice._remote import RemoteError, RemoteJob, set_remote_caller
from sluice._scheduling import run_as_batch_work
from sluice._media import decode_files, file_from
from sluice._types import File, file_marker, loaded_struct

Message = Dict[str, Any]

MAX_TRACEBACK_FRAMES = 10
SHUTDOWN_GRACE_S = 5.0  # an idle replica exits cleanly; this bounds it (user threads, atexit hooks)
_RUNTIME_FILES = {os.path.normcase(os.path.abspath(__file__))}
_MISSING = object()

class Failure(Exception):
    """A failure found by the runtime itself, not raised in the function's code.

    Reported as "<Type>: <message>" with no traceback: the frames would all be the runtime's.
    """


class SetupError(Failure):
    """The entry point cannot be found or is not a function or class."""


class InputError(Failure):
    """A File input that is malformed or cannot be downloaded."""


class OutputError(Failure):
    """An output that cannot be sent: not JSON, or a File that does not exist."""


# --- errors ----------------------------------------------------------------------------------


def format_error(error: BaseException) -> str:
    """"<Type>: <message>" then the traceback's last frames, the runtime's own leading frames left out."""
    try:
        message = str(error)
    except Exception:  # the function's own exception may fail to print: its type still says what failed
        message = ""
    header = f"{type(error).__name__}: {message}" if message else type(error).__name__
    if isinstance(error, Failure):
        return header + "\n"
    tb = error.__traceback__
    while tb is not None and os.path.normcase(os.path.abspath(tb.tb_frame.f_code.co_filename)) in _RUNTIME_FILES:
        tb = tb.tb_next
    try:
        lines = traceback.format_exception(type(error), error, tb, limit=-MAX_TRACEBACK_FRAMES)
    except Exception:  # a broken __str__ or the like: the header is enough
        lines = []
    return header + "\n" + "".join(lines)


# --- whose output ----------------------------------------------------------------------------


_JOB: "contextvars.ContextVar[Optional[str]]" = contextvars.ContextVar("sluice_job", default=None)
_THREAD_JOB = "_sluice_job"  # set on each thread started during a job


class Attribution:
    """Which job the code writing now works for, and whether its writes may reach the logs.

    Code belongs to a job when it runs in the job's context (the main thread during the job, an
    asyncio task made in it) or in a thread started from such code. Code started outside any
    job (__setup__'s threads) belongs to none and writes to whichever job runs.
    """

    def __init__(self) -> None:
        self.running: Optional[str] = None
        self.lock = threading.RLock()

    def owner(self) -> Optional[str]:
        job = _JOB.get()
        return job if job is not None else getattr(threading.current_thread(), _THREAD_JOB, None)

    def reset_lock(self) -> None:
        self.lock = threading.RLock()

    def allows(self) -> bool:
        owner = self.owner()
        return owner is None or owner == self.running

    def install(self, logs: LogDescriptors) -> None:
        """Attribute sys.stdout, sys.stderr (and their ``buffer``), ``os.write`` to descriptors 1
        and 2, and every thread started from now on."""
        # A child forked while another thread writes must not inherit the lock held.
        os.register_at_fork(after_in_child=self.reset_lock)
        out, err = logs.idle_streams
        sys.stdout = AttributedStream(sys.stdout, self, out)  # type: ignore[assignment]
        sys.stderr = AttributedStream(sys.stderr, self, err)  # type: ignore[assignment]
        start = threading.Thread.start
        write = os.write
        attribution = self

        def write_owned(fd: int, data: Any) -> int:
            if fd in LOG_FDS and not attribution.allows():
                return len(data)  # its job is over: dropped, as through sys.stdout
            return write(fd, data)

        os.write = write_owned  # type: ignore[assignment]

        def start_owned(thread: threading.Thread) -> None:
            setattr(thread, _THREAD_JOB, attribution.owner())
            start(thread)

        threading.Thread.start = start_owned  # type: ignore[method-assign]


class AttributedStream:
    """A log stream that drops writes of code whose job is over; everything else is the stream's own.

    While no job runs, descriptors 1 and 2 reach nothing (sluice._logfds): what code of no job
    writes then (__setup__'s threads) goes to the agent's pipe through ``idle``.
    """

    def __init__(self, stream: Any, attribution: Attribution, idle: Any) -> None:
        self._stream = stream
        self._attribution = attribution
        self._idle = idle

    def write(self, text: str) -> int:
        with self._attribution.lock:
            if not self._attribution.allows():
                return len(text)
            if self._attribution.running is None:
                return self._idle.write(text)
            return self._stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self) -> Any:
        return AttributedBuffer(self._stream.buffer, self._attribution)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class AttributedBuffer:
    """A log stream's ``buffer``: bytes written by code whose job is over are dropped."""

    def __init__(self, buffer: Any, attribution: Attribution) -> None:
        self._buffer = buffer
        self._attribution = attribution

    def write(self, data: Any) -> int:
        with self._attribution.lock:
            if self._attribution.allows():
                return self._buffer.write(data)
        return len(data)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._buffer, name)


# --- the runtime -----------------------------------------------------------------------------


class _PendingCall:
    def __init__(self) -> None:
        self.answered = threading.Event()
        self.result: Optional[Message] = None


class Runtime:
    def __init__(self, channel: Channel, jobs: Channel, attribution: Attribution, logs: LogDescriptors) -> None:
        self.channel = channel
        self.jobs = jobs
        self.attribution = attribution
        self.logs = logs
        self.calls: Dict[str, _PendingCall] = {}
        self.calls_lock = threading.Lock()
        self.closed = False
        self.busy = False
        self.processes = JobProcesses()
        self.oversized: Optional[str] = None  # outputs too large to send inline (oversized_outputs)
        self.loop: Any = None  # an asyncio loop, made for the first async function

    # Messages out. Logs are flushed first and outside the write lock.

    def send(self, message: Message, *held: str) -> None:
        """Sends a message, after the lines ``held`` back to go out with it."""
        self.send_lines(*held, json.dumps(message, allow_nan=False, separators=(",", ":")))

    def send_lines(self, *lines: str) -> None:
        flush_logs()
        try:
            self.channel.send_lines(*lines)
        except ChannelClosed:
            exit_now(0)  # the agent is gone: nobody is left to report to

    # The reader thread.

    def read(self) -> None:
        # It writes no job's output (only the runtime's note about a malformed message): the end
        # of a job need not wait for its writes.
        self.logs.never_writes(threading.get_native_id())
        try:
            while True:
                message = self.channel.receive()
                if message is None:
                    break
                kind = message.get("type")
                if kind == "call_result":
                    self.answer(message)
                elif kind == "shutdown":
                    break
        except Exception:
            traceback.print_exc()
        self.stop()

    def answer(self, message: Message) -> None:
        with self.calls_lock:
            pending = self.calls.get(str(message.get("call_id")))
        if pending is not None:
            pending.result = message
            pending.answered.set()

    def stop(self) -> None:
        """Shutdown or end of stream: exit now if a job runs, else let the main thread end cleanly."""
        with self.calls_lock:
            self.closed = True
            pending = list(self.calls.values())
        for call in pending:  # a job waiting on another function would wait forever
            call.answered.set()
        if self.busy:
            exit_now(0)
        self.jobs.stop_receiving()  # the main thread, waiting for a job, reads the end and returns
        threading.Event().wait(SHUTDOWN_GRACE_S)
        exit_now(0)

    # Calls to other functions (RemoteFunction.run / .push), from any thread.

    def call_function(self, ref: str, inputs: Dict[str, Any], wait: bool = True, args: Tuple[Any, ...] = ()) -> Any:
        message: Message = {"type": "call", "function": ref, "inputs": inputs, "wait": wait}
        if args:  # named by the agent after the called version's inputs
            message["args"] = list(args)
        result = self.ask(ref, message)
        # The agent says whether the called version streams (a generator): as in Sieve's SDK, its
        # run() and push(...).result() are then iterators of its outputs, read as they come.
        stream = result.get("stream") is True
        if not wait or stream:
            job = RemoteJob(ref, str(result.get("job_id")), lambda *question: self.watch_job(ref, *question), _call_value, stream=stream)
            return job if not wait else job.outputs
        outputs = result.get("outputs")
        if not isinstance(outputs, list):
            return outputs
        return _call_value([decode_files(output) for output in outputs])

    def watch_job(self, ref: str, job_id: str, offset: int, until: str) -> Message:
        """The agent's answer to an await of a job this job pushed (see RemoteJob)."""
        return self.ask(ref, {"type": "await", "job_id": job_id, "offset": offset, "until": until})

    def ask(self, ref: str, message: Message) -> Message:
        """Sends a call or an await and waits for its call_result; RemoteError when it failed."""
        call_id = uuid.uuid4().hex
        try:
            line = json.dumps({**message, "call_id": call_id}, allow_nan=False, separators=(",", ":"), default=_call_input)
        except _UnpassableFile as error:
            raise TypeError(f"cannot call {ref}: {error}") from None
        except (TypeError, ValueError) as error:
            raise TypeError(f"the inputs for {ref} are not JSON-serialisable: {error}") from None
        pending = _PendingCall()
        with self.calls_lock:
            if self.closed:
                raise RemoteError(ref, "the replica is shutting down")
            self.calls[call_id] = pending
        try:
            self.send_lines(line)
            pending.answered.wait()
        finally:
            with self.calls_lock:
                self.calls.pop(call_id, None)
        result = pending.result
        if result is None:
            raise RemoteError(ref, "the replica is shutting down")
        if not result.get("ok"):
            raise RemoteError(ref, str(result.get("error") or "the call failed"))
        return result

    # The main thread.

    def serve(self) -> int:
        # Setup's output ends with this marker, as a job's does: the agent hands out no job before it.
        setup_marker = os.environ.pop("SLUICE_SETUP_END_MARKER", None)
        self.send({"type": "hello", "pid": os.getpid()})
        set_remote_caller(self.call_function)
        threading.Thread(target=self.read, name="sluice-protocol", daemon=True).start()
        try:
            entry = self.setup()
        except (Exception, SystemExit) as error:
            self.send({"type": "setup_error", "error": format_error(error)})
            exit_now(1)
        flush_logs()  # setup's lines, to the version's log
        self.logs.between_jobs(setup_marker)
        self.send({"type": "ready"})
        while True:
            message = self.jobs.receive()
            if message is None or message.get("type") == "shutdown":
                self.channel.stop_receiving()  # so the reader stops too, bounding the exit (stop)
                return 0
            if message.get("type") == "run":
                self.run_job(entry, message)

    def setup(self) -> Entry:
        cwd = os.getcwd()
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        entry_file = os.environ.get("SLUICE_ENTRY_FILE", "")
        symbol = os.environ.get("SLUICE_ENTRY_SYMBOL", "")
        if not entry_file or not symbol:
            raise SetupError("SLUICE_ENTRY_FILE and SLUICE_ENTRY_SYMBOL must name the function to run")
        module = import_entry(entry_file)
        target = getattr(module, symbol, _MISSING)
        if target is _MISSING:
            raise SetupError(f"{entry_file} defines no {symbol}")
        spec = getattr(target, ATTRIBUTE, None)
        if not isinstance(spec, FunctionSpec) or spec.target is not target:
            spec = None
        if inspect.isclass(target):
            instance = target()
            setup = getattr(instance, "__setup__", None)
            if callable(setup):
                self.wait_for(setup())
            predict = getattr(instance, "__predict__", None)
            if not callable(predict):
                raise SetupError(f"class {symbol} must define __predict__")
            return Entry(predict, spec.generator if spec else _streams(predict), spec is not None and spec.iterator_input)
        if not callable(target):
            raise SetupError(f"{symbol} in {entry_file} is not a function or a class")
        return Entry(target, spec.generator if spec else _streams(target), spec is not None and spec.iterator_input)

    def run_job(self, entry: Entry, message: Message) -> None:
        job_id = message.get("job_id")
        saved: Dict[str, Optional[str]] = {}
        held: List[str] = []
        self.busy = True
        started_before = self.processes.current()
        if self.oversized is not None:  # the last job's, stored by the agent by now
            shutil.rmtree(self.oversized, ignore_errors=True)
            self.oversized = None
        failure: Optional[BaseException] = None
        flush_logs()  # what was left buffered since the last job (sys.stdout.buffer, say) is dropped with it
        self.logs.job_started()
        with self.attribution.lock:
            self.attribution.running = str(job_id)
        owner = _JOB.set(str(job_id))
        try:
            env = message.get("env") or {}
            updates = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
            updates["SLUICE_JOB_ID"] = str(job_id)
            for name, value in updates.items():
                saved.setdefault(name, os.environ.get(name))
                os.environ[name] = value
            inputs = message.get("inputs") or {}
            args, kwargs = entry.arguments(inputs, lambda name, value: self.input_value(entry, name, value))
            limit = message.get("max_output_bytes")
            max_output_bytes = limit if isinstance(limit, int) and limit > 0 else None
            outputs = self.results(entry, args, kwargs)
            if isinstance(outputs, list):  # returned, not streamed: sent with the job's end, in one write
                held = [self.output_line(job_id, index, value, max_output_bytes) for index, value in enumerate(outputs)]
            else:
                for index, value in enumerate(outputs):
                    self.send_lines(self.output_line(job_id, index, value, max_output_bytes))
        except (Exception, SystemExit) as error:
            failure = error
        finally:
            _JOB.reset(owner)
            for name, previous in saved.items():
                if previous is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = previous
        # Before the end marker: whatever they printed is in the pipes ahead of it, so it is this job's.
        self.processes.end_started_since(started_before)
        end: Message = {"output_read": True} if self.end_output(message.get("end_marker")) else {}
        if failure is None:
            self.send({"type": "done", "job_id": job_id, **end}, *held)
        elif isinstance(failure, FatalException):  # the process's state is beyond repair: always a fresh replica
            self.send({"type": "error", "job_id": job_id, "error": format_error(failure), "fatal": True, **end})
        else:
            self.send({"type": "error", "job_id": job_id, "error": format_error(failure), **end})
        self.busy = False
        if isinstance(failure, SystemExit):  # the function asked the process to end
            code = failure.code
            exit_now(code if isinstance(code, int) else (0 if code is None else 1))

    def end_output(self, marker: Any) -> bool:
        """The job's output ends here: later writes of its code are dropped, and the marker tells the
        agent, unless it has read all of it already (True: the job's end says so, output_read)."""
        flush_logs()  # what the job's code left buffered is its own: to the pipes, ahead of the marker
        with self.attribution.lock:
            self.attribution.running = None
        return self.logs.job_ended(marker, unless_read=True)

    def input_value(self, entry: Entry, name: str, value: Any) -> Any:
        # The agent fetched every File input before the job came (under the service's address
        # policy) and sends {"path", "url"}: the runtime itself never reaches a URL a pusher chose.
        struct = entry.struct_params.get(name)
        if struct is not None and isinstance(value, dict):
            return struct(**value)
        if value is None:
            return value
        file_type = entry.file_type(name)
        if file_type is None:
            return decode_files(value)  # Files marked in dicts and lists, fetched by the agent
        if isinstance(value, dict) and isinstance(value.get("path"), str):
            return file_from(value, file_type)
        raise InputError(f"input {name} is a sluice.File the agent did not fetch (got {json.dumps(value)[:200]}); "
                         "declare it as sluice.File in the function's signature")

    def results(self, entry: Entry, args: List[Any], kwargs: Dict[str, Any]) -> Union[List[Any], Iterator[Any]]:
        """The job's outputs: a list when the function returned them (none or one), else an
        iterator that produces them as the function streams them."""
        result = self.wait_for(entry.call(*args, **kwargs))
        if inspect.isasyncgen(result):
            return self.iterate_async(result)
        if inspect.isgenerator(result):
            return result
        if entry.generator and result is None:
            return []
        if entry.generator and not isinstance(result, (str, bytes, dict)) and hasattr(result, "__iter__"):
            return iter(result)
        if result is None and entry.returns_none:
            return []
        return [result]

    def wait_for(self, value: Any) -> Any:
        if inspect.isawaitable(value):
            return self.event_loop().run_until_complete(value)
        return value

    def iterate_async(self, generator: Any) -> Iterator[Any]:
        loop = self.event_loop()
        try:
            while True:
                try:
                    item = loop.run_until_complete(generator.__anext__())
                except StopAsyncIteration:
                    return
                yield item
        finally:
            loop.run_until_complete(generator.aclose())

    def event_loop(self) -> Any:
        # One loop for the replica's life, so what __setup__ creates on it stays usable in jobs.
        if self.loop is None:
            import asyncio

            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        return self.loop

    def oversized_outputs(self) -> str:
        """A folder for outputs too large to send inline. The agent has stored a job's outputs
        before it hands the replica the next job, which empties the folder."""
        if self.oversized is None:
            self.oversized = tempfile.mkdtemp(prefix="sluice-outputs-")
        return self.oversized

    def output_line(self, job_id: Any, index: int, value: Any, max_output_bytes: Optional[int] = None) -> str:
        """The output message for a value, encoded."""
        head = {"type": "output", "job_id": job_id, "index": index}
        if isinstance(value, File):
            path = os.path.abspath(value.path)
            if not os.path.isfile(path):
                raise OutputError(f"output {index} is a sluice.File but {path} is not a file")
            attributes = value.travelling()
            travelling = {"attributes": attributes} if attributes else {}
            return json.dumps({**head, "file": path, "name": os.path.basename(path), **travelling}, separators=(",", ":"))
        try:
            encoded = json.dumps(value, allow_nan=False, separators=(",", ":"), default=lambda item: _output_json(index, item))
        except (TypeError, ValueError, RecursionError) as error:
            raise OutputError(
                f"output {index} is not JSON-serialisable ({type(value).__name__}): {error}; return str, int, "
                "float, bool, None, lists and dicts of these, or a sluice.File"
            ) from None
        if max_output_bytes is not None and len(encoded) > max_output_bytes:
            # Too large to travel inline: the agent stores it as a file output, as it would a sluice.File.
            name = f"output-{index}.json"
            path = os.path.join(self.oversized_outputs(), name)
            with open(path, "w", encoding="utf-8") as out:
                out.write(encoded)
            return json.dumps({**head, "file": path, "name": name}, separators=(",", ":"))
        line = json.dumps(head, separators=(",", ":"))
        return line[:-1] + ',"value":' + encoded + "}"


def _call_value(outputs: List[Any]) -> Any:
    """What a call of a function that does not stream returns: its return value, None when it
    returned nothing (no output). (A streaming function's outputs come as an iterator instead.)"""
    if not outputs:
        return None
    return outputs[0] if len(outputs) == 1 else outputs


def _output_json(index: int, value: Any) -> Any:
    """JSON for what an output holds beyond plain values: a Struct as its fields; a File (in a
    dict, list or tuple) marked, by its local path (the agent stores it and gives it a URL)
    or, for one known by URL only, that URL."""
    struct = loaded_struct()
    if struct is not None and isinstance(value, struct):
        return value.to_dict()
    if isinstance(value, File):
        local = value._path  # noqa: SLF001 - a URL-only File stays one: no download to send it on
        if local is None and value.url is not None:
            return file_marker(value, url=value.url)
        path = os.path.abspath(value.path)  # an Image made from an array is written now
        if not os.path.isfile(path):
            raise OutputError(f"output {index} holds a sluice.File but {path} is not a file")
        return file_marker(value, path=path, name=os.path.basename(path))
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _UnpassableFile(TypeError):
    """A File passed to another function that names no file."""


def _call_input(value: Any) -> Any:
    """JSON for a File passed to another function: its URL when it has one; else, for a file made
    here, its absolute path and name, which the agent stores for the called job (as Sieve's SDK
    uploads one) and replaces by a reference that job fetches: a job never takes a path."""
    struct = loaded_struct()
    if struct is not None and isinstance(value, struct):
        return value.to_dict()
    if isinstance(value, File):
        if value.url:
            return file_marker(value, url=value.url)
        path = os.path.abspath(value.path)
        if not os.path.isfile(path):
            raise _UnpassableFile(f"a sluice.File passed to another function names {path}, which is not a file")
        return file_marker(value, path=path, name=os.path.basename(path))
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _line_buffer_logs() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(line_buffering=True)
            except (ValueError, OSError):
                pass


def main() -> int:
    run_as_batch_work()
    _line_buffer_logs()
    try:
        channel = Channel.open(PROTOCOL_FD, poll_before_reading=True)
        jobs = Channel.open(JOBS_FD)
    except OSError as error:
        sys.stderr.write(f"sluice runtime: file descriptors 3 and 4 must be the agent's protocol and jobs sockets ({error}); "
                         "this module is started by the Sluice agent\n")
        return 2
    logs = LogDescriptors()
    attribution = Attribution()
    attribution.install(logs)
    return Runtime(channel, jobs, attribution, logs).serve()


if __name__ == "__main__":
    sys.exit(main())
