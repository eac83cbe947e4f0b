"""Which other functions a function calls: its ``function_dependencies``, read by the inspector.

A dependency is a ``sluice.function.get("owner/name")`` (or ``sieve.function.get``) with a literal
name, in the function's own body or in what the body uses from the module's top level: an
assignment (``model = sieve.function.get("owner/name")``, as Sieve's examples write it) or a
helper function or class, followed through the top-level names they use in turn.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterable, List, Tuple

from sluice._inspect_names import Names

__all__ = ["GET", "ModuleBindings", "get_calls"]

GET = "sluice.function.get"
# Sieve's 2023 spelling of the same: sieve.reference("owner/name").
REFERENCE = "sluice.reference"

# (name, line) of each call with a literal name, in order.
Calls = List[Tuple[str, int]]  # typing's generics: a runtime alias on Python 3.8 too


def get_calls(nodes: Iterable[ast.AST], names: Names) -> Calls:
    """The literal names passed to sluice.function.get under these nodes (a computed name cannot be known ahead of time)."""
    found: Calls = []
    for node in nodes:
        for call in ast.walk(node):
            if not (isinstance(call, ast.Call) and names.resolve(call.func) in (GET, REFERENCE)):
                continue
            if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
                found.append((call.args[0].value, call.lineno))
    return found


def _used_names(nodes: Iterable[ast.AST]) -> list[str]:
    """The names read under these nodes, each once, in order."""
    used: dict[str, None] = {}
    for node in nodes:
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                used.setdefault(child.id, None)
    return list(used)


def _bound_names(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds: assignment targets, a def's or class's name."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    return [node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)]


class ModuleBindings:
    """For each name the module's top level binds (decorated functions left out: they are
    functions of their own), the get calls in its statement and the top-level names it uses."""

    def __init__(self, tree: ast.Module, names: Names, is_function: Callable[[ast.stmt], bool]) -> None:
        self.calls: dict[str, Calls] = {}
        self.uses: dict[str, list[str]] = {}
        for statement in tree.body:
            if is_function(statement):
                continue
            for name in _bound_names(statement):
                self.calls.setdefault(name, []).extend(get_calls([statement], names))
                self.uses.setdefault(name, []).extend(_used_names([statement]))

    def reached(self, nodes: Iterable[ast.AST]) -> Calls:
        """The get calls of the top-level names these nodes use, and of the names those use, in turn."""
        found: Calls = []
        seen: set[str] = set()
        pending = _used_names(nodes)
        while pending:
            name = pending.pop(0)
            if name in seen or name not in self.calls:
                continue
            seen.add(name)
            found.extend(self.calls[name])
            pending.extend(self.uses[name])
        return found
