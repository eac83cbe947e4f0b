"""What names mean in a module the inspector reads: its ``sluice`` and ``sieve`` imports.

``sieve`` is Sluice's SDK under Sieve's names, so every ``sieve...`` name resolves to the
``sluice...`` one: ``import sieve`` / ``@sieve.function`` read exactly as ``sluice`` does.
"""

from __future__ import annotations

import ast

from sluice.gpu import MACHINE_TYPES

__all__ = ["DECORATORS", "Invalid", "Names", "NotLiteral", "is_computed", "literal"]

# The decorators that mark a function (Sieve's Model, and its 2023 workflow, are the same decorator).
DECORATORS = ("sluice.function", "sluice.Model", "sluice.workflow")
# Names the public API re-exports from private modules, so both spellings resolve alike.
CANONICAL = {"sluice._decorator.function": "sluice.function", "sluice._decorator.Model": "sluice.Model",
             "sluice._decorator.workflow": "sluice.workflow", "sluice._decorator.reference": "sluice.reference",
             "sluice._types.Env": "sluice.Env", "sluice._types.File": "sluice.File",
             "sluice._media.Image": "sluice.Image", "sluice._media.Video": "sluice.Video",
             "sluice._media.Audio": "sluice.Audio", "sluice._media.Array": "sluice.Array",
             "sluice._metadata.Metadata": "sluice.Metadata",
             "sluice._struct.Struct": "sluice.Struct"}
STAR_EXPORTS = {"sluice": ("function", "Model", "workflow", "reference", "gpu", "Env", "File", "Image", "Video", "Audio", "Array",
                           "Metadata", "Struct"),
                "sluice.gpu": tuple(MACHINE_TYPES)}
SDK_NAMES = ("sluice", "sieve")


class Invalid(Exception):
    """A decorator argument that is not valid; the message names the field."""


class NotLiteral(Invalid):
    """A decorator argument computed by the module's code (a variable, a call): the inspector
    evaluates the module to know it (sluice._evaluate), as Sieve's deploy would import it."""


def is_computed(node: ast.expr) -> bool:
    """Whether a value comes from running code (a name, a call, an expression), rather than
    being written out (a literal of the wrong kind is an error whatever the module does)."""
    return not isinstance(node, (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Set))


def literal(what: str, node: ast.expr) -> object:
    """The value a literal spells; NotLiteral naming ``what`` when the module computes it."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise NotLiteral(f"{what} is computed ({ast.unparse(node)})") from None


def _sdk_module(name: str) -> str | None:
    """``sluice.x`` for ``sluice.x`` or ``sieve.x``; None for any other module."""
    for sdk in SDK_NAMES:
        if name == sdk or name.startswith(sdk + "."):
            return "sluice" + name[len(sdk):]
    return None


class Names:
    """What each name in a module means, as far as the SDK is concerned (from its imports),
    and the module's top-level assignments (``metadata = sieve.Metadata(...)``)."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, str] = {"sluice": "sluice"}
        self.assigned: dict[str, ast.expr] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                self.assigned[statement.targets[0].id] = statement.value
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module = _sdk_module(alias.name)
                    if module is None:
                        continue
                    if alias.asname:
                        self.aliases[alias.asname] = module
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases[top] = "sluice"
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
                module = _sdk_module(node.module)
                if module is None:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        for name in STAR_EXPORTS.get(module, ()):
                            self.aliases[name] = f"{module}.{name}"
                    else:
                        self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression spells, with SDK imports expanded."""
        if isinstance(node, ast.Name):
            name = self.aliases.get(node.id, node.id)
        elif isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is None:
                return None
            name = f"{base}.{node.attr}"
        else:
            return None
        for private, public in CANONICAL.items():
            if name == private or name.startswith(private + "."):
                return public + name[len(private):]
        return name
