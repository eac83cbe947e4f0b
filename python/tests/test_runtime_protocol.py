"""The replica runtime, ``python -m sluice._runtime``, driven over its real sockets as the agent
drives it (shared/runtime/replica.ts, shared/runtime/protocol.ts): each test writes a small
function to a folder, starts a replica of it (sluice_harness.Replica) and plays the agent."""

import json
import os
import time

import pytest

HELLO = '''
    import sluice

    @sluice.function(name="hello")
    def hello(name: str) -> str:
        return "Hello, " + name
'''


def ready(start_replica, source, symbol, **options):
    return start_replica(source, symbol, **options).ready()


# --- the conversation ------------------------------------------------------------------------


def test_a_replica_says_hello_with_its_pid_then_ready_once_the_code_is_imported(start_replica):
    replica = start_replica(HELLO, "hello")
    assert replica.next("hello") == {"type": "hello", "pid": replica.process.pid}
    assert replica.next("ready") == {"type": "ready"}
    assert [message["type"] for message in replica.received] == ["hello", "ready"]


def test_a_return_value_is_sent_as_output_zero_before_the_jobs_done(start_replica):
    replica = ready(start_replica, HELLO, "hello")
    job = replica.run({"name": "Ada"}, job_id="j1")
    assert job["outputs"] == [{"type": "output", "job_id": "j1", "index": 0, "value": "Hello, Ada"}]
    assert job["end"]["type"] == "done" and job["end"]["job_id"] == "j1"
    assert replica.received.index(job["outputs"][0]) < replica.received.index(job["end"])


def test_inputs_the_function_does_not_declare_are_left_out_unless_it_takes_keyword_arguments(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="pair")
        def pair(a: int, b: int = 10):
            return (a, b)

        @sluice.function(name="rest")
        def rest(a, **others):
            return sorted(others)
    ''', "pair")
    assert replica.run({"a": 1, "ignored": "x"})["values"] == [[1, 10]]
    rest = ready(start_replica, open(os.path.join(replica.folder, "main.py")).read(), "rest")
    assert rest.run({"a": 1, "x": 2, "y": 3})["values"] == [["x", "y"]]


def test_positional_only_parameters_take_their_inputs_by_position(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="po")
        def po(a, b=2, /, c=3):
            return [a, b, c]
    ''', "po")
    assert replica.run({"a": 1, "c": 5}, job_id="j1")["values"] == [[1, 2, 5]]
    assert replica.run({"a": 1, "b": 7}, job_id="j2")["values"] == [[1, 7, 3]]


def test_a_none_return_is_a_null_output_but_a_function_declared_to_return_none_sends_none(start_replica):
    source = '''
        import sluice

        @sluice.function(name="nothing")
        def nothing():
            return None

        @sluice.function(name="silent")
        def silent() -> None:
            return None
    '''
    assert ready(start_replica, source, "nothing").run({})["values"] == [None]
    silent = ready(start_replica, source, "silent").run({})
    assert silent["outputs"] == [] and silent["end"]["type"] == "done"


def test_a_generator_function_streams_each_yield_as_an_output(start_replica):
    replica = ready(start_replica, '''
        import os
        import time
        import sluice

        @sluice.function(name="words")
        def words(text: str):
            for index, word in enumerate(text.split()):
                # Each word waits for the agent to have seen the one before: proof that it was sent.
                while index and not os.path.exists(f"seen-{index - 1}"):
                    time.sleep(0.005)
                yield word
    ''', "words")
    replica.send({"type": "run", "job_id": "s", "run_id": "r", "inputs": {"text": "a b c"}, "env": {}})
    for index, word in enumerate(["a", "b", "c"]):
        output = replica.next("output")
        assert (output["index"], output["value"]) == (index, word)
        if index < 2:  # still running: it waits for the test to see this word
            assert not any(message["type"] == "done" for message in replica.received)
        open(os.path.join(replica.folder, f"seen-{index}"), "w").close()
    assert replica.next("done")["job_id"] == "s"


