"""A function's inputs and outputs as the service types them, read from its source without
importing it (sluice._signature, with sluice._inspect_names resolving the SDK's names)."""

import ast
import textwrap

import pytest

from sluice._inspect_names import Names
from sluice._signature import annotation_type, has_yield, inputs_of, outputs_of

HEADER = "import typing\nimport sieve\nimport sluice\nfrom typing import *\nfrom sluice import File as F\n"


def function_of(source, header=HEADER):
    tree = ast.parse(header + textwrap.dedent(source))
    names = Names(tree)
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    if isinstance(node, ast.ClassDef):
        node = next(n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__predict__")
    return node, names.resolve


def inputs(source, skip_self=False):
    node, resolve = function_of(source)
    found, error = inputs_of(node, resolve, skip_self)
    assert error is None
    return found


def outputs(source):
    node, resolve = function_of(source)
    return outputs_of(node, resolve)


def type_of(annotation):
    tree = ast.parse(HEADER + f"x: {annotation}")
    return annotation_type(tree.body[-1].annotation, Names(tree).resolve)


def test_inputs_come_in_signature_order_with_types_defaults_and_whether_they_are_optional():
    assert inputs('''
        def f(name: str, count: int = 3, ratio: float = 0.5, *, loud: bool = False, tags: list = ("a", "b"), note=None):
            pass
    ''') == [
        {"name": "name", "type": "str", "description": "", "is_optional": False},
        {"name": "count", "type": "int", "description": "", "is_optional": True, "default": 3},
        {"name": "ratio", "type": "float", "description": "", "is_optional": True, "default": 0.5},
        {"name": "loud", "type": "bool", "description": "", "is_optional": True, "default": False},
        {"name": "tags", "type": "list", "description": "", "is_optional": True, "default": ["a", "b"]},  # a tuple, as JSON holds it
        {"name": "note", "type": "any", "description": "", "is_optional": True, "default": None},
    ]


def test_a_default_that_is_not_a_json_literal_makes_the_input_optional_without_a_default():
    (computed, binary, infinite) = inputs('''
        def f(when=time.time(), data: bytes = b"x", big: float = 1e999):
            pass
    ''')
    assert all(spec["is_optional"] and "default" not in spec for spec in (computed, binary, infinite))


def test_positional_only_and_keyword_only_inputs_are_inputs_too():
    assert [spec["name"] for spec in inputs("def f(a, /, b, *, c): pass")] == ["a", "b", "c"]


def test_a_classes_predict_inputs_leave_out_self():
    assert [spec["name"] for spec in inputs('''
        class M:
            def __predict__(self, text: str, n: int = 1):
                pass
    ''', skip_self=True)] == ["text", "n"]


@pytest.mark.parametrize("signature, message", [
    ("def f(*args): pass", "*args cannot be an input: name each input"),
    ("def f(a, **options): pass", "**options cannot be an input: name each input"),
])
def test_variable_arguments_cannot_be_inputs(signature, message):
    node, resolve = function_of(signature)
    assert inputs_of(node, resolve, False) == ([], message)


def test_descriptions_come_from_the_docstrings_param_and_return_fields():
    source = '''
        def f(name: str, count: int) -> str:
            """Greets.

            :param name: who to greet
            :param int count: how many times
            :return: the greeting
            """
    '''
    assert [spec["description"] for spec in inputs(source)] == ["who to greet", "how many times"]
    assert outputs(source) == ([{"name": "", "type": "str", "description": "the greeting"}], False)


@pytest.mark.parametrize("annotation, expected", [
    ("str", ("str", False)), ("int", ("int", False)), ("float", ("float", False)), ("bool", ("bool", False)),
    ("dict", ("dict", False)), ("Dict[str, int]", ("dict", False)), ("typing.List[int]", ("list", False)), ("list[str]", ("list", False)),
    ("sluice.File", ("sieve.File", False)), ("sieve.Image", ("sieve.File", False)), ("sieve.Video", ("sieve.File", False)),
    ("sluice.Audio", ("sieve.File", False)), ("sieve.Array", ("sieve.File", False)), ("F", ("sieve.File", False)),
    ("sieve.Struct", ("dict", False)), ("bytes", ("any", False)), ("numpy.ndarray", ("any", False)), ("Tuple[int, int]", ("any", False)),
    ("Optional[int]", ("int", True)), ("typing.Optional[sieve.File]", ("sieve.File", True)), ("int | None", ("int", True)),
    ("None | str", ("str", True)), ("Union[int, None]", ("int", True)), ("Union[int, str]", ("any", False)),
    ("Union[int, str, None]", ("any", True)), ("'Optional[int]'", ("int", True)), ("'str'", ("str", False)),
    ("Annotated[int, 'a count']", ("int", False)), ("'not valid python('", ("any", False)),
])
def test_annotations_become_the_services_type_names(annotation, expected):
    assert type_of(annotation) == expected


def test_no_annotation_is_any():
    assert inputs("def f(x): pass")[0]["type"] == "any"


def test_an_annotated_optional_is_read_as_the_optional_it_annotates():
    assert type_of("Annotated[Optional[int], 'a count']") == ("int", True)


@pytest.mark.parametrize("source, expected", [
    ("def f() -> str: return 'x'", ([{"name": "", "type": "str", "description": ""}], False)),
    ("def f(): return 1", ([{"name": "", "type": "any", "description": ""}], False)),
    ("def f() -> None: pass", ([], False)),
    ("def f() -> Iterator[str]: return iter(())", ([{"name": "", "type": "str", "description": ""}], True)),
    ("def f() -> typing.Generator[sieve.File, None, None]: yield 1", ([{"name": "", "type": "sieve.File", "description": ""}], True)),
    ("def f() -> Iterator: return iter(())", ([{"name": "", "type": "any", "description": ""}], True)),
    ("def f() -> str:\n    yield 'a'", ([{"name": "", "type": "any", "description": ""}], True)),
    ("async def f() -> AsyncIterator[int]:\n    yield 1", ([{"name": "", "type": "int", "description": ""}], True)),
    ("def f() -> None:\n    yield 1", ([{"name": "", "type": "any", "description": ""}], True)),
    ("def f() -> 'Iterator[dict]': return iter(())", ([{"name": "", "type": "dict", "description": ""}], True)),
])
def test_outputs_and_whether_they_stream_come_from_the_return_annotation_and_the_body(source, expected):
    assert outputs(source) == expected


def test_only_the_functions_own_body_counts_as_yielding():
    node, _ = function_of('''
        def f():
            def inner():
                yield 1
            class C:
                def m(self):
                    yield 2
            g = lambda: (yield 3)
            return inner
    ''')
    assert has_yield(node) is False
    assert has_yield(function_of("def f():\n    x = yield from range(3)\n")[0]) is True


# --- what names mean -------------------------------------------------------------------------


@pytest.mark.parametrize("header, expression, resolved", [
    ("import sieve", "sieve.function", "sluice.function"),
    ("import sieve as sv", "sv.Model", "sluice.Model"),
    ("import sluice.gpu as g", "g.T4", "sluice.gpu.T4"),
    ("import sieve.gpu", "sieve.gpu.L4", "sluice.gpu.L4"),
    ("from sieve import function as fn", "fn", "sluice.function"),
    ("from sieve.gpu import T4", "T4", "sluice.gpu.T4"),
    ("from sluice import *", "Metadata", "sluice.Metadata"),
    ("from sieve.gpu import *", "A100", "sluice.gpu.A100"),
    ("from sluice._decorator import function", "function", "sluice.function"),
    ("from sluice._media import Image", "Image", "sluice.Image"),
    ("import numpy as np", "np.ndarray", "np.ndarray"),
    ("import sievex", "sievex.function", "sievex.function"),
    ("", "sluice.File", "sluice.File"),
])
def test_sdk_names_resolve_to_sluices_in_every_import_spelling(header, expression, resolved):
    tree = ast.parse(f"{header}\n{expression}\n")
    assert Names(tree).resolve(tree.body[-1].value) == resolved


def test_an_expression_that_is_not_a_name_resolves_to_nothing():
    tree = ast.parse("f()\n")
    assert Names(tree).resolve(tree.body[0].value) is None
