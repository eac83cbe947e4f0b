"""Decorator arguments the module computes: run the module (sluice._evaluate) and read them back.

The evaluator runs as a separate command the caller chooses (the build sandbox, without the
network, for ``sluice deploy``), given the folder and the module's path; it answers JSON.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from sluice._inspect_metadata import Place, metadata_from
from sluice._inspect_names import Invalid
from sluice._types import Env
from sluice.gpu import Gpu

__all__ = ["from_evaluated", "run_evaluator"]

TIMEOUT_S = 60
Evaluated = Dict[str, Dict[str, Any]]  # symbol -> argument -> JSON value


def run_evaluator(command: List[str], root: Path, relative: str) -> Tuple[Optional[Evaluated], Optional[str]]:
    """Each decorated symbol's arguments as the module computed them, or why they could not be known."""
    try:
        ran = subprocess.run([*command, str(root), relative], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return None, f"running the module took over {TIMEOUT_S} s"
    except OSError as error:
        return None, f"the module could not be run ({error})"
    try:
        answer = json.loads(ran.stdout)
    except json.JSONDecodeError:
        said = (ran.stderr.strip().splitlines() or [f"exit status {ran.returncode}"])[-1]
        return None, f"running the module failed: {said}"
    if "error" in answer:
        stand_ins = answer.get("stand_ins") or []
        note = f" (with {', '.join(stand_ins)} not installed here)" if stand_ins else ""
        return None, f"running the module failed{note}: {answer['error']}"
    return answer.get("functions") or {}, None


def from_evaluated(key: str, value: Any, place: Place) -> object:
    """An argument's evaluated JSON as the Python value the static reader would have given."""
    if isinstance(value, dict) and "__unreadable__" in value:
        raise Invalid(str(value["__unreadable__"]))
    if key == "metadata":
        return metadata_from(value, place)
    if key == "gpu" and isinstance(value, dict):
        return Gpu(str(value.get("machine_type")), value.get("split", 1))
    if key == "environment_variables" and isinstance(value, list):
        return [Env(**item) if isinstance(item, dict) else item for item in value]
    return value