def test_a_function_annotated_to_return_an_iterator_streams_what_it_returns(start_replica):
    replica = ready(start_replica, '''
        from typing import Iterator
        import sluice

        @sluice.function(name="split")
        def split(text: str) -> Iterator[str]:
            return text.split()

        @sluice.function(name="empty")
        def empty() -> Iterator[str]:
            return None
    ''', "split")
    assert replica.run({"text": "x y"})["values"] == ["x", "y"]
    empty = ready(start_replica, open(os.path.join(replica.folder, "main.py")).read(), "empty").run({})
    assert empty["outputs"] == [] and empty["end"]["type"] == "done"


def test_async_functions_and_async_generators_run_on_the_replicas_one_event_loop(start_replica):
    replica = ready(start_replica, '''
        import asyncio
        import sluice

        @sluice.function(name="model")
        class Model:
            async def __setup__(self):
                self.loop = asyncio.get_running_loop()

            async def __predict__(self, n: int):
                for i in range(n):
                    await asyncio.sleep(0)
                    yield [i, asyncio.get_running_loop() is self.loop]
    ''', "Model")
    assert replica.run({"n": 3})["values"] == [[0, True], [1, True], [2, True]]


# --- failures --------------------------------------------------------------------------------


def test_an_exception_fails_the_job_with_its_type_message_and_traceback_and_the_replica_keeps_serving(start_replica):
    replica = ready(start_replica, '''
        import sluice

        def check(n):
            if n < 0:
                raise ValueError(f"n must be positive (got {n})")
            return n

        @sluice.function(name="positive")
        def positive(n: int) -> int:
            return check(n)
    ''', "positive")
    failed = replica.run({"n": -1}, job_id="bad")
    assert failed["outputs"] == []
    error = failed["end"]
    assert error["type"] == "error" and error["job_id"] == "bad" and "fatal" not in error
    assert error["error"].startswith("ValueError: n must be positive (got -1)\nTraceback")
    assert 'main.py", line 5, in check' in error["error"]
    assert "_runtime.py" not in error["error"]  # the runtime's own frames are left out
    assert replica.run({"n": 2}, job_id="good")["values"] == [2]


def test_a_fatal_exception_marks_the_error_fatal_so_the_agent_replaces_the_replica(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="gpu")
        def gpu(broken: bool) -> str:
            if broken:
                raise sieve.FatalException("the CUDA context is gone")
            raise RuntimeError("an ordinary failure")
    ''', "gpu")
    fatal = replica.run({"broken": True}, job_id="f")["end"]
    assert fatal["type"] == "error" and fatal["fatal"] is True
    assert fatal["error"].startswith("FatalException: the CUDA context is gone\n")
    ordinary = replica.run({"broken": False}, job_id="o")["end"]
    assert ordinary["type"] == "error" and "fatal" not in ordinary


def test_an_exception_that_cannot_be_printed_still_fails_only_its_job(start_replica):
    replica = ready(start_replica, '''
        import sluice

        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no str")

        @sluice.function(name="odd")
        def odd(fail: bool) -> str:
            if fail:
                raise Unprintable()
            return "fine"
    ''', "odd")
    end = replica.run({"fail": True}, job_id="odd")["end"]
    assert end["type"] == "error" and end["error"].startswith("Unprintable")
    assert replica.run({"fail": False}, job_id="fine")["values"] == ["fine"]


def test_sys_exit_in_a_job_fails_it_and_ends_the_process_with_its_status(start_replica):
    replica = ready(start_replica, '''
        import sys
        import sluice

        @sluice.function(name="leave")
        def leave() -> None:
            sys.exit(3)
    ''', "leave")
    assert replica.run({})["end"]["error"].startswith("SystemExit: 3\n")
    assert replica.exited() == 3


def test_an_output_that_is_not_json_fails_the_job_naming_its_index_and_type(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="bad")
        def bad(kind: str):
            yield "fine"
            yield {1, 2} if kind == "set" else float("nan")
            yield "never"
    ''', "bad")
    job = replica.run({"kind": "set"}, job_id="set")
    assert job["values"] == ["fine"]
    assert job["end"]["error"].startswith("OutputError: output 1 is not JSON-serialisable (set)")
    assert job["end"]["error"].endswith("\n") and "Traceback" not in job["end"]["error"]
    nan = replica.run({"kind": "nan"}, job_id="nan")["end"]
    assert nan["error"].startswith("OutputError: output 1 is not JSON-serialisable (float)")


