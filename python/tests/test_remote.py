"""Calling deployed functions (sluice._remote): ``sluice.function.get(...).run / .push`` over the
HTTP API from any program (against a local server playing the service), and through the agent from
inside a job (a RemoteJob, asked through the watcher the runtime gives it)."""

import concurrent.futures
import json
import threading

import pytest

import sieve
import sluice
from sluice import _remote
from sluice._remote import Job, RemoteError, RemoteFunction, RemoteJob, _named, set_remote_caller
from sluice._types import File


@pytest.fixture
def api(serve, service_env):
    """A service with acme/child (inputs a, b) and acme/words (streams), whose jobs are scripted
    by ``jobs[job_id]``: the list of answers its reads give, one after another (the last one from
    then on); its await answers the last."""
    state = {"pushed": [], "jobs": {}, "versions": {
        "acme/child": {"inputs": [{"name": "a"}, {"name": "b"}], "stream_output": False},
        "acme/words": {"inputs": [{"name": "text"}], "stream_output": True},
    }}

    def handle(method, path, headers, body):
        if path.startswith("/v2/functions/"):
            owner, name = path.split("/")[3:5]
            version = state["versions"].get(f"{owner}/{name}")
            return (200, version) if version else (404, {"detail": "no such function"})
        if path == "/v2/push":
            pushed = json.loads(body)
            state["pushed"].append(pushed)
            return 200, {"id": f"job-{len(state['pushed'])}"}
        job_id = path.split("/")[3].split("?")[0]
        answers = state["jobs"][job_id]
        if path.endswith("/await"):
            return 200, answers[-1]
        return 200, answers.pop(0) if len(answers) > 1 else answers[0]

    service = serve(handle)
    service_env.setenv("SLUICE_URL", service.url)
    service_env.setenv("SLUICE_API_KEY", "k")
    state["service"] = service
    return state


def finished(job_id, *values, **fields):
    return {"id": job_id, "status": "finished", "outputs": [{"type": "any", "data": value} for value in values], **fields}


def test_run_over_the_api_names_positional_arguments_after_the_versions_inputs_and_returns_the_value(api):
    api["jobs"]["job-1"] = [finished("job-1", "result")]
    assert sluice.function.get("acme/child").run(1, b=2) == "result"
    assert api["pushed"] == [{"function": "acme/child", "inputs": {"a": 1, "b": 2}}]


def test_a_function_that_returned_nothing_runs_to_none(api):
    api["jobs"]["job-1"] = [finished("job-1")]
    assert sluice.function.get("acme/child").run() is None


def test_run_over_the_api_raises_remote_error_with_the_jobs_error(api):
    api["jobs"]["job-1"] = [{"id": "job-1", "status": "error", "error": "ValueError: a must be positive\n"}]
    with pytest.raises(RemoteError) as raised:
        sluice.function.get("acme/child").run(a=-1)
    assert (raised.value.function, raised.value.error) == ("acme/child", "ValueError: a must be positive\n")
    assert str(raised.value) == "acme/child failed: ValueError: a must be positive\n"


def test_a_cancelled_job_fails_naming_its_status(api):
    api["jobs"]["job-1"] = [{"id": "job-1", "status": "cancelled"}]
    with pytest.raises(RemoteError, match="the job ended cancelled"):
        sluice.function.get("acme/child").run()


def test_push_gives_a_future_of_the_result_with_the_job_id_status_and_outputs(api):
    api["jobs"]["job-1"] = [finished("job-1", {"n": 1})]
    api["jobs"]["job-2"] = [finished("job-2", {"n": 2})]
    child = sieve.function.get("acme/child")
    jobs = [child.push(a=1), child.push(a=2, webhooks=[{"type": "job.complete", "url": "https://example.com/h"}])]
    assert all(isinstance(job, Job) and isinstance(job, concurrent.futures.Future) for job in jobs)
    assert sorted(job.result()["n"] for job in concurrent.futures.as_completed(jobs, timeout=10)) == [1, 2]
    assert [job.job_id for job in jobs] == ["job-1", "job-2"] and jobs[0].id == "job-1"
    assert jobs[0].status == "finished"
    assert list(jobs[1].outputs) == [{"n": 2}]
    assert api["pushed"][1]["webhooks"] == [{"type": "job.complete", "url": "https://example.com/h"}]
    assert repr(jobs[0]) == "<sluice.Job job-1 of acme/child>"


