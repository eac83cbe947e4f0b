"""Runs a module's top-level code to learn its decorators' arguments: ``python -m sluice._evaluate ROOT FILE``.

The inspector reads literal arguments from the source; an argument the module computes (a
README read into a variable, a cover image path built with ``os.path``, a Metadata made by a
helper) can only be known by running the module, as Sieve's ``sieve deploy`` imports it. The
inspector runs this in the build sandbox (no network, a read-only view of the function's
folder), never in the service's process.

The module is imported under its own name (so ``if __name__ == "__main__"`` blocks stay out),
from its folder, with its folder and ROOT on ``sys.path``. Its packages are not installed here:
a module that cannot be found is replaced by a stand-in that accepts any use, so top-level
``import torch`` and ``device = torch.device("cuda")`` do not stop the reading. Each decorator's
arguments are printed as JSON: ``{"functions": {symbol: {argument: value}}, "stand_ins": [...]}``,
or ``{"error": "..."}`` with exit status 1.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional

from sluice._decorator import observe_decorators
from sluice._metadata import METADATA_FIELDS, Metadata
from sluice._types import Env, File
from sluice.gpu import Gpu


class _StandIn:
    """Whatever a missing package's name is used as at a module's top level: called, read,
    indexed, iterated (as empty), subclassed or used as a decorator, it gives a stand-in."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> "_StandIn":
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _StandIn(f"{self._name}.{attribute}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator: the decorated function stays itself
        return _StandIn(f"{self._name}()")

    def __getitem__(self, key: Any) -> "_StandIn":
        return _StandIn(f"{self._name}[]")

    def __iter__(self) -> Any:
        return iter(())

    def __mro_entries__(self, bases: Any) -> tuple:
        return (object,)  # class Net(torch.nn.Module): a plain class

    def __repr__(self) -> str:
        return f"<stand-in for {self._name}>"


class _StandInModule(ModuleType):
    __path__: List[str] = []  # a package, so its submodules are stood in for too

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _StandIn(f"{self.__name__}.{attribute}")


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: asked only for modules no real finder has."""

    def __init__(self) -> None:
        self.names: List[str] = []

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        self.names.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return _StandInModule(spec.name)

    def exec_module(self, module: ModuleType) -> None:
        return None


def jsonable(value: Any) -> Any:
    """A decorator argument as JSON: SDK objects as the fields the inspector reads back."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Metadata):
        return {field: jsonable(getattr(value, field)) for field in METADATA_FIELDS}
    if isinstance(value, File):
        url = value.url
        return {"url": url} if url else {"path": os.path.abspath(value._path or "")}  # noqa: SLF001
    if isinstance(value, Gpu):
        return value.to_dict()
    if isinstance(value, Env):
        return jsonable(value.to_dict())
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, _StandIn):
        package = value._name.split(".")[0]  # noqa: SLF001
        raise TypeError(f"made by {value._name}, and {package} is neither in the folder deployed nor installed where "  # noqa: SLF001
                        "sluice deploy runs: deploy the folder that holds it")
    raise TypeError(f"a {type(value).__name__} ({value!r}), which the inspector cannot read")


def evaluate(root: Path, relative: str) -> Dict[str, Any]:
    file = (root / relative).resolve()
    folder = file.parent
    os.chdir(folder)  # open("README.md") reads beside the module, as it does when deployed from there
    for entry in (str(root), str(folder)):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    stand_ins = _StandIns()
    sys.meta_path.append(stand_ins)
    found: Dict[str, Dict[str, Any]] = {}
    observe_decorators(lambda given, target: found.__setitem__(getattr(target, "__name__", "?"), given))
    name = relative[:-3].replace("/", ".") if relative.endswith(".py") else relative
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    functions: Dict[str, Any] = {}
    for symbol, given in found.items():
        arguments: Dict[str, Any] = {}
        for key, value in given.items():
            try:
                arguments[key] = jsonable(value)
            except TypeError as error:
                arguments[key] = {"__unreadable__": f"{key} is {error}"}
        functions[symbol] = arguments
    return {"functions": functions, "stand_ins": sorted({n.split(".")[0] for n in stand_ins.names})}


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(json.dumps({"error": "usage: python -m sluice._evaluate ROOT FILE"}))
        return 2
    out = sys.stdout
    sys.stdout = sys.stderr  # what the module prints is not the answer
    try:
        answer = evaluate(Path(argv[0]), argv[1])
    except BaseException as error:  # noqa: BLE001 - the module's own failure, reported as the answer
        lines = traceback.format_exception_only(type(error), error)
        answer = {"error": "".join(lines).strip()}
    out.write(json.dumps(answer))
    out.flush()
    return 1 if "error" in answer else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
