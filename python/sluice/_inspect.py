"""The deploy-time inspector: ``python3 -m sluice._inspect DIR``.

Reads every .py file under DIR with ``ast`` only (the code is never imported: its packages
are not installed yet) and prints one JSON document on stdout:
``{"functions": [metadata, ...]}``, exit 0; or ``{"errors": ["file.py:3: ...", ...]}``, exit 2.
Every error names the file and line so the author can fix it without guessing.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from sluice._inspect_dependencies import GET, ModuleBindings, get_calls
from sluice._inspect_metadata import metadata_value
from sluice._inspect_names import DECORATORS, Invalid, Names
from sluice._schema import normalize
from sluice._signature import FunctionNode, inputs_of, outputs_of
from sluice._types import Env
from sluice.gpu import MACHINE_TYPES, Gpu

SKIPPED_DIRS = {"__pycache__", "venv", ".venv", "node_modules"}
DEPENDENCY_PATTERN = re.compile(r"^[^/]+/[^/]+$")
ENV_PARAMS = ("name", "description", "default")
ErrorAt = Callable[[int, str], None]


class Inspector:
    """Collects metadata and errors over the files of one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.functions: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.seen: dict[str, str] = {}  # function name -> "file:line" of its first definition

    def run(self, files: list[Path]) -> None:
        for path in files:
            rel = path.relative_to(self.root).as_posix()
            try:
                tree = ast.parse(path.read_bytes(), filename=rel)
            except SyntaxError as error:
                self.errors.append(f"{rel}:{error.lineno or 1}: syntax error: {error.msg}")
                continue
            except (OSError, ValueError) as error:
                self.errors.append(f"{rel}: cannot read the file: {error}")
                continue
            self.inspect_module(rel, tree)
        if not self.functions and not self.errors:
            self.errors.append(f"no function decorated with @sluice.function(...) found in {self.root}")

    def inspect_module(self, rel: str, tree: ast.Module) -> None:
        names = Names(tree)
        top_level = {id(node) for node in tree.body}
        bindings = ModuleBindings(tree, names, lambda statement: _is_decorated(statement, names))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            decorators = _decorators(node, names)
            if not decorators:
                continue
            where = f"{rel}:{decorators[0].lineno}"
            if len(decorators) > 1:
                self.errors.append(f"{where}: {node.name} is decorated with @sluice.function more than once")
            elif id(node) not in top_level:
                self.errors.append(f"{where}: @sluice.function must decorate a function or class "
                                   f"at the top level of the module ({node.name} is nested)")
            else:
                self.inspect_function(rel, node, decorators[0], names, bindings)

    def inspect_function(self, rel: str, node: FunctionNode | ast.ClassDef, decorator: ast.expr, names: Names,
                         bindings: ModuleBindings) -> None:
        errors_before = len(self.errors)

        def error(line: int, message: str) -> None:
            text = f"{rel}:{line}: {message}"
            if text not in self.errors:  # a module-level line several functions use is reported once
                self.errors.append(text)

        folder = (self.root / rel).parent
        options, lines, unreadable = self.read_options(decorator, names, error, folder)
        metadata, field_errors = normalize(options)
        for field_error in field_errors:
            if field_error.field not in unreadable:  # already reported, don't say it twice
                error(lines.get(field_error.field, decorator.lineno), field_error.message)

        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        target = _predict_of(node) if isinstance(node, ast.ClassDef) else node
        if target is None:
            error(node.lineno, f"class {node.name} must define __predict__(self, ...): its inputs are the job's inputs")
            return
        inputs, signature_error = inputs_of(target, names.resolve, skip_self=kind == "class")
        if signature_error is not None:
            error(target.lineno, f"{node.name}: {signature_error}")
        outputs, generator = outputs_of(target, names.resolve)
        dependencies = self.dependencies(node, names, bindings, error)

        if len(self.errors) > errors_before:
            return
        name = str(metadata["name"])
        if name in self.seen:
            error(decorator.lineno, f'two functions are named "{name}": here and at {self.seen[name]}')
            return
        self.seen[name] = f"{rel}:{decorator.lineno}"
        self.functions.append({
            "name": name,
            "entrypoint": {"file": rel, "symbol": node.name, "kind": kind, "generator": generator},
            **{key: value for key, value in metadata.items() if key != "name"},
            "inputs": inputs,
            "outputs": outputs,
            "function_dependencies": dependencies,
        })

    def read_options(
        self, decorator: ast.expr, names: Names, error: ErrorAt, folder: Path
    ) -> tuple[dict[str, object], dict[str, int], set[str]]:
        """The decorator's keywords as Python values (the runtime's own types), their lines,
        and the fields already reported as unreadable."""
        options: dict[str, object] = {}
        lines: dict[str, int] = {}
        unreadable: set[str] = set()
        if not isinstance(decorator, ast.Call):
            error(decorator.lineno, 'name is required: write @sluice.function(name="...")')
            return options, lines, {"name"}
        if decorator.args:
            error(decorator.lineno, "sluice.function takes keyword arguments only, such as name=...")
            unreadable.add("name")  # a positional argument is most likely the name: one error is enough
        for keyword in decorator.keywords:
            if keyword.arg is None:
                error(keyword.value.lineno, "sluice.function arguments must be written out, not passed as **mapping")
                continue
            lines[keyword.arg] = keyword.value.lineno
            try:
                options[keyword.arg] = _option_value(keyword.arg, keyword.value, names, self.root, folder)
            except Invalid as invalid:
                error(keyword.value.lineno, str(invalid))
                unreadable.add(keyword.arg)
        return options, lines, unreadable

    def dependencies(self, node: FunctionNode | ast.ClassDef, names: Names, bindings: ModuleBindings, error: ErrorAt) -> list[str]:
        """The "owner/name"s the function calls through sluice.function.get (see _inspect_dependencies)."""
        found: list[str] = []
        for ref, line in get_calls(node.body, names) + bindings.reached(node.body):
            if not DEPENDENCY_PATTERN.fullmatch(ref):
                error(line, f'{GET}("{ref}"): the name must look like "owner/name"')
            elif ref not in found:
                found.append(ref)
        return found


