"""Shared set-up for the SDK's specs: ``python3 -m pytest python/tests`` from the repository root.

The SDK under test is the one in this checkout (python/), never an installed copy; processes the
specs start (the replica runtime, the inspector's evaluator) get it on PYTHONPATH too.
"""

import os
import sys

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
SDK_DIR = os.path.dirname(TESTS_DIR)

# The SDK, and the specs' helpers (sluice_harness, import_cycles), whatever pytest's import mode.
for folder in (TESTS_DIR, SDK_DIR):
    if folder not in sys.path:
        sys.path.insert(0, folder)

import pytest  # noqa: E402 - after the SDK's folder is on sys.path

from sluice_harness import Replica, Service, write_files  # noqa: E402


@pytest.fixture
def start_replica(tmp_path):
    """``start_replica(source, symbol, files=..., env=...)``: a replica of main.py's ``symbol`` (not yet ready)."""
    started = []

    def start(source, symbol, files=None, entry_file="main.py", env=None, raw_env=None):
        folder = tmp_path / f"code-{len(started)}"
        folder.mkdir()
        write_files(str(folder), {entry_file: source, **(files or {})} if source is not None else dict(files or {}))
        replica = Replica(str(folder), symbol, entry_file=entry_file, env=env, raw_env=raw_env)
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.close()


@pytest.fixture
def serve():
    """``serve(handler)``: a local HTTP service (see sluice_harness.Service), closed after the test."""
    started = []

    def start(handler, port=0):
        service = Service(handler, port)
        started.append(service)
        return service

    yield start
    for service in started:
        service.close()


@pytest.fixture
def service_env(monkeypatch):
    """No service settings from the machine running the specs: each test sets its own."""
    for name in ("SLUICE_URL", "SLUICE_API_KEY", "SIEVE_API_URL", "SIEVE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch
