"""The rules for ``@sluice.function(...)`` options, shared by the decorator and the inspector.

One copy of the rules means a function that deploys also imports, and the other way round.
They mirror the service's own schema (shared/domain/functionMetadata.ts), so an error shows
up at inspection, with a file and line, rather than as a rejected deploy.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Callable, NamedTuple

from sluice._metadata import Metadata
from sluice._types import Env
from sluice.gpu import DEFAULT_GPU, MACHINE_TYPES, Gpu

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
ENV_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# "3.11", or Sieve's "3.12.3": a build takes the minor version's interpreter.
PYTHON_VERSION_PATTERN = re.compile(r"^(3\.\d{1,2})(?:\.\d{1,3})?$")
SYSTEM_PACKAGE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9+.-]*$")
MAX_SPLIT = 8
MAX_REPLICAS = 64
MAX_TIMEOUT_S = 86_400  # a day
MAX_RETRIES = 10  # shared/domain/scheduling.ts

# Every option, in the order the metadata document lists them, with its default.
DEFAULTS: dict[str, object] = {
    "name": None,
    "gpu": None,
    "python_version": None,
    "python_packages": [],
    "system_packages": [],
    "cuda_version": None,
    "run_commands": [],
    "environment_variables": [],
    "minimum_replicas": 0,
    "maximum_replicas": None,
    "restart_on_error": True,
    "timeout": None,
    "retries": 0,
    "title": None,
    "description": None,
    "tags": None,
    "readme": None,
    "code_url": None,
    "cover_image_url": None,
}
# Accepted, but not part of the document: its fields fill the options above.
METADATA_OPTION = "metadata"
# Sieve's 2023 decorator arguments, accepted for the code that still uses them (_with_legacy says
# how each maps); none is part of the document.
LEGACY_OPTIONS = ("machine_type", "iterator_input", "persist_output")
TEXT_FIELDS = ("cuda_version", "title", "description", "readme", "code_url", "cover_image_url")


_Fail = Callable[[str, str], None]  # typing's Callable: function processes may run Python 3.8


class FieldError(NamedTuple):
    """An error about one option; the inspector turns ``field`` into a line number."""

    field: str
    message: str


def normalize(options: Mapping[str, object]) -> tuple[dict[str, object], list[FieldError]]:
    """Check the options and return them as metadata (defaults filled, JSON-ready values).

    Every problem is reported, not just the first, so one inspection shows them all.
    """
    errors: list[FieldError] = []

    def fail(field: str, message: str) -> None:
        errors.append(FieldError(field, message))

    options = _with_legacy(_with_metadata(options, fail), fail)
    for key in options:
        if key not in DEFAULTS:
            close = difflib.get_close_matches(key, DEFAULTS.keys(), n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            fail(key, f'unknown field "{key}"{hint}')

    out: dict[str, object] = {}
    for key, default in DEFAULTS.items():
        value = options.get(key, default)
        out[key] = list(default) if isinstance(default, list) and value is default else value

    name = out["name"]
    if name is None:
        fail("name", "name is required")
    elif not isinstance(name, str):
        fail("name", f"name must be a string (got {name!r})")
    elif not NAME_PATTERN.fullmatch(name):
        fail("name", f'name "{name}" is not valid: use letters, digits, "_", "." or "-", '
             "starting with a letter or digit, at most 128 characters")

    out["gpu"] = _gpu(out["gpu"], fail)

    version = out["python_version"]
    matched = PYTHON_VERSION_PATTERN.fullmatch(version) if isinstance(version, str) else None
    if matched:
        out["python_version"] = matched.group(1)
    elif version is not None:
        fail("python_version", f'python_version must be a string like "3.11" (got {version!r})')

    python_packages = out["python_packages"] = _strings(out["python_packages"], "python_packages", fail)
    if "" in python_packages:
        fail("python_packages", "python_packages must not contain empty strings")
    system_packages = out["system_packages"] = _strings(out["system_packages"], "system_packages", fail)
    for package in system_packages:
        if not SYSTEM_PACKAGE_PATTERN.fullmatch(package):
            fail("system_packages", f'system_packages: "{package}" is not a Debian package name '
                 '(lowercase letters, digits, "+", "-" and ".")')

    run_commands = out["run_commands"] = _strings(out["run_commands"], "run_commands", fail)
    for command in run_commands:
        if not command.strip() or "\0" in command:
            fail("run_commands", f"run_commands: {command!r} is not a shell command (empty, or holds a NUL)")

    for field in TEXT_FIELDS:
        if out[field] is not None and not isinstance(out[field], str):
            fail(field, f"{field} must be a string or None (got {out[field]!r})")

    out["environment_variables"] = _environment(out["environment_variables"], fail)

    minimum = _replicas(out["minimum_replicas"])
    if minimum is None:
        fail("minimum_replicas",
             f"minimum_replicas must be an integer between 0 and {MAX_REPLICAS} (got {out['minimum_replicas']!r})")
    if out["maximum_replicas"] is not None:
        maximum = _replicas(out["maximum_replicas"])
        if maximum is None:
            fail("maximum_replicas", f"maximum_replicas must be None or an integer between 0 and {MAX_REPLICAS} "
                 f"(got {out['maximum_replicas']!r})")
        elif minimum is not None and maximum != 0 and maximum < minimum:
            fail("maximum_replicas",
                 f"maximum_replicas ({maximum}) must be at least minimum_replicas ({minimum}), or 0 for no cap")

    if not isinstance(out["restart_on_error"], bool):
        fail("restart_on_error", f"restart_on_error must be True or False (got {out['restart_on_error']!r})")

    timeout = out["timeout"]
    if timeout is not None and not (_is_int(timeout) and 1 <= timeout <= MAX_TIMEOUT_S):
        fail("timeout", f"timeout must be None or whole seconds between 1 and {MAX_TIMEOUT_S} (got {timeout!r})")

    retries = out["retries"]
    if not (_is_int(retries) and 0 <= retries <= MAX_RETRIES):
        fail("retries", f"retries must be a whole number of times between 0 and {MAX_RETRIES} (got {retries!r})")

    if out["tags"] is not None:
        out["tags"] = _strings(out["tags"], "tags", fail, " or None")

    return out, errors


def _with_metadata(options: Mapping[str, object], fail: _Fail) -> Mapping[str, object]:
    """The options with ``metadata``'s fields filled in: a field may be given one way only."""
    if METADATA_OPTION not in options:
        return options
    merged = {key: value for key, value in options.items() if key != METADATA_OPTION}
    metadata = options[METADATA_OPTION]
    if metadata is None:
        return merged
    if not isinstance(metadata, Metadata):
        fail(METADATA_OPTION, f"metadata must be sluice.Metadata(...) or None (got {metadata!r})")
        return merged
    for key, value in metadata.options().items():
        if merged.get(key) is not None:
            fail(key, f"{key} is given twice: as an argument and in metadata")
        merged[key] = value
    return merged