# --- setup -----------------------------------------------------------------------------------


def test_a_class_runs_setup_once_and_keeps_its_state_across_jobs(start_replica):
    replica = ready(start_replica, '''
        import sluice

        SETUPS = []

        @sluice.function(name="counter")
        class Counter:
            def __setup__(self):
                SETUPS.append(1)
                self.calls = 0

            def __predict__(self, step: int) -> list:
                self.calls += step
                return [len(SETUPS), self.calls]
    ''', "Counter")
    assert replica.run({"step": 1}, job_id="a")["values"] == [[1, 1]]
    assert replica.run({"step": 2}, job_id="b")["values"] == [[1, 3]]


def test_setup_output_goes_to_the_logs_and_ends_with_the_setup_marker_before_ready(start_replica):
    replica = start_replica('''
        import sys
        import sluice

        print("importing")

        @sluice.function(name="loud")
        class Loud:
            def __setup__(self):
                print("loading weights")
                print("a warning", file=sys.stderr)

            def __predict__(self) -> str:
                return "ok"
    ''', "Loud", env={"SLUICE_SETUP_END_MARKER": "--setup-over--"})
    replica.ready()
    assert replica.stdout() == "importing\nloading weights\n--setup-over--\n"
    assert replica.stderr() == "a warning\n--setup-over--\n"
    # The marker is the runtime's, not the function's: the job does not see it in its environment.
    assert ready(start_replica, '''
        import os
        import sluice

        @sluice.function(name="env")
        def env():
            return os.environ.get("SLUICE_SETUP_END_MARKER")
    ''', "env", env={"SLUICE_SETUP_END_MARKER": "--m--"}).run({})["values"] == [None]


def test_a_failing_setup_is_reported_as_setup_error_and_the_replica_exits_1(start_replica):
    replica = start_replica('''
        import sluice

        @sluice.function(name="broken")
        class Broken:
            def __setup__(self):
                raise RuntimeError("no weights")

            def __predict__(self) -> str:
                return "never"
    ''', "Broken")
    replica.next("hello")
    error = replica.next("setup_error")["error"]
    assert error.startswith("RuntimeError: no weights\nTraceback")
    assert "in __setup__" in error
    assert replica.exited() == 1
    assert not any(message["type"] == "ready" for message in replica.received)


@pytest.mark.parametrize("source, symbol, expected", [
    ("import not_installed_anywhere\n", "f", "ModuleNotFoundError: No module named 'not_installed_anywhere'\n"),
    ("x = 1\n", "f", "SetupError: main.py defines no f\n"),
    ("f = 42\n", "f", "SetupError: f in main.py is not a function or a class\n"),
    ("class F:\n    def __setup__(self):\n        pass\n", "F", "SetupError: class F must define __predict__\n"),
])
def test_an_entry_point_that_cannot_run_is_reported_as_setup_error(start_replica, source, symbol, expected):
    replica = start_replica(source, symbol)
    replica.next("hello")
    assert replica.next("setup_error")["error"].startswith(expected)
    assert replica.exited() == 1


def test_a_replica_told_no_entry_point_says_which_variables_name_it(start_replica):
    from sluice_harness import sdk_env

    replica = start_replica(HELLO, "hello", raw_env=sdk_env())
    replica.next("hello")
    assert replica.next("setup_error")["error"] == (
        "SetupError: SLUICE_ENTRY_FILE and SLUICE_ENTRY_SYMBOL must name the function to run\n")


