"""The soak's functions (npm run soak): short, long, streaming, a workflow and a File round trip.

Each job's inputs carry the soak's `tag`, so the soak can tell which push made which job, and
every output is numbered or derived from the inputs, so a lost or repeated output shows.
"""

import hashlib
import os
import tempfile
import time
from typing import Iterator

import sluice


@sluice.function(name="soak-echo")
def echo(tag: str, value: int) -> dict:
    return {"tag": tag, "value": value}


@sluice.function(name="soak-sleep")
def sleep(tag: str, seconds: float) -> dict:
    time.sleep(seconds)
    return {"tag": tag, "slept": seconds}


@sluice.function(name="soak-stream")
def stream(tag: str, count: int, pause: float = 0.05) -> Iterator[dict]:
    for index in range(count):
        time.sleep(pause)
        yield {"tag": tag, "index": index}


@sluice.function(name="soak-workflow")
def workflow(tag: str, value: int, owner: str) -> dict:
    child = sluice.function.get(f"{owner}/soak-echo")
    answer = child.run(tag=f"{tag}/child", value=value * 2)
    return {"tag": tag, "child": answer}


@sluice.function(name="soak-file")
def file_digest(tag: str, document: sluice.File) -> sluice.File:
    with open(document.path, "rb") as source:
        digest = hashlib.sha256(source.read()).hexdigest()
    path = os.path.join(tempfile.mkdtemp(), f"{tag.replace('/', '-')}.txt")
    with open(path, "w") as target:
        target.write(digest)
    return sluice.File(path)