def _decorators(node: ast.AST, names: Names) -> list[ast.expr]:
    """The @sluice.function (or @sieve.Model, ...) decorators of a def or class."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [d for d in node.decorator_list if _decorator_name(d, names) in DECORATORS]


def _is_decorated(node: ast.AST, names: Names) -> bool:
    return bool(_decorators(node, names))


def _decorator_name(decorator: ast.expr, names: Names) -> str | None:
    return names.resolve(decorator.func if isinstance(decorator, ast.Call) else decorator)


def _predict_of(node: ast.ClassDef) -> FunctionNode | None:
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__predict__":
            return item
    return None


def _option_value(key: str, node: ast.expr, names: Names, root: Path, folder: Path) -> object:
    if key == "metadata":
        return metadata_value(node, names, root, folder)
    if key == "gpu":
        return _gpu_value(node, names)
    if key == "environment_variables":
        return _env_value(node, names)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise Invalid(f"{key} must be a literal value, not an expression ({ast.unparse(node)})") from None


def _gpu_value(node: ast.expr, names: Names) -> Gpu | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    choices = ", ".join(MACHINE_TYPES)
    callee = names.resolve(node.func) if isinstance(node, ast.Call) else None
    if not isinstance(node, ast.Call) or callee is None or not callee.startswith("sluice.gpu."):
        raise Invalid(f"gpu must be None or a call such as sluice.gpu.T4(split=1) (got {ast.unparse(node)})")
    constructor = callee[len("sluice.gpu."):]
    if constructor not in MACHINE_TYPES:
        raise Invalid(f"gpu: unknown GPU sluice.gpu.{constructor} (choose from {choices})")
    split_nodes = list(node.args) + [k.value for k in node.keywords if k.arg == "split"]
    extra = [k.arg for k in node.keywords if k.arg != "split"]
    if extra or len(split_nodes) > 1:
        raise Invalid(f"gpu: sluice.gpu.{constructor}(...) takes one argument, split")
    split: Any = 1  # normalize checks it, with the same message as at run time
    if split_nodes:
        try:
            split = ast.literal_eval(split_nodes[0])
        except (ValueError, TypeError, SyntaxError):
            raise Invalid(f"gpu.split must be a literal integer (got {ast.unparse(split_nodes[0])})") from None
    return Gpu(MACHINE_TYPES[constructor], split)


def _env_value(node: ast.expr, names: Names) -> list[object]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise Invalid(f"environment_variables must be a list of sluice.Env(...) (got {ast.unparse(node)})")
    result: list[object] = []
    for i, item in enumerate(node.elts):
        where = f"environment_variables[{i}]"
        if not (isinstance(item, ast.Call) and names.resolve(item.func) == "sluice.Env"):
            raise Invalid(f"{where} must be sluice.Env(name=..., description=..., default=...) (got {ast.unparse(item)})")
        if len(item.args) > len(ENV_PARAMS):
            raise Invalid(f"{where}: sluice.Env takes at most {len(ENV_PARAMS)} arguments")
        given = dict(zip(ENV_PARAMS, item.args))
        for keyword in item.keywords:
            if keyword.arg not in ENV_PARAMS:
                raise Invalid(f'{where}: unknown argument "{keyword.arg}" (use name, description, default)')
            given[keyword.arg] = keyword.value
        if "name" not in given:
            raise Invalid(f"{where}.name is required")
        values: dict[str, Any] = {}
        for param, value_node in given.items():
            try:
                values[param] = ast.literal_eval(value_node)
            except (ValueError, TypeError, SyntaxError):
                raise Invalid(f"{where}.{param} must be a string literal (got {ast.unparse(value_node)})") from None
        result.append(Env(**values))
    return result


def python_files(root: Path) -> list[Path]:
    """The .py files under root in a stable order, skipping environments and hidden folders."""
    if root.is_file():
        return [root]
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        found.extend(Path(directory) / f for f in sorted(files) if f.endswith(".py") and not f.startswith("."))
    return found


def inspect_path(target: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Metadata of every decorated function under ``target``, or the errors that prevent it."""
    path = Path(target)
    if not path.exists():
        return [], [f"{target}: no such file or directory"]
    inspector = Inspector(path.parent if path.is_file() else path)
    inspector.run(python_files(path))
    return inspector.functions, inspector.errors


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(json.dumps({"errors": ["usage: python3 -m sluice._inspect DIR"]}))
        return 2
    try:
        functions, errors = inspect_path(argv[0])
    except Exception as exc:  # a bug here must still answer in the contract's shape
        traceback.print_exc(file=sys.stderr)
        functions, errors = [], [f"internal error in the inspector: {exc!r}"]
    if errors:
        print(json.dumps({"errors": errors}, indent=2))
        return 2
    print(json.dumps({"functions": functions}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
