"""A decorator's arguments, read from the source as Python values (the runtime's own types).

Literal values are read with ``ast`` alone. An argument the module computes (a variable, a
call, an expression) is set aside as ``computed``: the inspector learns it by running the
module (_inspect_computed), as Sieve's deploy imports the file. What is invalid whatever the
module does (an unknown GPU, ``**kwargs``) is an error at once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Set, Tuple

from sluice._inspect_metadata import Place, metadata_value
from sluice._inspect_names import Invalid, Names, NotLiteral, is_computed, literal
from sluice._types import Env
from sluice.gpu import MACHINE_TYPES, Gpu

__all__ = ["Options", "read_options"]

ENV_PARAMS = ("name", "description", "default")
ErrorAt = Callable[[int, str], None]


@dataclass
class Options:
    """One decorator's arguments: their values, their lines, those already reported as
    unreadable, and those the module computes (argument -> (line, what is computed))."""

    values: Dict[str, object] = field(default_factory=dict)
    lines: Dict[str, int] = field(default_factory=dict)
    unreadable: Set[str] = field(default_factory=set)
    computed: Dict[str, Tuple[int, str]] = field(default_factory=dict)


def read_options(decorator: ast.expr, names: Names, error: ErrorAt, place: Place) -> Options:
    options = Options()
    if not isinstance(decorator, ast.Call):
        error(decorator.lineno, 'name is required: write @sluice.function(name="...")')
        options.unreadable.add("name")
        return options
    if decorator.args:
        error(decorator.lineno, "sluice.function takes keyword arguments only, such as name=...")
        options.unreadable.add("name")  # a positional argument is most likely the name: one error is enough
    for keyword in decorator.keywords:
        if keyword.arg is None:
            error(keyword.value.lineno, "sluice.function arguments must be written out, not passed as **mapping")
            continue
        options.lines[keyword.arg] = keyword.value.lineno
        try:
            options.values[keyword.arg] = _value(keyword.arg, keyword.value, names, place)
        except NotLiteral as computed:
            options.computed[keyword.arg] = (keyword.value.lineno, str(computed))
        except Invalid as invalid:
            error(keyword.value.lineno, str(invalid))
            options.unreadable.add(keyword.arg)
    return options


def _value(key: str, node: ast.expr, names: Names, place: Place) -> object:
    if key == "metadata":
        return metadata_value(node, names, place)
    if key == "gpu":
        return _gpu_value(node, names)
    if key == "environment_variables":
        return _env_value(node, names, place)
    return literal(key, node)


def _gpu_value(node: ast.expr, names: Names) -> object:
    """A Gpu for ``sluice.gpu.T4(split=2)``; Sieve's 2023 ``True``/``False``/``"l4"`` as written (normalize maps them)."""
    if isinstance(node, ast.Constant):
        return node.value
    callee = names.resolve(node.func) if isinstance(node, ast.Call) else None
    if not isinstance(node, ast.Call) or callee is None or not callee.startswith("sluice.gpu."):
        raise NotLiteral(f"gpu is computed ({ast.unparse(node)})")
    constructor = callee[len("sluice.gpu."):]
    if constructor not in MACHINE_TYPES:
        raise Invalid(f"gpu: sluice.gpu.{constructor} is not a GPU this service has a machine type for "
                      f"(choose from {', '.join(MACHINE_TYPES)})")
    split_nodes = list(node.args) + [k.value for k in node.keywords if k.arg == "split"]
    extra = [k.arg for k in node.keywords if k.arg != "split"]
    if extra or len(split_nodes) > 1:
        raise Invalid(f"gpu: sluice.gpu.{constructor}(...) takes one argument, split")
    split: Any = literal("gpu.split", split_nodes[0]) if split_nodes else 1  # normalize checks it
    return Gpu(MACHINE_TYPES[constructor], split)


def _env_value(node: ast.expr, names: Names, place: Place) -> List[object]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        if is_computed(node):
            raise NotLiteral(f"environment_variables is computed ({ast.unparse(node)})")
        raise Invalid(f"environment_variables must be a list of sluice.Env(...) (got {ast.unparse(node)})")
    result: List[object] = []
    for i, item in enumerate(node.elts):
        where = f"environment_variables[{i}]"
        if not (isinstance(item, ast.Call) and names.resolve(item.func) == "sluice.Env"):
            if is_computed(item):
                raise NotLiteral(f"{where} is computed ({ast.unparse(item)})")
            raise Invalid(f"{where} must be sluice.Env(name=..., description=..., default=...) (got {ast.unparse(item)})")
        if len(item.args) > len(ENV_PARAMS):
            raise Invalid(f"{where}: sluice.Env takes at most {len(ENV_PARAMS)} arguments")
        given = dict(zip(ENV_PARAMS, item.args))
        for keyword in item.keywords:
            if keyword.arg in ENV_PARAMS:
                given[keyword.arg] = keyword.value
            else:  # as Sieve's Env (a pydantic model) ignores it
                place.warn(f"{where}: {keyword.arg}= is not an argument of sieve.Env here (name, description, default); ignored")
        if "name" not in given:
            raise Invalid(f"{where}.name is required")
        result.append(Env(**{param: literal(f"{where}.{param}", value) for param, value in given.items()}))
    return result
