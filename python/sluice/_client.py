"""The service's HTTP API from any Python program, with the standard library only (urllib).

Configured by SLUICE_URL and SLUICE_API_KEY, or Sieve's SIEVE_API_URL and SIEVE_API_KEY, so a
program written for Sieve only needs its variables pointed here. Used by
``sluice.function.get(...).run / .push`` outside a deployed function.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

from sluice._media import decode_files, file_from
from sluice._service import DEFAULT_URL, base_url, configured
from sluice._types import File, file_marker, loaded_struct

__all__ = ["Client", "ApiError", "DEFAULT_URL", "FINAL_STATUSES"]

FINAL_STATUSES = ("finished", "error", "cancelled")
REQUEST_TIMEOUT_S = 660  # longer than the service's await window (10 minutes), which answers 408 first
RESTART_WAIT_S = 300  # how long a wait rides out a service that stops and starts again
RESTART_PAUSE_S = 2.0


class ApiError(Exception):
    """The service answered with an error: its status and its ``detail``."""

    def __init__(self, status: int, detail: Any, path: str) -> None:
        super().__init__(f"{path} answered {status}: {detail if isinstance(detail, str) else json.dumps(detail)}")
        self.status = status
        self.detail = detail


class Client:
    """One service and key. Thread-safe: each request is its own connection."""

    def __init__(self, url: str, api_key: Optional[str]) -> None:
        self.url = base_url(url)  # Sieve's variable may name the /v2 base
        self.api_key = api_key

    @classmethod
    def from_environment(cls, env: Optional[Dict[str, str]] = None) -> "Client":
        return cls(*configured(env))

    def request(self, method: str, path: str, body: Any = None, allow: tuple = ()) -> Any:
        """A JSON request; the decoded answer, or ApiError (statuses in ``allow`` answer None)."""
        if not self.api_key:
            raise ApiError(401, "no API key: set SLUICE_API_KEY (or SIEVE_API_KEY)", path)
        data = None if body is None else json.dumps(body, default=encode_value).encode("utf-8")
        headers = {"X-API-Key": self.api_key, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:  # noqa: S310 - the configured service
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            if error.code in allow:
                return None
            raise ApiError(error.code, _detail(error), path) from None
        return json.loads(text) if text else None

    def version(self, ref: str) -> Dict[str, Any]:
        """The version a push of ``owner/name[:version]`` runs (the latest, unless named)."""
        owner, _, rest = ref.partition("/")
        name, _, slug = rest.partition(":")
        quote = urllib.parse.quote
        return self.request("GET", f"/v2/functions/{quote(owner)}/{quote(name)}/versions/{quote(slug or 'latest')}")

    def push(self, ref: str, inputs: Dict[str, Any], webhooks: Optional[List[Dict[str, str]]] = None) -> Dict[str, Any]:
        body: Dict[str, Any] = {"function": ref, "inputs": self.upload_local_files(inputs)}
        if webhooks is not None:
            body["webhooks"] = list(webhooks)
        return self.request("POST", "/v2/push", body)

    def upload_local_files(self, value: Any) -> Any:
        """The inputs with each File that is a local file uploaded (POST /v2/uploads, then a PUT
        of its bytes), given as ``{"_type": "sieve.File", "upload_id", "name"}``: as Sieve's SDK
        uploads a local file, so its size is the upload limit's, not the request body's."""
        if isinstance(value, File):
            if value.url or os.path.getsize(value.path) == 0:  # the service takes no empty upload
                return encode_value(value)
            return file_marker(value, upload_id=self.upload(value.path), name=os.path.basename(value.path))
        if isinstance(value, (list, tuple)):
            return [self.upload_local_files(item) for item in value]
        if isinstance(value, dict):
            return {key: self.upload_local_files(item) for key, item in value.items()}
        return value

    def upload(self, path: str) -> str:
        """Uploads a local file for the organization's jobs; its upload id."""
        size = os.path.getsize(path)
        upload = self.request("POST", "/v2/uploads", {"size": size})
        # A Content-Type of its own: urllib would send a body as a form, which a server may parse
        # away (moto's S3 stores such a PUT empty).
        headers = {"Content-Length": str(size), "Content-Type": mimetypes.guess_type(path)[0] or "application/octet-stream"}
        with open(path, "rb") as body:
            request = urllib.request.Request(upload["upload_url"], data=body, headers=headers, method="PUT")
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S):  # noqa: S310 - the URL the service handed out
                pass
        return str(upload["upload_id"])

    def job(self, job_id: str, offset: int = 0) -> Dict[str, Any]:
        """The job now, with all its outputs from ``offset`` (see ``_with_all_outputs``)."""
        return self._with_all_outputs(self.request("GET", f"/v2/jobs/{urllib.parse.quote(job_id)}?offset={offset}"))

    def _with_all_outputs(self, job: Dict[str, Any]) -> Dict[str, Any]:
        """An answer holds only so many bytes of outputs and says where the rest begin
        (``next_output_offset``, a Sluice field): read on, so the caller sees them all. The
        status stays the first answer's."""
        offset = job.pop("next_output_offset", None)
        job.pop("outputs_truncated", None)
        outputs = list(job.get("outputs") or [])
        while offset is not None:
            more = self.request("GET", f"/v2/jobs/{urllib.parse.quote(str(job['id']))}?offset={offset}")
            outputs.extend(more.get("outputs") or [])
            # Each answer holds at least one output; one holding none ends the walk anyway.
            offset = more.get("next_output_offset") if more.get("outputs") else None
        if outputs:
            job["outputs"] = outputs
        return job

    def wait(self, job_id: str) -> Dict[str, Any]:
        """The job once it has ended: the service's await, asked again while it answers 408, and
        through a restart of the service (503 while it stops, then no connection until it is
        back) for up to RESTART_WAIT_S: the job itself is kept, and runs on after the restart."""
        restarting_since: Optional[float] = None
        while True:
            try:
                job = self.request("GET", f"/v2/jobs/{urllib.parse.quote(job_id)}/await", allow=(408,))
            # ConnectionError: a service killed with the await in flight drops it without an answer
            # (http.client.RemoteDisconnected, which urllib does not wrap); the await is safe to ask again.
            except (ApiError, urllib.error.URLError, ConnectionError) as error:
                if isinstance(error, ApiError) and error.status != 503:
                    raise
                restarting_since = restarting_since or time.monotonic()
                if time.monotonic() - restarting_since > RESTART_WAIT_S:
                    raise
                time.sleep(RESTART_PAUSE_S)
                continue
            restarting_since = None
            if job is not None and job.get("status") in FINAL_STATUSES:
                return self._with_all_outputs(job)
            if job is not None:  # answered before the end (should not happen): don't spin
                time.sleep(0.5)


