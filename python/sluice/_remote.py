"""Calling deployed functions: ``sluice.function.get("owner/name").run(...)`` and ``.push(...)``.

Inside a deployed function the runtime installs a caller that goes through the agent (the
replica protocol's ``call`` message: the child job is the parent's; ``await`` for a pushed one's
result), so a replica never needs the service's address or a key. Anywhere else, calls go to
the service's HTTP API (``sluice._client``), configured by SLUICE_URL / SLUICE_API_KEY or Sieve's
SIEVE_API_URL / SIEVE_API_KEY. Positional arguments map to the version's declared inputs, in order.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from sluice._client import FINAL_STATUSES, Client, decode_output
from sluice._media import decode_files

__all__ = ["Job", "RemoteCaller", "RemoteError", "RemoteFunction", "RemoteJob", "set_remote_caller"]

# ``caller(ref, inputs, wait, args)``: what ``run`` returns when ``wait`` is true (a streaming function's
# outputs as an iterator), else a RemoteJob.
RemoteCaller = Callable[[str, Dict[str, Any], bool, Tuple[Any, ...]], Any]  # typing's generics: Python 3.8 too
_remote_caller: Optional[RemoteCaller] = None
POLL_S = 0.25


def set_remote_caller(caller: Optional[RemoteCaller]) -> None:
    """Used by the runtime: how ``RemoteFunction.run`` and ``.push`` reach the service from a job."""
    global _remote_caller
    _remote_caller = caller


class RemoteError(Exception):
    """A called function failed (or its job was cancelled); ``error`` is its error text."""

    def __init__(self, function: str, error: str) -> None:
        super().__init__(f"{function} failed: {error}")
        self.function = function
        self.error = error


# ``watch(job_id, offset, until)``: the agent's answer to an await of a pushed job (see RemoteJob).
JobWatcher = Callable[[str, int, str], Dict[str, Any]]


class _StartOnWait(list):
    """A Future's waiter list that starts the wait when one is added: ``concurrent.futures.wait``
    and ``as_completed`` add their waiter there and call no method a subclass could override."""

    def __init__(self, start: Callable[[], None]) -> None:
        super().__init__()
        self._start = start

    def append(self, waiter: Any) -> None:
        self._start()
        super().append(waiter)


class RemoteJob(concurrent.futures.Future):
    """A job pushed from inside a deployed function, as Sieve's SDK hands one back: a
    ``concurrent.futures.Future`` of its result (what ``run`` would have returned), with
    ``job_id``, ``status`` and ``outputs``. Each question goes to the agent (an ``await``
    message); the agent waits for the result only once something asks for it, so a job pushed
    and never awaited costs nothing. ``stream``: the function streams (a generator), so its
    ``result()`` is an iterator of its outputs, as Sieve's is."""

    def __init__(self, function: str, job_id: str, watch: JobWatcher, value: Callable[[List[Any]], Any], stream: bool = False) -> None:
        super().__init__()
        self.function = function
        self.job_id = self.id = job_id
        self.stream = stream
        self._watch = watch
        self._value = value
        self._started = False
        self._start_lock = threading.Lock()
        self._waiters = _StartOnWait(self._start)
        self.set_running_or_notify_cancel()  # running: cancel() cannot pretend to stop the job

    @property
    def status(self) -> str:
        """The job's status now: queued, processing, finished, error or cancelled."""
        return str(self._watch(self.job_id, 0, "now").get("status"))

    @property
    def outputs(self) -> Iterator[Any]:
        """Each output as the job produces it (a streaming function's as they come), until it ends."""
        seen = 0
        while True:
            answer = self._watch(self.job_id, seen, "output")
            for output in answer.get("outputs") or []:
                seen += 1
                yield decode_files(output)
            if answer.get("status") in FINAL_STATUSES:
                if answer.get("status") != "finished":
                    raise _failure(self.function, answer)
                return

    def result(self, timeout: Optional[float] = None) -> Any:
        """What the function returned; for a streaming function, an iterator of its outputs: as
        they come (without a timeout), or once the job has ended within ``timeout``."""
        if self.stream and timeout is None:
            return self.outputs
        self._start()
        value = super().result(timeout)
        return iter(value) if self.stream else value

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        self._start()
        return super().exception(timeout)

    def done(self) -> bool:
        self._start()
        return super().done()

    def add_done_callback(self, fn: Callable[[concurrent.futures.Future], Any]) -> None:
        self._start()
        super().add_done_callback(fn)

    def _start(self) -> None:
        with self._start_lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._wait, name=f"sluice-job-{self.job_id}", daemon=True).start()

    def _wait(self) -> None:
        try:
            answer = self._watch(self.job_id, 0, "end")
        except BaseException as error:  # the agent refused (not this job's child) or is gone
            self.set_exception(error)
            return
        if answer.get("status") != "finished":
            self.set_exception(_failure(self.function, answer))
            return
        outputs = [decode_files(output) for output in answer.get("outputs") or []]
        self.set_result(outputs if self.stream else self._value(outputs))

    def __repr__(self) -> str:
        return f"<sluice.RemoteJob {self.job_id} of {self.function}>"


