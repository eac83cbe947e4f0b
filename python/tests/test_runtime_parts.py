"""The runtime's parts, called directly: how errors are reported (format_error), how outputs and
call inputs are encoded, how an entry point's signature turns a job's inputs into arguments
(sluice._entry, sluice._annotations), the processes a job leaves (sluice._processes), batch
scheduling, and the build's import check (sluice._check_import)."""

import json
import os
import subprocess
import sys
import threading
import time
from typing import Optional, Union

import pytest

import sieve
import sluice
from sluice._annotations import file_class, struct_class
from sluice._entry import Entry, import_entry
from sluice._logfds import writes_under_way
from sluice._processes import JobProcesses, _alive
from sluice._runtime import (Failure, InputError, OutputError, Runtime, SetupError, _call_input, _call_value, _UnpassableFile,
                             format_error)
from sluice._scheduling import run_as_batch_work
from sluice_harness import sdk_env, write_files

# --- errors ----------------------------------------------------------------------------------


def raise_from_user_code():
    raise KeyError("missing")


def test_an_error_is_its_type_and_message_then_its_traceback():
    try:
        raise_from_user_code()
    except KeyError as error:
        text = format_error(error)
    assert text.startswith("KeyError: 'missing'\nTraceback (most recent call last):\n")
    assert "in raise_from_user_code" in text and text.endswith("KeyError: 'missing'\n")


def test_an_error_without_a_message_is_its_type_alone():
    assert format_error(Failure()) == "Failure\n"
    try:
        raise RuntimeError()
    except RuntimeError as error:
        assert format_error(error).startswith("RuntimeError\nTraceback")


@pytest.mark.parametrize("failure", [SetupError("no f"), InputError("bad input"), OutputError("bad output")])
def test_a_failure_the_runtime_found_itself_has_no_traceback(failure):
    try:
        raise failure
    except Failure as error:
        assert format_error(error) == f"{type(failure).__name__}: {failure}\n"


def test_a_deep_traceback_keeps_only_its_last_frames():
    def ping(n):
        if n == 0:
            raise ValueError("deep")
        pong(n - 1)

    def pong(n):
        ping(n - 1)

    try:
        ping(50)
    except ValueError as error:
        text = format_error(error)
    assert text.count("in ping") + text.count("in pong") == 10
    assert "in test_a_deep_traceback" not in text


def test_an_error_whose_message_cannot_be_printed_is_reported_by_its_type():
    class Broken(Exception):
        def __str__(self):
            raise RuntimeError("no str")

    assert format_error(Broken()).startswith("Broken")


# --- outputs ---------------------------------------------------------------------------------


@pytest.fixture
def runtime():
    return Runtime(None, None, None, None)


def test_an_output_is_one_compact_json_line_with_its_value_last(runtime):
    line = runtime.output_line("j", 2, {"a": [1, 2.5, None, True], "b": "naïve"})
    assert line == '{"type":"output","job_id":"j","index":2,"value":{"a":[1,2.5,null,true],"b":"na\\u00efve"}}'  # ASCII
    assert json.loads(line)["value"]["b"] == "naïve"
    assert json.loads(runtime.output_line("j", 0, None)) == {"type": "output", "job_id": "j", "index": 0, "value": None}


def test_a_tuple_output_is_a_list_and_a_struct_output_its_fields(runtime):
    class Point(sluice.Struct):
        x: int
        y: int = 0

    assert json.loads(runtime.output_line("j", 0, (Point(x=1), 2)))["value"] == [{"x": 1, "y": 0}, 2]


@pytest.mark.parametrize("value, kind", [(object(), "object"), ({1, 2}, "set"), (float("inf"), "float"), (b"x", "bytes")])
def test_an_output_json_cannot_hold_is_an_output_error_naming_its_type(runtime, value, kind):
    with pytest.raises(OutputError, match=rf"^output 3 is not JSON-serialisable \({kind}\)"):
        runtime.output_line("j", 3, value)


def test_a_file_output_is_its_absolute_path_name_and_attributes(runtime, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.wav").write_bytes(b"RIFF")
    line = json.loads(runtime.output_line("j", 0, sieve.Audio("a.wav", start_time=1.0)))
    assert line == {"type": "output", "job_id": "j", "index": 0, "file": str(tmp_path / "a.wav"), "name": "a.wav",
                    "attributes": {"start_time": 1.0}}


def test_an_oversized_output_is_written_to_a_file_of_its_own(runtime):
    line = json.loads(runtime.output_line("j", 1, ["x" * 20], max_output_bytes=10))
    assert line["name"] == "output-1.json" and os.path.dirname(line["file"]) == runtime.oversized
    with open(line["file"]) as stored:
        assert json.load(stored) == ["x" * 20]
    assert "value" in json.loads(runtime.output_line("j", 2, ["x"], max_output_bytes=10))


def test_a_call_to_a_function_that_does_not_stream_returns_its_value():
    assert _call_value([]) is None
    assert _call_value([5]) == 5
    assert _call_value([1, 2]) == [1, 2]


def test_a_file_passed_to_another_function_goes_by_url_or_by_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "made.txt").write_text("x")
    assert _call_input(sluice.File(url="https://x/a")) == {"_type": "sieve.File", "url": "https://x/a"}
    assert _call_input(sluice.Image("made.txt", fps=5)) == {"fps": 5, "_type": "sieve.File", "path": str(tmp_path / "made.txt"),
                                                            "name": "made.txt"}
    with pytest.raises(_UnpassableFile, match="names .*missing.txt, which is not a file"):
        _call_input(sluice.File("missing.txt"))
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        _call_input(object())