def test_an_entry_file_in_a_package_imports_with_its_relative_imports(start_replica):
    replica = ready(start_replica, None, "greet", entry_file="app/main.py", files={
        "app/__init__.py": "",
        "app/words.py": "GREETING = 'Hi'\n",
        "app/main.py": '''
            import sluice
            from .words import GREETING

            @sluice.function(name="greet")
            def greet(name: str) -> str:
                return f"{GREETING}, {name}"
        ''',
    })
    assert replica.run({"name": "Bo"})["values"] == ["Hi, Bo"]


@pytest.mark.parametrize("entry_file", ["my-model.py", "sys.py"])
def test_an_entry_file_named_like_no_module_or_like_a_standard_one_is_loaded_from_its_path(start_replica, entry_file):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="mine")
        def mine() -> str:
            return __name__
    ''', "mine", entry_file=entry_file)
    assert replica.run({})["values"] == ["__sluice_entry__"]


# --- environment and logs --------------------------------------------------------------------


def test_the_job_env_and_sluice_job_id_are_set_for_the_job_and_restored_after(start_replica):
    replica = ready(start_replica, '''
        import os
        import sluice

        @sluice.function(name="env")
        def env() -> dict:
            return {k: os.environ.get(k) for k in ("TOKEN", "PRESET", "SLUICE_JOB_ID")}
    ''', "env", env={"PRESET": "outer"})
    first = replica.run({}, job_id="first", env={"TOKEN": "secret", "PRESET": "inner"})
    assert first["values"] == [{"TOKEN": "secret", "PRESET": "inner", "SLUICE_JOB_ID": "first"}]
    second = replica.run({}, job_id="second")
    assert second["values"] == [{"TOKEN": None, "PRESET": "outer", "SLUICE_JOB_ID": "second"}]


def test_a_jobs_output_on_stdout_and_stderr_ends_with_the_end_marker_the_agent_sent(start_replica):
    replica = ready(start_replica, '''
        import os
        import sys
        import sluice

        @sluice.function(name="talk")
        def talk(n: int) -> int:
            print("out", n)
            print("err", n, file=sys.stderr)
            os.write(1, b"raw\\n")
            sys.stdout.buffer.write(b"bytes\\n")
            return n
    ''', "talk")
    replica.stdout(), replica.stderr()  # setup's
    first = replica.run({"n": 1}, job_id="one")
    assert "output_read" not in first["end"]  # nothing of it was read: the marker says where it ends
    second = replica.run({"n": 2}, job_id="two")
    assert first["values"] == [1] and second["values"] == [2]
    assert replica.stdout() == "out 1\nraw\nbytes\n--end-of-one--\nout 2\nraw\nbytes\n--end-of-two--\n"
    assert replica.stderr() == "err 1\n--end-of-one--\nerr 2\n--end-of-two--\n"
    # Logs and protocol stay apart: no message carries a log line.
    assert all("raw" not in json.dumps(message) for message in replica.received)


def test_a_job_whose_output_the_agent_has_read_says_so_instead_of_writing_a_marker(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="quiet")
        def quiet() -> int:
            return 1
    ''', "quiet", env={"SLUICE_SETUP_END_MARKER": "--setup--"})
    # Read to the end, as the agent reads.
    assert (replica.stdout(), replica.stderr()) == ("--setup--\n", "--setup--\n")
    job = replica.run({}, job_id="q")
    assert job["end"] == {"type": "done", "job_id": "q", "output_read": True}
    assert (replica.stdout(), replica.stderr()) == ("--setup--\n", "--setup--\n")  # nothing more


def test_a_thread_a_job_started_cannot_write_into_the_next_jobs_logs(start_replica):
    replica = ready(start_replica, '''
        import sys
        import threading
        import time
        import sluice

        @sluice.function(name="leaky")
        def leaky(late: bool) -> str:
            if late:
                def later():
                    time.sleep(0.1)
                    print("late line of the first job")
                    sys.stderr.write("late error of the first job\\n")
                threading.Thread(target=later, daemon=True).start()
                return "started"
            time.sleep(0.3)
            print("second job")
            return "done"
    ''', "leaky")
    replica.run({"late": True}, job_id="first")
    replica.run({"late": False}, job_id="second")
    assert replica.stdout() == "second job\n--end-of-second--\n"
    assert "late" not in replica.stdout() + replica.stderr()


