"""The deploy-time inspector: ``python3 -m sluice._inspect DIR [--only JSON] [--evaluator JSON]``.

Reads every .py file under DIR with ``ast`` (its packages are not installed yet, and most
arguments are literals) and prints one JSON document on stdout: ``{"functions": [metadata, ...],
"warnings": [...]}``, exit 0; or ``{"errors": ["file.py:3: ...", ...], "warnings": [...]}``, exit 2.
Every error names the file and line so the author can fix it without guessing. A decorator
argument the module computes is learnt by running the module through ``--evaluator`` (see
_inspect_computed), as Sieve's deploy imports it; without one, it is an error.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from sluice._inspect_computed import from_evaluated, run_evaluator
from sluice._inspect_dependencies import GET, ModuleBindings, get_calls
from sluice._inspect_metadata import Place
from sluice._inspect_names import DECORATORS, Invalid, Names
from sluice._inspect_options import ErrorAt, Options, read_options
from sluice._schema import normalize
from sluice._signature import FunctionNode, inputs_of, outputs_of

SKIPPED_DIRS = {"__pycache__", "venv", ".venv", "node_modules"}
DEPENDENCY_PATTERN = re.compile(r"^[^/]+/[^/]+$")


class Inspector:
    """Collects metadata and errors over the files of one directory."""

    def __init__(self, root: Path, evaluator: list[str] | None = None) -> None:
        self.root = root
        self.evaluator = evaluator  # the command that runs sluice._evaluate (in a sandbox); None: never run code
        self.functions: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.evaluated: list[str] = []  # the modules whose code was run
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

    def error_at(self, rel: str) -> ErrorAt:
        def error(line: int, message: str) -> None:
            text = f"{rel}:{line}: {message}"
            if text not in self.errors:  # a module-level line several functions use is reported once
                self.errors.append(text)
        return error

    def inspect_module(self, rel: str, tree: ast.Module) -> None:
        names = Names(tree)
        top_level = {id(node) for node in tree.body}
        bindings = ModuleBindings(tree, names, lambda statement: _is_decorated(statement, names))
        error = self.error_at(rel)
        place = Place(self.root, (self.root / rel).parent, lambda message: self.warnings.append(f"{rel}: {message}"))
        decorated: list[tuple[FunctionNode | ast.ClassDef, ast.expr, Options]] = []
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
                decorated.append((node, decorators[0], read_options(decorators[0], names, error, place)))
        if any(options.computed for _, _, options in decorated):
            self.fill_computed(rel, decorated, error, place)
        for node, decorator, options in decorated:
            self.inspect_function(rel, node, decorator, options, names, bindings)

    def fill_computed(self, rel: str, decorated: list[tuple[FunctionNode | ast.ClassDef, ast.expr, Options]],
                      error: ErrorAt, place: Place) -> None:
        """The arguments the module computes, from running it (sluice._evaluate), as Sieve's deploy does."""
        first = next(decorator.lineno for _, decorator, options in decorated if options.computed)
        if self.evaluator is None:
            for _, _, options in decorated:
                for key, (line, why) in options.computed.items():
                    error(line, f"{why}: write it as a literal value (this inspector runs no code)")
                    options.unreadable.add(key)
            return
        self.evaluated.append(rel)
        evaluated, problem = run_evaluator(self.evaluator, self.root, rel)
        if problem is not None:
            error(first, f"{problem}; the decorator's arguments are computed by the module's code, which "
                  "sluice deploy runs (as sieve deploy does) to read them")
        for node, _, options in decorated:
            given = (evaluated or {}).get(node.name, {})
            for key, (line, _why) in options.computed.items():
                options.unreadable.add(key)
                if problem is not None:
                    continue
                if key not in given:
                    error(line, f"{key}: the module's code did not give {node.name}'s decorator this argument")
                    continue
                try:
                    options.values[key] = from_evaluated(key, given[key], place)
                    options.unreadable.discard(key)
                except Invalid as invalid:
                    error(line, str(invalid))

    def inspect_function(self, rel: str, node: FunctionNode | ast.ClassDef, decorator: ast.expr, options: Options,
                         names: Names, bindings: ModuleBindings) -> None:
        errors_before = len(self.errors)
        error = self.error_at(rel)
        metadata, field_errors = normalize(options.values)
        for field_error in field_errors:
            if field_error.field not in options.unreadable:  # already reported, don't say it twice
                error(options.lines.get(field_error.field, decorator.lineno), field_error.message)

        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        target = _predict_of(node) if isinstance(node, ast.ClassDef) else node
        if target is None:
            error(node.lineno, f"class {node.name} must define __predict__(self, ...): its inputs are the job's inputs")
            return
        inputs, signature_error = inputs_of(target, names.resolve, skip_self=kind == "class")
        if signature_error is not None:
            error(target.lineno, f"{node.name}: {signature_error}")
        if options.values.get("iterator_input") is True:  # Sieve 2023's: each input takes a list of values
            for spec in inputs:
                spec["type"] = "list"
        outputs, generator = outputs_of(target, names.resolve)
        dependencies = self.dependencies(node, names, bindings, error)

        # A name it could not read was reported already: without it there is no function to name twice.
        if len(self.errors) > errors_before or "name" in options.unreadable:
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


def python_files(root: Path) -> list[Path]:
    """The .py files under root in a stable order, skipping environments and hidden folders."""
    if root.is_file():
        return [root]
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        found.extend(Path(directory) / f for f in sorted(files) if f.endswith(".py") and not f.startswith("."))
    return found


def inspect_path(target: str, only: list[str] | None = None, evaluator: list[str] | None = None) -> Inspector:
    """Reads every decorated function under ``target`` (only the .py files ``only`` names, relative
    to it, when given); the inspector holds their metadata, or the errors that prevent it."""
    path = Path(target)
    inspector = Inspector(path.parent if path.is_file() else path, evaluator)
    if not path.exists():
        inspector.errors.append(f"{target}: no such file or directory")
        return inspector
    files = python_files(path)
    if only is not None:
        wanted = set(only)
        files = [file for file in files if file.relative_to(inspector.root).as_posix() in wanted]
    inspector.run(files)
    return inspector


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m sluice._inspect", description="Reads the functions a folder declares.")
    parser.add_argument("target", help="a folder, or one .py file")
    parser.add_argument("--only", help="a JSON list of the .py files to read, relative to the folder (the rest are ignored)")
    parser.add_argument("--evaluator", help="a JSON list: the command that runs sluice._evaluate, for computed arguments")
    try:
        args = parser.parse_args(argv)
        only = json.loads(args.only) if args.only else None
        evaluator = json.loads(args.evaluator) if args.evaluator else None
    except (SystemExit, json.JSONDecodeError):
        print(json.dumps({"errors": ["usage: python3 -m sluice._inspect DIR [--only JSON] [--evaluator JSON]"]}))
        return 2
    try:
        inspector = inspect_path(args.target, only, evaluator)
        notes = {"warnings": inspector.warnings, "evaluated": inspector.evaluated}
        functions, errors = inspector.functions, inspector.errors
    except Exception as exc:  # a bug here must still answer in the contract's shape
        traceback.print_exc(file=sys.stderr)
        functions, errors, notes = [], [f"internal error in the inspector: {exc!r}"], {}
    if errors:
        print(json.dumps({"errors": errors, **notes}, indent=2))
        return 2
    print(json.dumps({"functions": functions, **notes}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