def test_a_streaming_functions_run_is_an_iterator_of_its_outputs_as_they_come(api, monkeypatch):
    monkeypatch.setattr(_remote, "POLL_S", 0.01)
    api["jobs"]["job-1"] = [
        {"id": "job-1", "status": "processing", "outputs": []},
        {"id": "job-1", "status": "processing", "outputs": [{"data": "a"}]},
        {"id": "job-1", "status": "finished", "outputs": [{"data": "b"}]},
    ]
    words = sluice.function.get("acme/words").run("a b")
    assert iter(words) is words
    assert list(words) == ["a", "b"]


def test_a_streaming_jobs_outputs_raise_remote_error_when_it_fails_after_some(api, monkeypatch):
    monkeypatch.setattr(_remote, "POLL_S", 0.01)
    api["jobs"]["job-1"] = [{"id": "job-1", "status": "error", "outputs": [{"data": "a"}], "error": "boom"}]
    job = sluice.function.get("acme/words").push("a b")
    seen = []
    with pytest.raises(RemoteError, match="boom"):
        for output in job.outputs:
            seen.append(output)
    assert seen == ["a"]


def test_a_streaming_jobs_result_within_a_timeout_is_an_iterator_of_all_its_outputs(api):
    api["jobs"]["job-1"] = [finished("job-1", "a", "b")]
    job = sluice.function.get("acme/words").push("a b")
    result = job.result(timeout=10)
    assert iter(result) is result and list(result) == ["a", "b"]


def test_too_many_positional_arguments_or_one_given_twice_is_a_type_error_before_any_push(api):
    child = sluice.function.get("acme/child")
    with pytest.raises(TypeError, match=r"acme/child takes 2 inputs \(a, b\), 3 positional arguments were given"):
        child.run(1, 2, 3)
    with pytest.raises(TypeError, match="acme/child got input 'a' both by position and by name"):
        child.push(1, a=1)
    assert api["pushed"] == []


def test_positional_arguments_are_named_in_the_order_of_the_inputs():
    version = {"inputs": [{"name": "x"}, {"name": "y"}]}
    assert _named("o/f", version, (1,), {"y": 2}) == {"x": 1, "y": 2}
    assert _named("o/f", {}, (), {"z": 3}) == {"z": 3}
    with pytest.raises(TypeError, match=r"takes 0 inputs \(none\), 1 positional"):
        _named("o/f", {}, (1,), {})
    with pytest.raises(TypeError, match=r"takes 1 input \(x\), 2 positional"):
        _named("o/f", {"inputs": [{"name": "x"}]}, (1, 2), {})


def test_a_function_reference_must_be_owner_slash_name():
    for bad in ("hello", "a/b/c", 3):
        with pytest.raises(ValueError, match='needs "owner/name"'):
            sluice.function.get(bad)
    assert sluice.function.get("a/b") == RemoteFunction("a/b")
    assert sieve.reference("a/b") == RemoteFunction("a/b")


def test_a_file_input_over_the_api_is_uploaded_or_passed_by_its_url(api):
    api["jobs"]["job-1"] = [finished("job-1")]
    sluice.function.get("acme/child").run(File(url="https://example.com/a.png"))
    assert api["pushed"][0]["inputs"] == {"a": {"_type": "sieve.File", "url": "https://example.com/a.png"}}


# --- inside a job: the runtime's caller ------------------------------------------------------


@pytest.fixture
def in_a_job():
    calls = []

    def caller(ref, inputs, wait, args):
        calls.append((ref, inputs, wait, args))
        return "answer"

    set_remote_caller(caller)
    yield calls
    set_remote_caller(None)


