"""The service's HTTP API from a Python program (sluice._client, sluice._service), against a real
local HTTP server (http.server in a thread) that plays the service."""

import json
import socket
import threading
import urllib.error

import pytest

from sluice import _client
from sluice._client import ApiError, Client, decode_output, encode_value
from sluice._media import Image
from sluice._service import DEFAULT_URL, base_url, configured, key_header_for
from sluice._types import File

# --- configuration ---------------------------------------------------------------------------


def test_the_service_is_named_by_sluice_variables_first_then_sieves_then_the_local_default():
    assert configured({}) == (DEFAULT_URL, None)
    assert configured({"SIEVE_API_URL": "https://sieve", "SIEVE_API_KEY": "s"}) == ("https://sieve", "s")
    both = {"SLUICE_URL": "https://sluice", "SLUICE_API_KEY": "k", "SIEVE_API_URL": "https://sieve", "SIEVE_API_KEY": "s"}
    assert configured(both) == ("https://sluice", "k")
    assert configured({"SLUICE_URL": "", "SIEVE_API_URL": "https://sieve", "SLUICE_API_KEY": ""}) == ("https://sieve", None)


def test_a_client_from_the_environment_reads_the_process_environment(service_env):
    service_env.setenv("SIEVE_API_URL", "https://api.example.com/v2/")
    service_env.setenv("SIEVE_API_KEY", "key")
    client = Client.from_environment()
    assert (client.url, client.api_key) == ("https://api.example.com", "key")
    assert Client.from_environment({"SLUICE_URL": "http://h:1"}).url == "http://h:1"


@pytest.mark.parametrize("given, url", [
    ("http://h:8080", "http://h:8080"), ("http://h:8080/", "http://h:8080"), ("http://h:8080/v2", "http://h:8080"),
    ("http://h:8080/v2/", "http://h:8080"), ("http://h/api", "http://h/api"),
])
def test_a_services_address_is_kept_without_a_trailing_slash_or_sieves_v2(given, url):
    assert base_url(given) == url
    assert Client(given, None).url == url


@pytest.mark.parametrize("url, sent", [
    ("http://svc:8080/v2/jobs/1/outputs/a.png", True),
    ("http://svc:8080/", True),
    ("http://svc:8080", False),
    ("http://svc:8080.evil.example/a.png", False),
    ("http://svc:80801/a.png", False),
    ("https://svc:8080/a.png", False),
    ("http://other/a.png", False),
])
def test_the_api_key_goes_only_to_urls_of_the_configured_service(url, sent):
    env = {"SLUICE_URL": "http://svc:8080/v2", "SLUICE_API_KEY": "k"}
    assert key_header_for(url, env) == ({"X-API-Key": "k"} if sent else {})
    assert key_header_for(url, {"SLUICE_URL": "http://svc:8080"}) == {}  # no key, nothing to send


# --- requests --------------------------------------------------------------------------------


def test_a_request_without_an_api_key_fails_before_reaching_the_service(serve):
    service = serve(lambda *request: (200, {}))
    with pytest.raises(ApiError) as raised:
        Client(service.url, None).request("GET", "/v2/jobs")
    assert raised.value.status == 401 and "no API key" in str(raised.value)
    assert service.requests == []


def test_a_request_sends_the_key_and_json_and_answers_the_decoded_json(serve):
    service = serve(lambda method, path, headers, body: (200, {"echo": json.loads(body) if body else None}))
    client = Client(service.url, "secret")
    assert client.request("POST", "/v2/things", {"a": [1, "b"]}) == {"echo": {"a": [1, "b"]}}
    assert client.request("GET", "/v2/things") == {"echo": None}
    post, get = service.requests
    assert (post["method"], post["path"], post["headers"]["x-api-key"], post["headers"]["content-type"]) == (
        "POST", "/v2/things", "secret", "application/json")
    assert get["headers"]["accept"] == "application/json" and "content-type" not in get["headers"]


def test_an_empty_answer_is_none(serve):
    service = serve(lambda *request: (204, b""))
    assert Client(service.url, "k").request("DELETE", "/v2/x") is None


def test_an_error_answer_raises_api_error_with_the_services_status_and_detail(serve):
    answers = {"/string": (404, {"detail": "no such function"}), "/json": (422, {"detail": [{"loc": ["inputs"]}]}),
               "/text": (500, b"oops")}
    service = serve(lambda method, path, headers, body: answers[path])
    client = Client(service.url, "k")
    with pytest.raises(ApiError) as string:
        client.request("GET", "/string")
    assert (string.value.status, string.value.detail, str(string.value)) == (404, "no such function", "/string answered 404: no such function")
    with pytest.raises(ApiError) as structured:
        client.request("GET", "/json")
    assert structured.value.detail == [{"loc": ["inputs"]}] and str(structured.value) == '/json answered 422: [{"loc": ["inputs"]}]'
    with pytest.raises(ApiError) as text:
        client.request("GET", "/text")
    assert (text.value.status, text.value.detail) == (500, "Internal Server Error")  # not JSON: the reason phrase