def _detail(error: urllib.error.HTTPError) -> Any:
    try:
        return json.loads(error.read().decode("utf-8")).get("detail")
    except Exception:  # not JSON: the reason phrase will do
        return error.reason


def encode_value(value: Any) -> Any:
    """JSON for the SDK's own types in inputs: a File as ``{"_type": "sieve.File", "url": ...}``
    (a local file not uploaded, an empty one, as a data: URL), a Struct as its fields."""
    if isinstance(value, File):
        # Marked, so a File in a dict or list is one too; a whole File input reads the url alone.
        if value.url:
            return file_marker(value, url=value.url)
        return file_marker(value, url=_data_url(value.path))
    struct = loaded_struct()
    if struct is not None and isinstance(value, struct):
        return value.to_dict()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _data_url(path: str) -> str:
    kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
    with open(path, "rb") as f:
        return f"data:{kind};base64,{base64.b64encode(f.read()).decode('ascii')}"


def decode_output(output: Dict[str, Any]) -> Any:
    """An output as the function returned it: a File output as a File with its URL."""
    data = output.get("data")
    kind = str(output.get("type") or "")
    if kind.endswith(".File") and isinstance(data, dict) and isinstance(data.get("url"), str):
        return file_from({key: value for key, value in data.items() if key != "path"})  # by its URL, with its attributes
    return decode_files(data)