def test_processes_a_job_started_are_killed_when_it_ends_and_those_setup_started_are_kept(start_replica):
    replica = ready(start_replica, '''
        import subprocess
        import sluice

        @sluice.function(name="spawner")
        class Spawner:
            def __setup__(self):
                self.server = subprocess.Popen(["sleep", "30"])

            def __predict__(self) -> list:
                child = subprocess.Popen(["sleep", "30"])
                return [self.server.pid, child.pid]
    ''', "Spawner")
    server, child = replica.run({})["values"][0]

    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
        except OSError:
            return False

    assert not alive(child)
    assert alive(server)


# --- files -----------------------------------------------------------------------------------


def test_a_file_input_the_agent_fetched_arrives_as_a_file_of_the_declared_class_with_its_path_and_url(start_replica):
    replica = ready(start_replica, '''
        from typing import Optional
        import sieve

        @sieve.function(name="read")
        def read(doc: sieve.File, frame: Optional[sieve.Image] = None) -> list:
            with open(doc) as f:
                content = f.read()
            return [type(doc).__name__, doc.path, doc.url, content, type(frame).__name__, frame.frame_number]
    ''', "read")
    path = os.path.join(replica.folder, "fetched.txt")
    with open(path, "w") as out:
        out.write("from the agent")
    url = "https://example.com/photo.txt"
    job = replica.run({"doc": {"path": path, "url": url}, "frame": {"path": path, "url": url, "frame_number": 7}})
    assert job["values"] == [["File", path, url, "from the agent", "Image", 7]]


def test_a_file_input_the_agent_did_not_fetch_fails_the_job_naming_the_input(start_replica):
    replica = ready(start_replica, '''
        from typing import Optional
        import sluice

        @sluice.function(name="read")
        def read(doc: Optional[sluice.File] = None) -> str:
            return "no file" if doc is None else "never"
    ''', "read")
    for n, doc in enumerate([{"url": "https://example.com/secret.txt"}, "https://example.com/a.txt", "/etc/passwd", ["/etc/passwd"]]):
        end = replica.run({"doc": doc}, job_id=f"job-{n}")["end"]
        assert end["type"] == "error"
        assert end["error"].startswith(f"InputError: input doc is a sluice.File the agent did not fetch (got {json.dumps(doc)}")
    assert replica.run({"doc": None}, job_id="none")["values"] == ["no file"]


def test_marked_files_in_a_dict_or_list_input_arrive_as_files(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="read")
        def read(bundle: dict, items: list) -> list:
            files = [bundle["doc"], *items]
            return [[type(f).__name__, open(f.path).read(), f.url] for f in files] + [bundle["n"]]
    ''', "read")
    path = os.path.join(replica.folder, "fetched.txt")
    with open(path, "w") as out:
        out.write("fetched")
    marker = {"_type": "sieve.File", "path": path, "url": "https://example.com/f.txt"}
    audio = {**marker, "_type": "sluice.File", "start_time": 1.5}
    job = replica.run({"bundle": {"doc": marker, "n": 1}, "items": [audio]})
    assert job["values"] == [[["File", "fetched", "https://example.com/f.txt"], ["Audio", "fetched", "https://example.com/f.txt"], 1]]


def test_a_file_output_is_sent_as_its_absolute_path_name_and_travelling_attributes(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="write")
        def write(text: str):
            with open("result.txt", "w") as f:
                f.write(text)
            yield sieve.File("result.txt")
            yield sieve.Image("result.txt", frame_number=3, label="cat")
    ''', "write")
    job = replica.run({"text": "hello file"}, job_id="w")
    path = os.path.join(replica.folder, "result.txt")
    assert job["outputs"] == [
        {"type": "output", "job_id": "w", "index": 0, "file": path, "name": "result.txt"},
        {"type": "output", "job_id": "w", "index": 1, "file": path, "name": "result.txt",
         "attributes": {"frame_number": 3, "label": "cat"}},
    ]