def test_statuses_a_request_allows_answer_none_instead_of_raising(serve):
    service = serve(lambda *request: (408, {"detail": "still running"}))
    assert Client(service.url, "k").request("GET", "/v2/jobs/j/await", allow=(408,)) is None


def test_the_version_of_a_reference_is_the_latest_unless_one_is_named_with_names_quoted(serve):
    service = serve(lambda method, path, headers, body: (200, {"path": path}))
    client = Client(service.url, "k")
    assert client.version("acme/hello") == {"path": "/v2/functions/acme/hello/versions/latest"}
    assert client.version("acme/hello:v 2")["path"] == "/v2/functions/acme/hello/versions/v%202"


# --- pushing inputs --------------------------------------------------------------------------


def uploads_service(serve, uploaded):
    def handle(method, path, headers, body):
        if path == "/v2/uploads":
            upload_id = f"u{len(uploaded) + 1}"
            uploaded[upload_id] = {"size": json.loads(body)["size"]}
            return 200, {"upload_id": upload_id, "upload_url": f"{service.url}/bucket/{upload_id}"}
        if method == "PUT":
            uploaded[path.rsplit("/", 1)[-1]].update(content=body, type=headers.get("content-type"))
            return 200, b""
        if path == "/v2/push":
            return 200, {"id": "job-1", "echo": json.loads(body)}
        return 404, {"detail": path}

    service = serve(handle)
    return service


def test_a_push_uploads_each_local_file_and_sends_its_upload_id_in_its_place(serve, tmp_path):
    uploaded = {}
    service = uploads_service(serve, uploaded)
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "b.png").write_bytes(b"\x89PNG")
    (tmp_path / "empty.txt").write_text("")
    pushed = Client(service.url, "k").push("acme/f", {
        "doc": File(str(tmp_path / "a.txt")),
        "many": (Image(str(tmp_path / "b.png"), frame_number=1), {"remote": File(url="https://x/c.mp4")}),
        "empty": File(str(tmp_path / "empty.txt")),
        "n": 1,
    })
    assert pushed["echo"] == {"function": "acme/f", "inputs": {
        "doc": {"_type": "sieve.File", "upload_id": "u1", "name": "a.txt"},
        "many": [{"frame_number": 1, "_type": "sieve.File", "upload_id": "u2", "name": "b.png"},
                 {"remote": {"_type": "sieve.File", "url": "https://x/c.mp4"}}],
        "empty": {"_type": "sieve.File", "url": "data:text/plain;base64,"},  # the service takes no empty upload
        "n": 1,
    }}
    assert uploaded == {"u1": {"size": 5, "content": b"alpha", "type": "text/plain"},
                        "u2": {"size": 4, "content": b"\x89PNG", "type": "image/png"}}
    assert "webhooks" not in pushed["echo"]


def test_a_push_with_webhooks_sends_them(serve):
    service = uploads_service(serve, {})
    hooks = [{"type": "job.complete", "url": "https://example.com/hook"}]
    assert Client(service.url, "k").push("acme/f", {}, hooks)["echo"]["webhooks"] == hooks


def test_encoding_an_input_gives_a_file_by_url_or_as_a_data_url_and_refuses_other_objects(tmp_path):
    (tmp_path / "a.txt").write_text("hi")
    assert encode_value(File(url="https://x/a")) == {"_type": "sieve.File", "url": "https://x/a"}
    assert encode_value(File(str(tmp_path / "a.txt"))) == {"_type": "sieve.File", "url": "data:text/plain;base64,aGk="}
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encode_value({1})


def test_a_struct_input_is_sent_as_its_fields():
    import sluice

    class Point(sluice.Struct):
        x: int
        y: int = 2

    assert encode_value(Point(x=1)) == {"x": 1, "y": 2}


# --- reading jobs ----------------------------------------------------------------------------


