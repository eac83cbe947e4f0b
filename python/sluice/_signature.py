"""Reads a function's inputs and outputs from its source, for the inspector.

Works on ``ast`` nodes only: the user's code is never imported, because its packages are
not installed where the inspector runs. Annotations become the service's type names; what
cannot be read statically becomes "any" rather than an error, since types are advisory.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any, Callable, Optional, Union

Resolve = Callable[[ast.expr], Optional[str]]
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]  # typing.Union: runs on Python 3.9

# A File is "sieve.File" in versions and jobs: the name Sieve's clients read (Image, Video and
# Audio are Files to the service). A Struct travels as a JSON object.
FILE_TYPE = "sieve.File"
SIMPLE_TYPES = {"str": "str", "int": "int", "float": "float", "bool": "bool", "dict": "dict", "list": "list",
                "Dict": "dict", "List": "list", "sluice.File": FILE_TYPE, "sluice.Image": FILE_TYPE,
                "sluice.Video": FILE_TYPE, "sluice.Audio": FILE_TYPE, "sluice.Array": FILE_TYPE, "sluice.Struct": "dict"}
ITERATORS = {"Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator"}
NO_DEFAULT = object()


def inputs_of(fn: FunctionNode, resolve: Resolve, skip_self: bool) -> tuple[list[dict[str, Any]], str | None]:
    """The inputs, in signature order; or an error when the signature cannot be inputs."""
    args = fn.args
    if args.vararg is not None:
        return [], f"*{args.vararg.arg} cannot be an input: name each input"
    if args.kwarg is not None:
        return [], f"**{args.kwarg.arg} cannot be an input: name each input"
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    if skip_self:
        params = params[1:]
    docs = _param_docs(fn)
    inputs: list[dict[str, Any]] = []
    for arg, default in params:
        type_name, optional = annotation_type(arg.annotation, resolve)
        entry: dict[str, Any] = {"name": arg.arg, "type": type_name, "description": docs.get(arg.arg, ""),
                                 "is_optional": optional or default is not None}
        if default is not None:
            value = _literal(default)
            if value is not NO_DEFAULT:
                entry["default"] = value
        inputs.append(entry)
    return inputs, None


def outputs_of(fn: FunctionNode, resolve: Resolve) -> tuple[list[dict[str, str]], bool]:
    """The outputs and whether they stream (the body yields, or it returns an iterator)."""
    generator = has_yield(fn)
    returns = fn.returns
    element = _iterator_element(returns, resolve)
    if element is not None:
        generator = True
        returns = element if isinstance(element, ast.expr) else None
    elif generator:
        returns = None  # a plain annotation on a generator says nothing about its items
    if isinstance(returns, ast.Constant) and returns.value is None and not generator:
        return [], False  # "-> None": nothing to return
    description = _param_docs(fn).get(":return", "")
    return [{"name": "", "type": annotation_type(returns, resolve)[0], "description": description}], generator


def has_yield(fn: FunctionNode) -> bool:
    """Whether the function's own body yields (nested functions and classes do not count)."""
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in _own_nodes(fn.body))


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def annotation_type(node: ast.expr | None, resolve: Resolve) -> tuple[str, bool]:
    """The service's type name for an annotation, and whether it admits None (Optional)."""
    if node is None:
        return "any", False
    node = _unquote(node)
    if isinstance(node, ast.Subscript) and _last(resolve(node.value)) == "Annotated":  # Annotated[X, ...] is an X, an Optional one too
        return annotation_type(node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice, resolve)
    members = _union_members(node, resolve)
    if members is None:
        return _simple_type(node, resolve), False
    rest = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    optional = len(rest) < len(members)
    if len(rest) == 1:
        return _simple_type(rest[0], resolve), optional
    return "any", optional


def _union_members(node: ast.expr, resolve: Resolve) -> list[ast.expr] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flatten(node.left, resolve) + _flatten(node.right, resolve)
    if isinstance(node, ast.Subscript):
        base = _last(resolve(node.value))
        if base == "Optional":
            return [node.slice, ast.Constant(value=None)]
        if base == "Union":
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [m for e in elements for m in _flatten(e, resolve)]
    return None


def _flatten(node: ast.expr, resolve: Resolve) -> list[ast.expr]:
    node = _unquote(node)
    return _union_members(node, resolve) or [node]


def _simple_type(node: ast.expr, resolve: Resolve) -> str:
    node = _unquote(node)
    if isinstance(node, ast.Subscript):
        base = resolve(node.value)
        if _last(base) == "Annotated":  # Annotated[X, ...] is an X
            first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            return _simple_type(first, resolve)
        base_name = _last(base) or ""
        return SIMPLE_TYPES[base_name] if base_name in ("dict", "list", "Dict", "List") else "any"
    name = resolve(node)
    if name is None:
        return "any"
    if name.startswith(("typing.", "builtins.")):
        name = _last(name) or name
    return SIMPLE_TYPES.get(name, "any")


def _iterator_element(node: ast.expr | None, resolve: Resolve) -> ast.expr | bool | None:
    """For Iterator[X] and the like: X; True for a bare Iterator; None for anything else."""
    if node is None:
        return None
    node = _unquote(node)
    if isinstance(node, ast.Subscript) and _last(resolve(node.value)) in ITERATORS:
        return node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
    if _last(resolve(node)) in ITERATORS:
        return True
    return None


def _unquote(node: ast.expr) -> ast.expr:
    """A string annotation ("str", "Optional[int]") read as the expression it spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    return node


def _last(name: str | None) -> str | None:
    return name.rsplit(".", 1)[-1] if name else None


def _literal(node: ast.expr) -> Any:
    """The default's value when it is a JSON-able literal; NO_DEFAULT otherwise."""
    try:
        value = ast.literal_eval(node)
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NO_DEFAULT
    return json.loads(json.dumps(value))  # tuples become lists, as the job will see them


_DOC_FIELD = re.compile(r"^\s*:(param|parameter|arg|argument)\s+(?:\S+\s+)?(\w+)\s*:\s*(.*)$|^\s*:(returns?)\s*:\s*(.*)$")


def _param_docs(fn: FunctionNode) -> dict[str, str]:
    """Descriptions from a reST docstring (``:param name: ...``, ``:return: ...``), as Sieve reads them."""
    docs: dict[str, str] = {}
    for line in (ast.get_docstring(fn) or "").splitlines():
        match = _DOC_FIELD.match(line)
        if match is None:
            continue
        if match.group(2):
            docs[match.group(2)] = match.group(3).strip()
        else:
            docs[":return"] = match.group(5).strip()
    return docs
