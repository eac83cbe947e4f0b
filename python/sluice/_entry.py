"""The entry point a replica runs: the entry file imported, and what its callable's signature asks.

``Entry`` reads the parameters once (which are Files of which class, which are Structs, which
only positional) so each job's inputs become the call's arguments without looking again.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from sluice._annotations import file_class, struct_class

__all__ = ["Entry", "import_entry"]

Message = Dict[str, Any]
_MISSING = object()


class Entry:
    """The callable a job runs (the function, or the instance's __predict__) and what its signature says."""

    def __init__(self, call: Callable[..., Any], generator: bool, iterator_input: bool = False) -> None:
        self.call = call
        self.generator = generator
        self.iterator_input = iterator_input  # Sieve's 2023 argument: each input an iterator of its values
        function = getattr(call, "__func__", call)
        annotations = getattr(function, "__annotations__", None) or {}
        returns = annotations.get("return", _MISSING)
        self.returns_none = returns is None or returns is type(None) or (
            isinstance(returns, str) and returns.strip() == "None")
        self.positional_only: List[str] = []
        self.keywords: Set[str] = set()
        self.file_params: Dict[str, type] = {}  # parameter -> the File class it is annotated with
        self.struct_params: Dict[str, type] = {}
        self.any_keyword = False
        try:
            signature = inspect.signature(call)
        except (TypeError, ValueError):  # no signature to read: pass every input by name
            self.any_keyword = True
            return
        namespace = getattr(function, "__globals__", {})
        for name, param in signature.parameters.items():
            if param.kind is param.VAR_KEYWORD:
                self.any_keyword = True
                continue
            if param.kind is param.VAR_POSITIONAL:
                continue
            if param.kind is param.POSITIONAL_ONLY:
                self.positional_only.append(name)
            else:
                self.keywords.add(name)
            file_type = file_class(param.annotation, namespace) if param.annotation is not param.empty else None
            if file_type is not None:
                self.file_params[name] = file_type
            struct = struct_class(param.annotation, namespace)
            if struct is not None:
                self.struct_params[name] = struct

    def arguments(self, inputs: Message, convert: Callable[[str, Any], Any]) -> Tuple[List[Any], Dict[str, Any]]:
        """The call's arguments: declared inputs only, File inputs converted (each an iterator
        of values, a list's items or the one value, for an ``iterator_input`` function)."""
        if self.iterator_input:
            each = convert
            convert = lambda name, value: iter([each(name, item) for item in value] if isinstance(value, list) else [each(name, value)])  # noqa: E731
        args: List[Any] = []
        for name in self.positional_only:
            if name not in inputs:
                break  # the rest must have defaults; a missing required one fails in the call
            args.append(convert(name, inputs[name]))
        kwargs = {
            name: convert(name, value)
            for name, value in inputs.items()
            if name in self.keywords or (self.any_keyword and name not in self.positional_only)
        }
        return args, kwargs

    def file_type(self, name: str) -> Optional[type]:
        """The File class (File, Image, Video, Audio) an input is declared as; None for another type."""
        return self.file_params.get(name)


def import_entry(relative: str) -> Any:
    """Import the entry file as a module of the code directory (so its relative imports work)."""
    path = os.path.abspath(relative)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"the entry file {relative} does not exist in {os.getcwd()}")
    stem = os.path.splitext(os.path.normpath(relative))[0]
    parts = stem.replace(os.sep, "/").split("/")
    name = ".".join(parts)
    if all(part.isidentifier() for part in parts) and name not in sys.modules:
        module = importlib.import_module(name)
        found = getattr(module, "__file__", None)
        if found is not None and os.path.exists(found) and os.path.samefile(found, path):
            return module
    # The dotted name is taken (a standard module such as queue.py) or is not a valid name
    # (my-model.py): load the file under a private name instead.
    spec = importlib.util.spec_from_file_location("__sluice_entry__", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {relative} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