def test_a_job_is_read_with_all_its_outputs_across_the_pages_the_service_gives(serve):
    pages = {"0": {"id": "j", "status": "processing", "outputs": [{"data": 1}], "next_output_offset": 1, "outputs_truncated": True},
             "1": {"id": "j", "status": "finished", "outputs": [{"data": 2}, {"data": 3}], "next_output_offset": 3},
             "3": {"id": "j", "status": "finished", "outputs": []}}
    service = serve(lambda method, path, headers, body: (200, pages[path.rsplit("=", 1)[-1]]))
    job = Client(service.url, "k").job("j")
    assert job == {"id": "j", "status": "processing", "outputs": [{"data": 1}, {"data": 2}, {"data": 3}]}
    assert service.paths() == ["GET /v2/jobs/j?offset=0", "GET /v2/jobs/j?offset=1", "GET /v2/jobs/j?offset=3"]


def scripted(serve, answers):
    """A service that answers each request with the next of ``answers`` (the last one from then on)."""
    def handle(method, path, headers, body):
        return answers[min(len(service.requests) - 1, len(answers) - 1)]

    service = serve(handle)
    return service


FINISHED = (200, {"id": "j", "status": "finished", "outputs": [{"data": "ok"}]})


def test_waiting_for_a_job_asks_again_while_the_service_answers_408(serve):
    service = scripted(serve, [(408, {"detail": "still running"}), (408, {"detail": "still running"}), FINISHED])
    assert Client(service.url, "k").wait("j")["outputs"] == [{"data": "ok"}]
    assert service.paths() == ["GET /v2/jobs/j/await"] * 3


def test_waiting_for_a_job_rides_out_a_service_that_answers_503_while_it_restarts(serve, monkeypatch):
    monkeypatch.setattr(_client, "RESTART_PAUSE_S", 0.01)
    service = scripted(serve, [(503, {"detail": "stopping"}), (503, {"detail": "stopping"}), FINISHED])
    assert Client(service.url, "k").wait("j")["status"] == "finished"
    assert len(service.requests) == 3


def test_waiting_for_a_job_rides_out_a_service_that_cannot_be_reached_while_it_restarts(serve, monkeypatch):
    monkeypatch.setattr(_client, "RESTART_PAUSE_S", 0.02)
    with socket.socket() as probe:  # a port nothing listens on, until the service is back
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    back = []
    threading.Timer(0.2, lambda: back.append(serve(lambda *request: FINISHED[:2], port))).start()
    assert Client(f"http://127.0.0.1:{port}", "k").wait("j")["status"] == "finished"
    assert len(back[0].requests) == 1


def test_waiting_gives_up_on_a_service_that_stays_away_longer_than_a_restart(serve, monkeypatch):
    monkeypatch.setattr(_client, "RESTART_PAUSE_S", 0.01)
    monkeypatch.setattr(_client, "RESTART_WAIT_S", 0.05)
    service = scripted(serve, [(503, {"detail": "stopping"})])
    with pytest.raises(ApiError) as raised:
        Client(service.url, "k").wait("j")
    assert raised.value.status == 503 and len(service.requests) >= 2


def test_waiting_fails_at_once_on_an_error_that_is_not_a_restart(serve):
    service = scripted(serve, [(404, {"detail": "no such job"})])
    with pytest.raises(ApiError) as raised:
        Client(service.url, "k").wait("j")
    assert raised.value.status == 404 and len(service.requests) == 1


def test_waiting_rides_out_a_service_that_drops_the_connection_without_answering(serve, monkeypatch):
    monkeypatch.setattr(_client, "RESTART_PAUSE_S", 0.01)
    service = scripted(serve, [None, FINISHED])  # None: the connection closed without an answer
    assert Client(service.url, "k").wait("j")["status"] == "finished"


# --- outputs ---------------------------------------------------------------------------------


def test_a_file_output_is_decoded_as_a_file_by_its_url_with_its_attributes():
    output = {"type": "sieve.File", "data": {"url": "https://svc/o/a.png", "path": "/agent/a.png", "frame_number": 2}}
    made = decode_output(output)
    assert type(made) is Image and (made.url, made._path, made.frame_number) == ("https://svc/o/a.png", None, 2)


def test_other_outputs_are_their_data_with_marked_files_decoded():
    assert decode_output({"type": "dict", "data": {"n": 1}}) == {"n": 1}
    assert decode_output({"type": "str", "data": "hi"}) == "hi"
    nested = decode_output({"type": "list", "data": [{"_type": "sieve.File", "url": "https://x/a"}]})
    assert nested == [File(url="https://x/a")]
    assert decode_output({}) is None


def test_a_local_file_is_read_into_a_data_url_with_its_type(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "blob").write_bytes(b"\x00")
    assert _client._data_url(str(tmp_path / "a.json")) == "data:application/json;base64,e30="
    assert _client._data_url(str(tmp_path / "blob")) == "data:application/octet-stream;base64,AA=="