def test_a_file_output_whose_path_is_not_a_file_fails_the_job(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="ghost")
        def ghost() -> sluice.File:
            return sluice.File("missing.txt")
    ''', "ghost")
    error = replica.run({})["end"]["error"]
    assert error == f"OutputError: output 0 is a sluice.File but {os.path.join(replica.folder, 'missing.txt')} is not a file\n"


def test_files_nested_in_an_output_are_marked_by_path_or_by_the_url_of_one_known_by_url_only(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="write")
        def write() -> dict:
            with open("a.txt", "w") as f:
                f.write("a")
            return {"files": [sieve.File("a.txt"), (sieve.Audio(url="https://example.com/b.wav", start_time=2), 1)], "n": 2}
    ''', "write")
    assert replica.run({})["values"] == [{
        "files": [{"_type": "sieve.File", "path": os.path.join(replica.folder, "a.txt"), "name": "a.txt"},
                  [{"start_time": 2, "_type": "sieve.File", "url": "https://example.com/b.wav"}, 1]],
        "n": 2,
    }]


def test_an_output_larger_than_max_output_bytes_is_sent_as_a_file_removed_before_the_next_job(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="big")
        def big(n: int) -> dict:
            return {"text": "x" * n}
    ''', "big")
    job = replica.run({"n": 100}, job_id="big", max_output_bytes=50)
    (output,) = job["outputs"]
    assert output["name"] == "output-0.json" and "value" not in output
    with open(output["file"]) as stored:
        assert json.load(stored) == {"text": "x" * 100}
    small = replica.run({"n": 3}, job_id="small", max_output_bytes=50)
    assert small["values"] == [{"text": "xxx"}]
    assert not os.path.exists(output["file"])


def test_a_struct_input_arrives_as_the_struct_and_a_struct_output_is_sent_as_its_fields(start_replica):
    replica = ready(start_replica, '''
        import sieve

        class Point(sieve.Struct):
            x: int
            y: int = 0

        @sieve.function(name="move")
        def move(p: Point, by: int) -> Point:
            assert isinstance(p, Point)
            return Point(x=p.x + by, y=p.y)
    ''', "move")
    assert replica.run({"p": {"x": 1}, "by": 2})["values"] == [{"x": 3, "y": 0}]


def test_an_iterator_input_function_gets_each_input_as_an_iterator_of_its_values(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="batch", iterator_input=True)
        def batch(words, n):
            for word, count in zip(words, n):
                yield word * count
    ''', "batch")
    assert replica.run({"words": ["a", "b"], "n": [2, 3]})["values"] == ["aa", "bbb"]


# --- calls to other functions ----------------------------------------------------------------


def answer(replica, message, **fields):
    replica.send({"type": "call_result", "call_id": message["call_id"], "ok": True, "outputs": [], **fields})