def test_in_a_job_run_push_and_sieves_2023_call_go_through_the_runtimes_caller(in_a_job):
    child = sluice.function.get("acme/child")
    assert child.run(1, b=2) == "answer"
    assert child.push(a=1) == "answer"
    assert sieve.reference("acme/child")(3) == "answer"
    assert in_a_job == [("acme/child", {"b": 2}, True, (1,)), ("acme/child", {"a": 1}, False, ()), ("acme/child", {}, True, (3,))]


def test_in_a_job_a_call_takes_no_webhooks(in_a_job):
    with pytest.raises(ValueError, match="webhooks= is for calls over the API"):
        sluice.function.get("acme/child").push(webhooks=[{"type": "job.complete", "url": "https://x"}])
    assert in_a_job == []


class Agent:
    """Answers a RemoteJob's questions (``watch(job_id, offset, until)``) from a script, recording them."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []
        self.lock = threading.Lock()

    def __call__(self, job_id, offset, until):
        with self.lock:
            self.asked.append((job_id, offset, until))
            answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def value_of(outputs):
    return outputs[0] if len(outputs) == 1 else (outputs or None)


def test_a_pushed_job_in_a_job_asks_nothing_until_something_waits_for_it():
    agent = Agent({"status": "finished", "outputs": [5]})
    job = RemoteJob("acme/child", "c1", agent, value_of)
    assert agent.asked == [] and job.running()
    assert job.result(timeout=5) == 5
    assert agent.asked == [("c1", 0, "end")]
    assert job.job_id == job.id == "c1" and repr(job) == "<sluice.RemoteJob c1 of acme/child>"


def test_waiting_on_pushed_jobs_with_concurrent_futures_starts_their_waits():
    agents = [Agent({"status": "finished", "outputs": [n]}) for n in range(3)]
    jobs = [RemoteJob("acme/child", f"c{n}", agent, value_of) for n, agent in enumerate(agents)]
    done, pending = concurrent.futures.wait(jobs, timeout=5)
    assert len(done) == 3 and not pending
    assert [job.result() for job in jobs] == [0, 1, 2]
    assert all(agent.asked == [(f"c{n}", 0, "end")] for n, agent in enumerate(agents))


def test_a_pushed_job_that_failed_raises_remote_error_from_its_result():
    job = RemoteJob("acme/child", "c1", Agent({"status": "error", "error": "ValueError: no\n"}), value_of)
    error = job.exception(timeout=5)
    assert isinstance(error, RemoteError) and error.error == "ValueError: no\n"
    with pytest.raises(RemoteError):
        job.result()


def test_a_pushed_job_the_agent_refuses_to_watch_fails_with_the_agents_error():
    refusal = RemoteError("acme/child", "not this job's child")
    job = RemoteJob("acme/child", "c1", Agent(refusal), value_of)
    assert job.exception(timeout=5) is refusal


def test_a_pushed_jobs_status_is_asked_now_and_its_outputs_as_they_come():
    agent = Agent({"status": "processing"}, {"status": "processing", "outputs": ["a", {"_type": "sieve.File", "url": "https://x/f"}]},
                  {"status": "finished", "outputs": ["c"]})
    job = RemoteJob("acme/words", "w", agent, value_of, stream=True)
    assert job.status == "processing"
    assert list(job.result()) == ["a", File(url="https://x/f"), "c"]  # a stream's result: its outputs as they come
    assert agent.asked == [("w", 0, "now"), ("w", 0, "output"), ("w", 2, "output")]


def test_a_streaming_pushed_jobs_outputs_raise_when_it_fails():
    agent = Agent({"status": "error", "outputs": ["a"], "error": "boom"})
    seen = []
    with pytest.raises(RemoteError, match="boom"):
        for output in RemoteJob("acme/words", "w", agent, value_of, stream=True).outputs:
            seen.append(output)
    assert seen == ["a"]


def test_a_pushed_job_cannot_be_cancelled_from_its_future():
    job = RemoteJob("acme/child", "c1", Agent({"status": "finished", "outputs": []}), value_of)
    assert job.cancel() is False
    assert job.result(timeout=5) is None
