"""Import cycles among the SDK's modules: ``python3 python/tests/import_cycles.py`` prints each
cycle (exit 1), or says there is none (exit 0).

Every import counts, at the top of a module or inside a function (an import put off until it is
used is still a cycle, only a hidden one). A module's implicit import of its own package (any
``sluice.x`` runs ``sluice/__init__.py`` first) does not: that is how every package works.
"""

import ast
import os
import sys
from typing import Dict, List, Set

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("sluice", "sieve")


def modules(root: str = SDK_DIR) -> Dict[str, str]:
    """Each module of the SDK's packages, by dotted name: its file."""
    found = {}
    for package in PACKAGES:
        for name in sorted(os.listdir(os.path.join(root, package))):
            if name.endswith(".py"):
                stem = name[:-3]
                found[package if stem == "__init__" else f"{package}.{stem}"] = os.path.join(root, package, name)
    return found


def imports(name: str, path: str, known: Set[str]) -> Set[str]:
    """The SDK modules a module imports, anywhere in it."""
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), filename=path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # "from sluice import gpu" imports the module sluice.gpu as well as sluice itself.
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target in known)
    parts = name.split(".")
    enclosing = {".".join(parts[:end]) for end in range(1, len(parts))}  # imported before this module anyway
    return found - {name} - enclosing


def graph(root: str = SDK_DIR) -> Dict[str, Set[str]]:
    files = modules(root)
    return {name: imports(name, path, set(files)) for name, path in files.items()}


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def main() -> int:
    found = cycles(graph())
    for cycle in found:
        print("import cycle: " + " <-> ".join(cycle))
    if not found:
        print(f"no import cycle among the {len(modules())} modules of {', '.join(PACKAGES)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