def test_a_call_to_another_function_goes_to_the_agent_and_its_result_is_the_value(start_replica):
    replica = ready(start_replica, '''
        import sluice

        @sluice.function(name="caller")
        def caller(x: int) -> dict:
            child = sluice.function.get("acme/child")
            many = child.run(x, mode="many")
            try:
                child.run(x=-1)
            except sluice.RemoteError as e:
                failed = [str(e), e.function, e.error]
            pushed = child.push(x=x)
            return {"one": child.run(x=x), "many": many, "failed": failed, "pushed": pushed.job_id, "none": child.run()}
    ''', "caller")
    replica.send({"type": "run", "job_id": "p", "run_id": "r", "inputs": {"x": 4}, "env": {}})
    many = replica.next("call")
    assert many == {"type": "call", "call_id": many["call_id"], "function": "acme/child", "inputs": {"mode": "many"},
                    "wait": True, "args": [4]}
    answer(replica, many, job_id="c1", outputs=[1, 2])
    failing = replica.next("call")
    replica.send({"type": "call_result", "call_id": failing["call_id"], "ok": False, "error": "ValueError: x\n"})
    pushed = replica.next("call")
    assert pushed["wait"] is False and "args" not in pushed
    answer(replica, pushed, job_id="c3")
    answer(replica, replica.next("call"), job_id="c4", outputs=[8])
    answer(replica, replica.next("call"), job_id="c5", outputs=[])
    assert replica.next("output")["value"] == {
        "one": 8, "many": [1, 2], "failed": ["acme/child failed: ValueError: x\n", "acme/child", "ValueError: x\n"],
        "pushed": "c3", "none": None,
    }
    assert replica.next("done")["job_id"] == "p"


def test_a_pushed_job_is_awaited_through_the_agent_for_its_result_status_and_outputs(start_replica):
    replica = ready(start_replica, '''
        import concurrent.futures
        import sieve

        @sieve.function(name="fan-out")
        def fan_out() -> dict:
            child = sieve.function.get("acme/child")
            jobs = [child.push(n) for n in (1, 2)]
            concurrent.futures.wait(jobs)
            stream = child.push(3)
            failing = child.push(-1)
            try:
                failing.result()
            except sieve.RemoteError as e:
                failed = e.error
            return {"results": [job.result() for job in jobs], "status": stream.status,
                    "streamed": list(stream.outputs), "failed": failed}
    ''', "fan_out")
    replica.send({"type": "run", "job_id": "parent", "run_id": "r", "inputs": {}, "env": {}})
    for n in (1, 2):
        push = replica.next("call")
        assert (push["args"], push["wait"]) == ([n], False)
        answer(replica, push, job_id=f"child-{n}")
    awaits = [replica.next("await"), replica.next("await")]  # both asked at once, answered in another order
    assert sorted((a["job_id"], a["offset"], a["until"]) for a in awaits) == [("child-1", 0, "end"), ("child-2", 0, "end")]
    for awaited in reversed(awaits):
        answer(replica, awaited, job_id=awaited["job_id"], status="finished", outputs=[int(awaited["job_id"][-1]) * 10])
    answer(replica, replica.next("call"), job_id="stream")
    answer(replica, replica.next("call"), job_id="failing")
    failing = replica.next("await")
    assert (failing["job_id"], failing["until"]) == ("failing", "end")
    answer(replica, failing, job_id="failing", status="error", error="ValueError: n\n")
    status = replica.next("await")
    assert (status["job_id"], status["until"]) == ("stream", "now")
    answer(replica, status, job_id="stream", status="processing")
    first = replica.next("await")
    assert (first["offset"], first["until"]) == (0, "output")
    answer(replica, first, job_id="stream", status="processing", outputs=["a", "b"])
    rest = replica.next("await")
    assert (rest["offset"], rest["until"]) == (2, "output")
    answer(replica, rest, job_id="stream", status="finished", outputs=["c"])
    assert replica.next("output")["value"] == {"results": [10, 20], "status": "processing", "streamed": ["a", "b", "c"],
                                               "failed": "ValueError: n\n"}