class Job(concurrent.futures.Future):
    """A job pushed over the API, as Sieve's SDK hands one back: a ``concurrent.futures.Future``
    that resolves to the function's result (so ``as_completed`` and ``wait`` work), with
    ``job_id``, ``status`` and ``outputs``, the outputs as they are produced. A streaming
    function's ``result()`` is an iterator of its outputs, as Sieve's is."""

    def __init__(self, client: Client, function: str, job_id: str, stream: bool) -> None:
        super().__init__()
        self.client = client
        self.function = function
        self.job_id = self.id = job_id
        self.stream = stream
        self.set_running_or_notify_cancel()
        threading.Thread(target=self._wait, name=f"sluice-job-{job_id}", daemon=True).start()

    @property
    def status(self) -> str:
        """The job's status now: queued, processing, finished, error or cancelled."""
        return str(self.job["status"])

    @property
    def job(self) -> Dict[str, Any]:
        """The job as the API shows it now."""
        return self.client.job(self.job_id)

    def result(self, timeout: Optional[float] = None) -> Any:
        """What the function returned; for a streaming function, an iterator of its outputs, as
        Sieve's is: as they come (without a timeout), or once the job has ended within ``timeout``."""
        if self.stream and timeout is None:
            return self.outputs
        value = super().result(timeout)
        return iter(value) if self.stream else value

    @property
    def outputs(self) -> Iterator[Any]:
        """Each output as the function produces it (a streaming function's as they come), until the job ends."""
        seen = 0
        while True:
            job = self.client.job(self.job_id, offset=seen)
            for output in job.get("outputs") or []:
                seen += 1
                yield decode_output(output)
            if job.get("status") in FINAL_STATUSES:
                if job.get("status") != "finished":
                    raise _failure(self.function, job)
                return
            time.sleep(POLL_S)

    def _wait(self) -> None:
        try:
            job = self.client.wait(self.job_id)
        except BaseException as error:  # the service unreachable, say: the future says so
            self.set_exception(error)
            return
        if job.get("status") != "finished":
            self.set_exception(_failure(self.function, job))
            return
        outputs = [decode_output(output) for output in job.get("outputs") or []]
        self.set_result(outputs if self.stream else (outputs[0] if outputs else None))

    def __repr__(self) -> str:
        return f"<sluice.Job {self.job_id} of {self.function}>"


def _failure(function: str, job: Dict[str, Any]) -> RemoteError:
    return RemoteError(function, str(job.get("error") or f"the job ended {job.get('status')}"))


@dataclass(frozen=True)
class RemoteFunction:
    """Another deployed function, as returned by ``sluice.function.get("owner/name")``.

    The inspector records each such name as a function dependency at deploy time.
    """

    ref: str

    def __call__(self, *args: Any, **inputs: Any) -> Any:
        """Sieve's 2023 spelling of ``run`` (``sieve.reference("owner/name")(inputs)``)."""
        return self.run(*args, **inputs)

    def run(self, *args: Any, webhooks: Optional[Sequence[Dict[str, str]]] = None, **inputs: Any) -> Any:
        """Run the function and wait for it: what it returned, or, for a streaming function, a
        generator of its outputs as they come. Raises RemoteError when it fails."""
        if _remote_caller is not None:
            _no_webhooks(webhooks)
            return _remote_caller(self.ref, inputs, True, args)
        job = self.push(*args, webhooks=webhooks, **inputs)
        return job.outputs if job.stream else job.result()

    def push(self, *args: Any, webhooks: Optional[Sequence[Dict[str, str]]] = None, **inputs: Any) -> Any:
        """Start the function without waiting: a Job (over the API), or a RemoteJob (in a job); both are
        futures of its result, with ``job_id``, ``status`` and ``outputs``."""
        if _remote_caller is not None:
            _no_webhooks(webhooks)
            return _remote_caller(self.ref, inputs, False, args)
        client = Client.from_environment()
        version = client.version(self.ref)
        pushed = client.push(self.ref, _named(self.ref, version, args, inputs), list(webhooks) if webhooks else None)
        return Job(client, self.ref, str(pushed["id"]), bool(pushed.get("stream_output", version.get("stream_output"))))


def _no_webhooks(webhooks: Optional[Sequence[Dict[str, str]]]) -> None:
    if webhooks:
        raise ValueError("webhooks= is for calls over the API; a job's calls to other functions take none")


def _named(ref: str, version: Dict[str, Any], args: Tuple[Any, ...], inputs: Dict[str, Any]) -> Dict[str, Any]:
    """Positional arguments named after the version's inputs, in order."""
    names: List[str] = [str(spec.get("name")) for spec in version.get("inputs") or []]
    if len(args) > len(names):
        raise TypeError(f"{ref} takes {len(names)} input{'s' if len(names) != 1 else ''} ({', '.join(names) or 'none'}), "
                        f"{len(args)} positional arguments were given")
    named = dict(zip(names, args))
    twice = sorted(set(named) & set(inputs))
    if twice:
        raise TypeError(f"{ref} got input {twice[0]!r} both by position and by name")
    return {**named, **inputs}