# --- an entry point's arguments --------------------------------------------------------------


def identity(value):
    return value


def test_a_job_passes_declared_inputs_by_name_and_positional_only_ones_by_position():
    def f(a, b=2, /, c=3, *, d=4):
        return a, b, c, d

    entry = Entry(f, generator=False)
    args, kwargs = entry.arguments({"a": 1, "c": 5, "d": 6, "unknown": 0}, lambda name, value: value)
    assert (args, kwargs) == ([1], {"c": 5, "d": 6})
    assert f(*args, **kwargs) == (1, 2, 5, 6)
    assert entry.arguments({"b": 9}, lambda name, value: value) == ([], {})  # a is missing: the call says so


def test_keyword_arguments_take_every_input_not_positional():
    def f(a, /, **rest):
        return rest

    entry = Entry(f, generator=False)
    assert entry.arguments({"a": 1, "x": 2}, lambda name, value: value) == ([1], {"x": 2})


def test_an_entry_point_without_a_signature_takes_every_input_by_name():
    entry = Entry(dict, generator=False)  # a builtin: no signature to read on some Pythons
    args, kwargs = entry.arguments({"x": 1}, lambda name, value: value)
    assert dict(*args, **kwargs) == {"x": 1}


def test_each_input_converted_and_for_iterator_input_given_as_an_iterator_of_its_values():
    entry = Entry(lambda xs, n: None, generator=False, iterator_input=True)
    args, kwargs = entry.arguments({"xs": [1, 2], "n": 3}, lambda name, value: value * 10)
    assert args == [] and {name: list(values) for name, values in kwargs.items()} == {"xs": [10, 20], "n": [30]}


def test_an_entry_knows_whether_it_returns_nothing():
    def none() -> None:
        pass

    def text() -> "None":
        pass

    def optional() -> Optional[int]:
        pass

    def bare():
        pass

    assert [Entry(fn, False).returns_none for fn in (none, text, optional, bare)] == [True, True, False, False]


def test_an_entry_reads_which_inputs_are_files_of_which_class_and_which_are_structs():
    class Config(sluice.Struct):
        size: int = 1

    def f(doc: sluice.File, frame: Optional[sieve.Image], clip: "sieve.Video", size: int, config: Config, other: "Union[int, str]"):
        pass

    entry = Entry(f, generator=False)
    assert entry.file_params == {"doc": sluice.File, "frame": sieve.Image, "clip": sieve.Video}
    assert entry.struct_params == {"config": Config}
    assert entry.file_type("size") is None


@pytest.mark.parametrize("annotation, expected", [
    (sluice.File, sluice.File), (sluice.Audio, sluice.Audio), (Optional[sluice.Array], sluice.Array), (Union[None, sluice.Video], sluice.Video),
    (int, None), (Union[sluice.File, int], None), (Optional[int], None), (list, None),
    ("Optional[sieve.File]", sluice.File), ("sieve.Image | None", sluice.Image), ("None | File", sluice.File), ("typing.Optional[Audio]", sluice.Audio),
    ("Video", sluice.Video), ("UnknownName", None), ("list[File]", None),
])
def test_a_parameter_is_a_file_of_the_class_its_annotation_names_even_as_unevaluable_text(annotation, expected):
    assert file_class(annotation, {"sieve": sieve, "sluice": sluice}) is expected


def test_an_annotated_file_parameter_is_the_file():
    from typing import Annotated

    assert file_class(Annotated[sluice.Image, "a frame"], {}) is sluice.Image


def test_a_parameter_is_a_struct_when_annotated_with_a_struct_subclass():
    class Config(sluice.Struct):
        size: int = 1

    assert struct_class(Config, {}) is Config
    assert struct_class("Config", {"Config": Config}) is Config
    assert struct_class(dict, {}) is None and struct_class("Missing", {}) is None


def test_a_module_that_does_not_use_struct_has_no_struct_parameters():
    ran = subprocess.run([sys.executable, "-c", (
        "import sys, sluice\n"
        "from sluice._annotations import struct_class\n"
        "assert struct_class(dict, {}) is None\n"
        "print('sluice._struct' in sys.modules)\n")], capture_output=True, text=True, env=sdk_env(), timeout=60)
    assert ran.stdout == "False\n", ran.stderr