def _with_legacy(options: Mapping[str, object], fail: _Fail) -> Mapping[str, object]:
    """The options with Sieve's 2023 arguments read: ``machine_type`` names the GPU of ``gpu=True``
    (or of a gpu left unset); ``iterator_input`` and ``persist_output`` must be booleans and stay
    out of the document (the runtime reads ``iterator_input`` from the decorator itself)."""
    if not any(key in options for key in LEGACY_OPTIONS):
        return options
    merged = {key: value for key, value in options.items() if key not in LEGACY_OPTIONS}
    for key in ("iterator_input", "persist_output"):
        if not isinstance(options.get(key, False), bool):
            fail(key, f"{key} must be True or False (got {options[key]!r})")
    machine_type = options.get("machine_type")
    if machine_type is None:
        return merged
    gpu = merged.get("gpu")
    if not isinstance(machine_type, str):
        fail("machine_type", f"machine_type must be a string such as \"a100\" (got {machine_type!r})")
    elif gpu is True or gpu is None:
        merged["gpu"] = machine_type  # _gpu reads the name, or says it is none of this service's
    elif gpu is not False:
        fail("machine_type", "machine_type is Sieve's older spelling of gpu=: give one or the other")
    return merged


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _replicas(value: object) -> int | None:
    """The replica count, or None when it is not an integer in range."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_REPLICAS:
        return value
    return None


def _strings(value: object, field: str, fail: _Fail, alternative: str = "") -> list[str]:
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    fail(field, f"{field} must be a list of strings{alternative} (got {value!r})")
    return []


def _gpu(value: object, fail: _Fail) -> dict[str, object] | None:
    if value is None or value is False:
        return None
    if value is True:  # Sieve's 2023 gpu=True, without a machine_type: its default GPU
        value = Gpu(DEFAULT_GPU)
    elif isinstance(value, str):  # Sieve's gpu="l4", machine_type="a100"; a name of no GPU here is refused below
        machine_type = _machine_type(value)
        value = Gpu(machine_type) if machine_type is not None else value
    if not isinstance(value, Gpu) or value.machine_type not in MACHINE_TYPES.values():
        choices = ", ".join(f"sluice.gpu.{n}(split=N)" for n in MACHINE_TYPES)
        fail("gpu", f"gpu must be None or one of {choices} (got {value!r})")
        return None
    if not _is_int(value.split):
        fail("gpu", f"gpu.split must be an integer (got {value.split!r})")
    elif not 1 <= value.split <= MAX_SPLIT:
        fail("gpu", f"gpu.split must be between 1 and {MAX_SPLIT} (got {value.split})")
    return value.to_dict()


_MEMORY_SUFFIX = re.compile(r"^\d+gb$")


def _machine_type(name: str) -> str | None:
    """The machine type a Sieve GPU name means: "l4", "A100-20GB", or a host variant of one
    ("T4-highmem-8-ssd": a T4); None for a GPU this service has none of ("a100-80gb", "h100")."""
    lowered = name.lower()
    if lowered in MACHINE_TYPES.values():
        return lowered
    for known in sorted(MACHINE_TYPES.values(), key=len, reverse=True):
        variant = lowered[len(known) + 1:]
        if lowered.startswith(known + "-") and not _MEMORY_SUFFIX.fullmatch(variant):
            return known
    return None


def _environment(value: object, fail: _Fail) -> list[dict[str, str]]:
    field = "environment_variables"
    if not isinstance(value, (list, tuple)):
        fail(field, f"{field} must be a list of sluice.Env(...) (got {value!r})")
        return []
    result: list[dict[str, str]] = []
    seen: set[str] = set()
    for i, env in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(env, Env):
            fail(field, f"{where} must be sluice.Env(name=..., description=..., default=...) (got {env!r})")
            continue
        default = _env_default(env.default)
        description = "" if env.description is None else env.description
        ok = default is not _NOT_TEXT
        if not ok:
            fail(field, f"{where}.default must be a string, a number, a bool or None (got {env.default!r})")
        for attr, text in (("name", env.name), ("description", description)):
            if not isinstance(text, str):
                fail(field, f"{where}.{attr} must be a string (got {text!r})")
                ok = False
        if not ok:
            continue
        if not ENV_NAME_PATTERN.fullmatch(env.name):
            fail(field, f'{where}.name must be a valid identifier such as "API_TOKEN" (got "{env.name}")')
        elif env.name in seen:
            fail(field, f'{where}.name "{env.name}" is declared twice')
        seen.add(env.name)
        result.append({"name": env.name, "description": description, "default": default})
    return result


_NOT_TEXT = object()


def _env_default(value: object) -> object:
    """An Env's default as the string the variable holds (None: required), or _NOT_TEXT."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):  # Sieve's Env(default=30): the variable reads "30"
        return str(value)
    return _NOT_TEXT

