"""``sluice.Struct`` (sluice._struct): a pydantic model where pydantic is installed, a plain record
where it is not, both with Sieve's constructor and ``.dict()``; imported only once used."""

import importlib.util
import os
import subprocess
import sys

import pytest

import sluice
from sluice_harness import SDK_DIR, sdk_env


def load_struct_module(block_pydantic):
    """sluice/_struct.py loaded afresh under a name of its own, with pydantic importable or not."""
    saved = sys.modules.get("pydantic", None), "pydantic" in sys.modules
    if block_pydantic:
        sys.modules["pydantic"] = None  # import pydantic raises ImportError, as where it is not installed
    try:
        spec = importlib.util.spec_from_file_location("struct_under_test", os.path.join(SDK_DIR, "sluice", "_struct.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        if block_pydantic:
            if saved[1]:
                sys.modules["pydantic"] = saved[0]
            else:
                del sys.modules["pydantic"]


@pytest.fixture(params=["plain", "pydantic"])
def Struct(request):
    if request.param == "pydantic":
        pytest.importorskip("pydantic")
    return load_struct_module(block_pydantic=request.param == "plain").Struct


def test_a_struct_takes_its_fields_as_keywords_with_class_defaults(Struct):
    class Point(Struct):
        x: int
        y: int = 0

    point = Point(x=1)
    assert (point.x, point.y) == (1, 0)
    assert Point(x=1, y=2).to_dict() == {"x": 1, "y": 2}


def test_a_structs_dict_is_its_fields_with_nested_structs_and_tuples_made_plain(Struct):
    class Box(Struct):
        label: str
        corners: list

    class Point(Struct):
        x: int = 0

    box = Box(label="b", corners=[Point(x=1), (Point(x=2), {"p": Point()})])
    assert box.to_dict() == {"label": "b", "corners": [{"x": 1}, [{"x": 2}, {"p": {"x": 0}}]]}
    assert box.dict() == box.to_dict()


def test_a_struct_takes_fields_it_does_not_declare_as_sieve_code_sets_them(Struct):
    class Record(Struct):
        name: str = ""

    record = Record(name="a", extra=3)
    assert record.to_dict() == {"name": "a", "extra": 3}


def test_a_struct_can_hold_a_file(Struct):
    class WithFile(Struct):
        doc: sluice.File

    held = WithFile(doc=sluice.File("a.txt"))
    assert held.doc == sluice.File("a.txt")


def test_without_pydantic_a_struct_is_a_plain_record_that_compares_and_prints_by_its_fields():
    Struct = load_struct_module(block_pydantic=True).Struct

    class Point(Struct):
        x: int
        y: int = 0
        _hidden: int = 5

    point = Point(x="1")  # not validated without pydantic
    assert point.x == "1" and "_hidden" not in vars(point)  # private class attributes are not fields
    assert point == Point(x="1") and point != Point(x="2") and point != {"x": "1", "y": 0}
    assert repr(point) == "Point(y=0, x='1')"
    point._private = 1
    assert point.to_dict() == {"y": 0, "x": "1"}


def test_with_pydantic_a_structs_fields_are_validated_and_converted():
    pydantic = pytest.importorskip("pydantic")
    Struct = load_struct_module(block_pydantic=False).Struct

    class Point(Struct):
        x: int

    assert Point(x="3").x == 3
    with pytest.raises(pydantic.ValidationError):
        Point(x="three")


def test_struct_is_imported_only_once_used_and_is_the_same_under_both_names():
    ran = subprocess.run([sys.executable, "-c", (
        "import sys, sluice, sieve\n"
        "before = 'sluice._struct' in sys.modules\n"
        "assert sieve.Struct is sluice.Struct\n"
        "print(before, 'sluice._struct' in sys.modules)\n"
        "try:\n"
        "    sluice.Nothing\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
        "try:\n"
        "    sieve.Nothing\n"
        "except AttributeError as error:\n"
        "    print(error)\n")], capture_output=True, text=True, env=sdk_env(), timeout=60)
    assert ran.stdout.splitlines() == ["False True", "module 'sluice' has no attribute 'Nothing'",
                                       "module 'sieve' has no attribute 'Nothing'"], ran.stderr