def test_a_streaming_callees_run_is_an_iterator_of_its_outputs_read_as_they_come(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="reader")
        def reader() -> list:
            words = sieve.function.get("acme/words").run("a b")
            return [next(words), list(words)]
    ''', "reader")
    replica.send({"type": "run", "job_id": "j", "run_id": "r", "inputs": {}, "env": {}})
    answer(replica, replica.next("call"), job_id="w", stream=True)
    first = replica.next("await")
    assert (first["job_id"], first["offset"], first["until"]) == ("w", 0, "output")
    answer(replica, first, job_id="w", status="processing", outputs=["a"])
    rest = replica.next("await")
    assert rest["offset"] == 1
    answer(replica, rest, job_id="w", status="finished", outputs=["b"])
    assert replica.next("output")["value"] == ["a", ["b"]]


def test_a_file_the_job_made_is_passed_to_another_function_by_path_and_one_with_a_url_by_its_url(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="caller")
        def caller() -> str:
            with open("made.wav", "wb") as f:
                f.write(b"RIFF")
            return sieve.function.get("acme/child").run(sieve.Audio("made.wav", start_time=1),
                                                         extra=[{"deep": sieve.Video(url="https://example.com/v.mp4")}])
    ''', "caller")
    replica.send({"type": "run", "job_id": "j", "run_id": "r", "inputs": {}, "env": {}})
    call = replica.next("call")
    assert call["args"] == [{"start_time": 1, "_type": "sieve.File", "path": os.path.join(replica.folder, "made.wav"), "name": "made.wav"}]
    assert call["inputs"] == {"extra": [{"deep": {"_type": "sieve.File", "url": "https://example.com/v.mp4"}}]}
    answer(replica, call, job_id="c", outputs=["got it"])
    assert replica.next("output")["value"] == "got it"


def test_a_call_with_inputs_that_cannot_be_sent_raises_type_error_and_sends_nothing(start_replica):
    replica = ready(start_replica, '''
        import sieve

        @sieve.function(name="caller")
        def caller() -> list:
            child = sieve.function.get("acme/child")
            said = []
            for bad in (sieve.File("/no/such/file.wav"), object()):
                try:
                    child.run(bad)
                except TypeError as error:
                    said.append(str(error))
            try:
                child.run(webhooks=[{"type": "job.complete", "url": "https://example.com"}])
            except ValueError as error:
                said.append(str(error))
            return said
    ''', "caller")
    said = replica.run({})["values"][0]
    assert said[0] == "cannot call acme/child: a sluice.File passed to another function names /no/such/file.wav, which is not a file"
    assert said[1].startswith("the inputs for acme/child are not JSON-serialisable: Object of type object")
    assert said[2].startswith("webhooks= is for calls over the API")
    assert not any(message["type"] == "call" for message in replica.received)


# --- the end ---------------------------------------------------------------------------------


def test_a_shutdown_message_ends_an_idle_replica_with_status_0(start_replica):
    replica = ready(start_replica, HELLO, "hello")
    replica.send({"type": "shutdown"})
    assert replica.exited() == 0


def test_a_replica_exits_when_the_agent_closes_the_protocol_socket(start_replica):
    replica = ready(start_replica, HELLO, "hello")
    replica.protocol.shutdown(2)
    assert replica.exited() == 0


def test_a_replica_exits_at_once_when_the_agent_goes_away_during_a_job(start_replica):
    replica = ready(start_replica, '''
        import time
        import sluice

        @sluice.function(name="slow")
        def slow() -> None:
            print("started")
            time.sleep(30)
    ''', "slow")
    replica.send({"type": "run", "job_id": "j", "run_id": "r", "inputs": {}, "env": {}})
    assert replica.logs_until("stdout", lambda text: "started" in text) == "started\n"
    started = time.monotonic()
    replica.send({"type": "shutdown"})
    assert replica.exited() == 0
    assert time.monotonic() - started < 5


def test_a_malformed_protocol_line_is_skipped_with_a_note_on_stderr(start_replica):
    replica = ready(start_replica, HELLO, "hello")
    replica.send_raw(b"this is not json\n[1, 2]\n\n")
    replica.send({"type": "call_result", "call_id": "nobody-asked", "ok": True, "outputs": []})
    assert replica.run({"name": "Ada"})["values"] == ["Hello, Ada"]
    # The protocol is read by a thread of its own, which may come to them after the job.
    note = "sluice runtime: ignored a malformed protocol message"
    stderr = replica.logs_until("stderr", lambda text: text.count(note) == 2)
    assert [line for line in stderr.splitlines() if note in line] == [f"{note}: b'this is not json\\n'", f"{note}: b'[1, 2]\\n'"]
