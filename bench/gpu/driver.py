"""Pushes jobs to a running Sluice through its HTTP API and reports what it sees (stdlib only)."""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

BASE = os.environ["SLUICE_BASE"]
KEY = os.environ["SLUICE_KEY"]
FN = os.environ.get("FN", "local/gpu-matmul")
N = int(os.environ.get("N", "8192"))
ITERS = int(os.environ.get("ITERS", "20"))
WARM = int(os.environ.get("WARM", "10"))
LONG_ITERS = int(os.environ.get("LONG_ITERS", "2000"))
JOB_TIMEOUT_S = float(os.environ.get("JOB_TIMEOUT_S", "150"))


def say(*parts):
    # run.sh's step() copies this output into the report.
    print(" ".join(str(p) for p in parts), flush=True)


def call(method, path, body=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={"X-API-Key": KEY, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode()
            return resp.status, (json.loads(text) if text.startswith(("{", "[")) else text)
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()[:2000]


def run_job(inputs, label):
    """Push, then poll every 50 ms: client-side push->processing->end, plus the job's own timestamps."""
    t0 = time.time()
    status, job = call("POST", "/v2/push", {"function": FN, "inputs": inputs})
    if status >= 300:
        say(f"[{label}] push failed: {status} {job}")
        return None
    job_id, seen_processing = job["id"], None
    while time.time() - t0 < JOB_TIMEOUT_S:
        status, job = call("GET", f"/v2/jobs/{job_id}")
        if status == 200 and job.get("status") == "processing" and seen_processing is None:
            seen_processing = time.time()
        if status == 200 and job.get("status") in ("finished", "error", "cancelled"):
            break
        time.sleep(0.05)
    else:
        say(f"[{label}] job {job_id} did not end within {JOB_TIMEOUT_S}s; last: {json.dumps(job)[:1500]}")
        return None
    t_end = time.time()
    out = job.get("outputs") or []
    first = out[0].get("data") if out and isinstance(out[0], dict) else out
    row = {
        "label": label,
        "id": job_id,
        "status": job.get("status"),
        "client_push_to_processing_s": None if seen_processing is None else round(seen_processing - t0, 3),
        "client_push_to_end_s": round(t_end - t0, 3),
        "created_at": job.get("created_at"),
        "started_at": job.get("started_at"),
        "completed_at": job.get("completed_at"),
        "output": first,
        "error": job.get("error"),
    }
    say(f"[{label}] {json.dumps(row)}")
    return row


def nvidia_smi(label):
    try:
        text = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except Exception as err:  # noqa: BLE001 - fail soft: the report says why
        text = f"nvidia-smi failed: {err}"
    say(f"--- nvidia-smi {label} ---\n{text}")


def show(path):
    status, body = call("GET", path)
    say(f"--- GET {path} -> {status}\n{json.dumps(body, indent=1)[:6000] if not isinstance(body, str) else body[:6000]}")
    return body


def main():
    say(f"=== jobs: {FN} n={N} iters={ITERS} warm={WARM}")
    cold = run_job({"n": N, "iters": ITERS}, "cold")
    nvidia_smi("between jobs (replica alive)")
    ok = bool(cold) and cold["status"] == "finished"
    if not ok:
        say("cold job did not finish: warm jobs skipped; the version's build and replica logs follow")
        version = show(f"/v2/functions/{FN}/versions/latest")
        if isinstance(version, dict) and version.get("id"):
            show(f"/v2/logs?version_id={version['id']}")
        if cold:
            show(f"/v2/logs?job_id={cold['id']}")
    warm = []
    for i in range(WARM if ok else 0):
        row = run_job({"n": N, "iters": ITERS}, f"warm{i + 1}")
        if row:
            warm.append(row)
    if ok:
        # A longer job, with nvidia-smi read while it runs.
        sampler = threading.Timer(1.5, nvidia_smi, args=("during a long job",))
        sampler.start()
        run_job({"n": N, "iters": LONG_ITERS}, "long")
        sampler.join()
    say("=== summary")
    if cold:
        say(f"cold: push->processing {cold['client_push_to_processing_s']}s, push->finished {cold['client_push_to_end_s']}s (client clock)")
    ends = sorted(r["client_push_to_end_s"] for r in warm if r["status"] == "finished")
    if ends:
        say(f"warm ({len(ends)} finished of {WARM}): push->finished min {ends[0]}s median {ends[len(ends) // 2]}s max {ends[-1]}s")
        tf = [r["output"].get("tflops") for r in warm if isinstance(r.get("output"), dict)]
        say(f"warm TFLOP/s per job: {[float('%.4g' % x) for x in tf if x is not None]}")
    show(f"/v2/functions/{FN}/versions/latest")
    show("/v2/usage")
    show(f"/v2/usage/function/{FN}")
    if cold:
        show(f"/v2/usage/job/{cold['id']}")
    show("/v2/services/compute")
    status, metrics = call("GET", "/metrics")
    say(f"--- /metrics -> {status}\n" + "\n".join(l for l in str(metrics).splitlines() if l.startswith(("sluice_job_start_latency_seconds_sum", "sluice_job_start_latency_seconds_count", "sluice_job_duration_seconds_sum", "sluice_job_duration_seconds_count", "sluice_replica", "sluice_builds_total"))))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
