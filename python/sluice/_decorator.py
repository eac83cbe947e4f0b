"""``@sluice.function(...)``: marks a function or class as a Sluice function.

The decorator hands back the decorated object unchanged, so it is still callable (and
testable) as plain Python, and attaches a :class:`FunctionSpec` as ``__sluice_function__``.
A runtime finds it with :func:`find_functions` on the imported module, or through
:func:`registered`. What the service knows about a function (inputs, outputs, packages)
comes from the inspector, which reads the source without importing it; the spec here is
for the process that actually runs the code.
"""

from __future__ import annotations

import inspect
import re
import typing
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Dict, Optional, Sequence, TypeVar

from sluice._metadata import Metadata
from sluice._remote import RemoteError, RemoteFunction, RemoteJob, set_remote_caller
from sluice._schema import normalize
from sluice._types import Env
from sluice.gpu import Gpu

__all__ = ["FunctionSpec", "Model", "RemoteError", "RemoteFunction", "RemoteJob", "function", "find_functions",
           "observe_decorators", "reference", "registered", "set_remote_caller", "workflow", "ATTRIBUTE"]

ATTRIBUTE = "__sluice_function__"

T = TypeVar("T")


@dataclass(frozen=True)
class FunctionSpec:
    """What the decorator recorded: the options as metadata, and how to call the target."""

    name: str
    kind: str  # "function" or "class"
    generator: bool  # True when outputs stream (the function, or __predict__, yields)
    target: Any = field(repr=False)
    options: dict[str, Any] = field(default_factory=dict)
    iterator_input: bool = False  # Sieve's 2023 argument: each input arrives as an iterator of values


_REGISTRY: dict[str, FunctionSpec] = {}

# Set by the deploy-time evaluator (sluice._evaluate): told each decorator's arguments as given,
# it takes the place of the checks, so the inspector reports problems with their lines.
Observer = Callable[[Dict[str, Any], Any], None]
_observer: Optional[Observer] = None


def observe_decorators(observer: Optional[Observer]) -> None:
    global _observer
    _observer = observer


class _FunctionDecorator:
    """The object behind ``sluice.function`` (and Sieve's ``Model``): a decorator factory, with ``.get``."""

    def __call__(
        self,
        _target: object = None,
        *,
        name: str | None = None,
        gpu: Gpu | None = None,
        python_version: str | None = None,
        python_packages: Sequence[str] = (),
        system_packages: Sequence[str] = (),
        cuda_version: str | None = None,
        run_commands: Sequence[str] = (),
        environment_variables: Sequence[Env] = (),
        minimum_replicas: int = 0,
        maximum_replicas: int | None = None,
        restart_on_error: bool = True,
        timeout: int | None = None,
        retries: int = 0,
        title: str | None = None,
        description: str | None = None,
        tags: Sequence[str] | None = None,
        readme: str | None = None,
        code_url: str | None = None,
        cover_image_url: str | None = None,
        metadata: Metadata | None = None,
        machine_type: str | None = None,
        iterator_input: bool = False,
        persist_output: bool = False,
    ) -> Callable[[T], T]:
        if _target is not None:  # a bare @sluice.function: say what is missing, not a TypeError about arguments
            raise TypeError('name is required: write @sluice.function(name="...")')
        given = {key: value for key, value in locals().items() if key not in ("self", "_target")}
        if _observer is not None:
            observer = _observer

            def observed(target: T) -> T:
                observer(given, target)
                return target

            return observed
        legacy = {"machine_type": machine_type, "iterator_input": iterator_input, "persist_output": persist_output}
        options, errors = normalize(
            {
                "name": name,
                "gpu": gpu,
                "python_version": python_version,
                "python_packages": python_packages,
                "system_packages": system_packages,
                "cuda_version": cuda_version,
                "run_commands": run_commands,
                "environment_variables": environment_variables,
                "minimum_replicas": minimum_replicas,
                "maximum_replicas": maximum_replicas,
                "restart_on_error": restart_on_error,
                "timeout": timeout,
                "retries": retries,
                "title": title,
                "description": description,
                "tags": tags,
                "readme": readme,
                "code_url": code_url,
                "cover_image_url": cover_image_url,
                "metadata": metadata,
                **{key: value for key, value in legacy.items() if value not in (None, False)},
            }
        )
        if errors:
            raise ValueError("; ".join(e.message for e in errors))

        def decorate(target: T) -> T:
            spec = _spec_for(str(options["name"]), target, options, iterator_input)
            setattr(target, ATTRIBUTE, spec)
            _REGISTRY[spec.name] = spec
            return target

        return decorate

    @staticmethod
    def get(ref: str) -> RemoteFunction:
        """A handle on another deployed function, ``"owner/name"``."""
        if not isinstance(ref, str) or ref.count("/") != 1:
            raise ValueError(f'sluice.function.get needs "owner/name" (got {ref!r})')
        return RemoteFunction(ref)


function = _FunctionDecorator()
# Sieve's name for a class with __setup__ and __predict__: the same decorator.
Model = function
# Sieve's 2023 workflow: a function whose body calls others (sieve.reference); deployed as one.
workflow = function


def reference(ref: str) -> RemoteFunction:
    """Sieve's 2023 ``sieve.reference("owner/name")``: a deployed function, called as ``ref(inputs)``."""
    return function.get(ref)


def _spec_for(name: str, target: object, options: dict[str, Any], iterator_input: bool) -> FunctionSpec:
    if inspect.isclass(target):
        predict = getattr(target, "__predict__", None)
        if not callable(predict):
            raise TypeError(f"class {target.__name__} decorated with @sluice.function must define __predict__")
        return FunctionSpec(name, "class", _streams(predict), target, options, iterator_input)
    if callable(target):
        return FunctionSpec(name, "function", _streams(target), target, options, iterator_input)
    raise TypeError(f"@sluice.function decorates a function or a class (got {target!r})")


_ITERATOR_ANNOTATION = re.compile(r"^(?:[\w.]+\.)?(?:Async)?(?:Iterator|Iterable|Generator)\b")


def _streams(fn: object) -> bool:
    """Whether outputs stream: the function yields, or says it returns an iterator.

    Matches the inspector's rule, so the runtime and the service agree on streaming.
    """
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        return True
    returns = getattr(fn, "__annotations__", {}).get("return")
    if returns is None:
        return False
    if not isinstance(returns, str):  # a real type; postponed annotations arrive as strings
        origin = typing.get_origin(returns) or returns
        returns = f"{getattr(origin, '__module__', '')}.{getattr(origin, '__qualname__', '')}"
    return bool(_ITERATOR_ANNOTATION.match(returns))


def find_functions(module: ModuleType) -> dict[str, FunctionSpec]:
    """The Sluice functions a module defines at top level, by symbol name."""
    found: dict[str, FunctionSpec] = {}
    for symbol, value in vars(module).items():
        spec = getattr(value, ATTRIBUTE, None) if not isinstance(value, ModuleType) else None
        if isinstance(spec, FunctionSpec) and spec.target is value:
            found[symbol] = spec
    return found


def registered() -> dict[str, FunctionSpec]:
    """Every function decorated in this process so far, by function name."""
    return dict(_REGISTRY)