def test_an_entry_file_is_imported_as_a_module_of_the_code_folder(tmp_path, monkeypatch):
    write_files(str(tmp_path), {"pkg_for_entry_test/__init__.py": "", "pkg_for_entry_test/main.py": "from . import helper\nVALUE = helper.X\n",
                                "pkg_for_entry_test/helper.py": "X = 42\n"})
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = import_entry("pkg_for_entry_test/main.py")
    assert (module.__name__, module.VALUE) == ("pkg_for_entry_test.main", 42)
    with pytest.raises(FileNotFoundError, match="the entry file nope.py does not exist in"):
        import_entry("nope.py")
    for name in ("pkg_for_entry_test", "pkg_for_entry_test.main", "pkg_for_entry_test.helper"):
        sys.modules.pop(name, None)


# --- what a job leaves behind ----------------------------------------------------------------


def test_processes_started_since_a_point_are_killed_and_those_before_it_are_kept():
    processes = JobProcesses()
    older = subprocess.Popen(["sleep", "30"])
    try:
        before = processes.current()
        assert older.pid in before
        newer = subprocess.Popen(["sleep", "30"])
        grandchild = subprocess.Popen(["sh", "-c", "sleep 30 & wait"])
        deadline = time.monotonic() + 10
        while len(processes.current() - before) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)  # until the shell has started its own child
        started = processes.current() - before
        assert {newer.pid, grandchild.pid} <= started and len(started) == 3
        processes.end_started_since(before)
        assert newer.wait(5) == -9 and grandchild.wait(5) == -9
        assert not any(_alive(pid) for pid in started)
        assert older.poll() is None
    finally:
        older.kill()
        older.wait()


def test_a_process_with_no_children_has_none_to_end():
    ran = subprocess.run([sys.executable, "-c", "from sluice._processes import JobProcesses\nprint(JobProcesses().current())"],
                         capture_output=True, text=True, env=sdk_env(), timeout=60)
    assert ran.stdout == "set()\n", ran.stderr


def test_no_write_to_the_logs_is_under_way_when_no_thread_is_writing():
    assert writes_under_way() is False


def test_a_replica_runs_as_batch_work_and_so_does_what_it_starts():
    if not hasattr(os, "SCHED_BATCH"):
        pytest.skip("no SCHED_BATCH here")
    seen = []

    def in_a_thread_of_its_own():  # the policy is the calling thread's: this test's own stays as it is
        seen.append(run_as_batch_work())
        seen.append(os.sched_getscheduler(0))
        seen.append(subprocess.run([sys.executable, "-S", "-c", "import os; print(os.sched_getscheduler(0))"], capture_output=True, text=True,
                                   env=sdk_env()).stdout.strip())

    thread = threading.Thread(target=in_a_thread_of_its_own)
    thread.start()
    thread.join()
    assert seen == [True, os.SCHED_BATCH, str(os.SCHED_BATCH)]
    assert os.sched_getscheduler(0) != os.SCHED_BATCH


# --- the build's import check ----------------------------------------------------------------


def check_import(folder, entry_file, symbol):
    return subprocess.run([sys.executable, "-m", "sluice._check_import"], cwd=folder, capture_output=True, text=True, timeout=60,
                          env=sdk_env(SLUICE_ENTRY_FILE=entry_file, SLUICE_ENTRY_SYMBOL=symbol))


def test_the_import_check_passes_an_entry_file_that_imports_and_defines_its_symbol(tmp_path):
    write_files(str(tmp_path), {"main.py": "import sluice\n\n@sluice.function(name='f')\nclass F:\n    def __setup__(self):\n"
                                           "        raise SystemExit('setup is not run')\n    def __predict__(self):\n        pass\n"})
    ran = check_import(tmp_path, "main.py", "F")
    assert (ran.returncode, ran.stdout) == (0, "main.py imports, and defines F.\n")


def test_the_import_check_fails_naming_the_missing_module_last(tmp_path):
    write_files(str(tmp_path), {"main.py": "import torch_not_installed\n"})
    ran = check_import(tmp_path, "main.py", "f")
    assert ran.returncode == 1
    assert ran.stdout.startswith("ModuleNotFoundError: No module named 'torch_not_installed'\nTraceback")
    assert ran.stdout.endswith("\nModuleNotFoundError: No module named 'torch_not_installed'\n")


def test_the_import_check_fails_an_entry_file_without_its_symbol(tmp_path):
    write_files(str(tmp_path), {"main.py": "x = 1\n"})
    ran = check_import(tmp_path, "main.py", "f")
    assert (ran.returncode, ran.stdout) == (1, "main.py defines no f\n")
