"""``@sluice.function(...)`` (sluice._decorator) and the rules for its options (sluice._schema),
which the inspector shares: the metadata document each function's options become."""

import typing
from typing import AsyncIterator, Generator, Iterable, Iterator, List

import pytest

import sieve
import sluice
from sluice import _decorator
from sluice._decorator import ATTRIBUTE, FunctionSpec, _streams, find_functions, observe_decorators, registered
from sluice._metadata import Metadata
from sluice._schema import DEFAULTS, normalize

# --- the decorator ---------------------------------------------------------------------------


def test_the_decorator_returns_the_function_unchanged_with_its_spec_attached():
    def greet(name: str) -> str:
        return "hi " + name

    decorated = sluice.function(name="greet-test", python_packages=["numpy"], gpu=sluice.gpu.T4(split=2))(greet)
    assert decorated is greet and decorated("Ada") == "hi Ada"
    spec = getattr(greet, ATTRIBUTE)
    assert isinstance(spec, FunctionSpec)
    assert (spec.name, spec.kind, spec.generator, spec.target, spec.iterator_input) == ("greet-test", "function", False, greet, False)
    assert spec.options["python_packages"] == ["numpy"]
    assert spec.options["gpu"] == {"machine_type": "t4", "split": 2}
    assert list(spec.options) == list(DEFAULTS)  # the whole document, in its order
    assert registered()["greet-test"] is spec


def test_a_decorated_class_is_a_class_function_that_streams_when_its_predict_yields():
    @sieve.Model(name="model-test")
    class Model:
        def __setup__(self):
            pass

        def __predict__(self, text: str):
            yield text

    spec = getattr(Model, ATTRIBUTE)
    assert (spec.kind, spec.generator, spec.target) == ("class", True, Model)


def test_a_decorated_class_without_predict_is_refused():
    with pytest.raises(TypeError, match="class NoPredict decorated with @sluice.function must define __predict__"):
        @sluice.function(name="no-predict")
        class NoPredict:
            pass


def test_a_bare_decorator_says_the_name_is_required():
    with pytest.raises(TypeError, match=r'name is required: write @sluice.function\(name="..."\)'):
        @sluice.function
        def f():
            pass


def test_invalid_options_raise_one_value_error_naming_every_problem():
    with pytest.raises(ValueError) as raised:
        sluice.function(name="bad name", timeout=0, system_packages=["FFmpeg"])
    message = str(raised.value)
    assert 'name "bad name" is not valid' in message
    assert "timeout must be None or whole seconds between 1 and 86400 (got 0)" in message
    assert 'system_packages: "FFmpeg" is not a Debian package name' in message
    assert message.count("; ") == 2


def test_retries_go_into_the_functions_metadata_from_either_spelling_of_the_decorator():
    def flaky() -> None:
        pass

    assert getattr(sluice.function(name="retried", retries=2)(flaky), ATTRIBUTE).options["retries"] == 2
    assert getattr(sieve.function(name="retried-sieve", retries=10)(flaky), ATTRIBUTE).options["retries"] == 10
    assert getattr(sluice.function(name="not-retried")(flaky), ATTRIBUTE).options["retries"] == 0


def test_retries_out_of_range_are_refused_when_decorating():
    for retries in (-1, 11, 1.5, True, "2"):
        with pytest.raises(ValueError, match=f"retries must be a whole number of times between 0 and 10 \\(got {retries!r}\\)"):
            sluice.function(name="too-many", retries=retries)


def test_sieves_names_for_the_decorator_are_the_same_decorator():
    assert sluice.Model is sluice.function and sluice.workflow is sluice.function
    assert sieve.function is sluice.function and sieve.Model is sluice.function and sieve.workflow is sluice.function
    assert sieve.gpu.L4(split=3) == sluice.gpu.L4(split=3)


def test_sieves_2023_iterator_input_is_kept_on_the_spec_and_out_of_the_document():
    @sluice.function(name="batch-test", iterator_input=True, persist_output=True)
    def batch(xs):
        return list(xs)

    spec = getattr(batch, ATTRIBUTE)
    assert spec.iterator_input is True
    assert "iterator_input" not in spec.options and "persist_output" not in spec.options


def test_find_functions_gives_a_modules_own_decorated_functions_by_symbol():
    import types

    module = types.ModuleType("fake_module")
    exec(
        "import sluice\n"
        "@sluice.function(name='one-test')\n"
        "def one(): pass\n"
        "alias = one\n"
        "def plain(): pass\n",
        module.__dict__,
    )
    found = find_functions(module)
    assert set(found) == {"one", "alias"} and found["one"].name == "one-test"
    assert "sluice" not in found  # a module is never one


def test_an_observer_sees_each_decorators_arguments_as_given_instead_of_the_checks():
    seen = []
    observe_decorators(lambda given, target: seen.append((given["name"], given["timeout"], target.__name__)))
    try:
        @sluice.function(name="not valid!", timeout=-5)
        def observed():
            pass
    finally:
        observe_decorators(None)
    assert seen == [("not valid!", -5, "observed")]
    assert not hasattr(observed, ATTRIBUTE)


# --- which functions stream --------------------------------------------------------------------


def gen():
    yield 1


async def agen():
    yield 1


async def coroutine():
    return 1


def returns(annotation):
    def f():
        pass

    f.__annotations__ = {"return": annotation}
    return f


@pytest.mark.parametrize("fn, streams", [
    (gen, True), (agen, True), (coroutine, False), (lambda: None, False),
    (returns(Iterator[str]), True), (returns(Iterable[int]), True), (returns(Generator[int, None, None]), True),
    (returns(AsyncIterator[str]), True), (returns(typing.Iterator), True),
    (returns("Iterator[str]"), True), (returns("typing.AsyncGenerator[str, None]"), True), (returns("collections.abc.Iterable"), True),
    (returns(List[str]), False), (returns(str), False), (returns("IteratorHelper"), False), (returns("MyIterator"), False),
    (returns("Optional[Iterator[str]]"), False), (returns(None), False),
])
def test_a_function_streams_when_it_yields_or_says_it_returns_an_iterator(fn, streams):
    assert _streams(fn) is streams


# --- the options' rules ----------------------------------------------------------------------


def options(**given):
    out, errors = normalize({"name": "f", **given})
    return out, [error.message for error in errors]


def fields(**given):
    return [error.field for error in normalize({"name": "f", **given})[1]]


def test_unset_options_take_their_defaults():
    out, errors = options()
    assert errors == []
    assert out == {**DEFAULTS, "name": "f", "python_packages": [], "system_packages": [], "run_commands": [], "environment_variables": []}
    out["python_packages"].append("x")
    assert DEFAULTS["python_packages"] == []  # each document has lists of its own


@pytest.mark.parametrize("name", ["a", "hello-world", "v1.2_x", "A" * 128])
def test_a_valid_name_is_accepted(name):
    assert options(name=name)[1] == []


@pytest.mark.parametrize("name, message", [
    (None, "name is required"), (3, "name must be a string (got 3)"), ("-x", 'name "-x" is not valid'),
    ("a b", 'name "a b" is not valid'), ("A" * 129, "is not valid"), ("x/y", "is not valid"),
])
def test_an_invalid_name_is_refused(name, message):
    _, errors = normalize({"name": name})
    assert len(errors) == 1 and errors[0].field == "name" and message in errors[0].message


@pytest.mark.parametrize("gpu, expected", [
    (None, None), (False, None), (True, {"machine_type": "t4", "split": 1}),
    (sluice.gpu.A100(), {"machine_type": "a100", "split": 1}), (sluice.gpu.A10020GB(split=8), {"machine_type": "a100-20gb", "split": 8}),
    ("l4", {"machine_type": "l4", "split": 1}), ("A100-20GB", {"machine_type": "a100-20gb", "split": 1}),
    ("T4-highmem-8-ssd", {"machine_type": "t4", "split": 1}), ("v100", {"machine_type": "v100", "split": 1}),
])
def test_a_gpu_is_given_by_constructor_or_by_sieves_names(gpu, expected):
    out, errors = options(gpu=gpu)
    assert errors == [] and out["gpu"] == expected


@pytest.mark.parametrize("gpu, message", [
    ("a100-80gb", "gpu must be None or one of sluice.gpu.T4(split=N)"), ("h100", "gpu must be None or one of"), (3, "gpu must be None"),
    (sluice.gpu.Gpu("h100"), "gpu must be None or one of"), (sluice.gpu.T4(split=0), "gpu.split must be between 1 and 8 (got 0)"),
    (sluice.gpu.T4(split=9), "gpu.split must be between 1 and 8 (got 9)"), (sluice.gpu.T4(split="2"), "gpu.split must be an integer"),
    (sluice.gpu.T4(split=True), "gpu.split must be an integer"),
])
def test_a_gpu_this_service_has_none_of_or_an_unshareable_split_is_refused(gpu, message):
    _, errors = options(gpu=gpu)
    assert len(errors) == 1 and message in errors[0]


def test_sieves_machine_type_names_the_gpu_of_gpu_true_or_of_an_unset_gpu():
    assert options(machine_type="l4")[0]["gpu"] == {"machine_type": "l4", "split": 1}
    assert options(machine_type="a100", gpu=True)[0]["gpu"] == {"machine_type": "a100", "split": 1}
    assert options(machine_type="a100", gpu=False)[0]["gpu"] is None
    assert "machine_type is Sieve's older spelling of gpu=" in options(machine_type="a100", gpu=sluice.gpu.L4())[1][0]
    assert options(machine_type=3)[1] == ['machine_type must be a string such as "a100" (got 3)']
    assert "machine_type" not in options(machine_type="l4")[0]


def test_sieves_2023_flags_must_be_booleans():
    assert options(iterator_input=True, persist_output=False)[1] == []
    assert options(iterator_input="yes")[1] == ["iterator_input must be True or False (got 'yes')"]


@pytest.mark.parametrize("given, kept", [("3.11", "3.11"), ("3.12.3", "3.12"), ("3.8", "3.8"), (None, None)])
def test_a_python_version_is_kept_as_its_minor_version(given, kept):
    out, errors = options(python_version=given)
    assert errors == [] and out["python_version"] == kept


@pytest.mark.parametrize("given", [3.11, "python3", "3", "2.7", "3.11\n", "3.11.2.1"])
def test_a_python_version_in_another_form_is_refused(given):
    assert options(python_version=given)[1] == [f'python_version must be a string like "3.11" (got {given!r})']


def test_package_lists_must_be_lists_of_strings_and_system_packages_debian_names():
    assert options(python_packages=("numpy", "torch==2.1"))[0]["python_packages"] == ["numpy", "torch==2.1"]
    assert options(python_packages="numpy")[1] == ["python_packages must be a list of strings (got 'numpy')"]
    assert options(python_packages=["numpy", ""])[1] == ["python_packages must not contain empty strings"]
    assert options(system_packages=["ffmpeg", "libgl1", "g++", "libc6-dev"])[1] == []
    assert options(system_packages=["FFmpeg", "a b"])[1] == [
        'system_packages: "FFmpeg" is not a Debian package name (lowercase letters, digits, "+", "-" and ".")',
        'system_packages: "a b" is not a Debian package name (lowercase letters, digits, "+", "-" and ".")']


def test_run_commands_must_be_shell_commands():
    assert options(run_commands=["pip install x", "echo hi"])[1] == []
    assert options(run_commands="make")[1] == ["run_commands must be a list of strings (got 'make')"]
    assert options(run_commands=[" ", "a\0b"])[1] == [
        "run_commands: ' ' is not a shell command (empty, or holds a NUL)", "run_commands: 'a\\x00b' is not a shell command (empty, or holds a NUL)"]


def test_environment_variables_are_envs_with_their_defaults_as_the_strings_the_variable_holds():
    out, errors = options(environment_variables=[sluice.Env("TOKEN", "the token"), sluice.Env("N", default=30),
                                                 sluice.Env("ON", default=True), sluice.Env("X", description=None, default="x")])
    assert errors == []
    assert out["environment_variables"] == [
        {"name": "TOKEN", "description": "the token", "default": None}, {"name": "N", "description": "", "default": "30"},
        {"name": "ON", "description": "", "default": "True"}, {"name": "X", "description": "", "default": "x"}]


@pytest.mark.parametrize("envs, message", [
    ("A", "environment_variables must be a list of sluice.Env(...)"),
    ([{"name": "A"}], "environment_variables[0] must be sluice.Env(name=..., description=..., default=...)"),
    ([sluice.Env("1ABC")], 'environment_variables[0].name must be a valid identifier such as "API_TOKEN" (got "1ABC")'),
    ([sluice.Env("A"), sluice.Env("A")], 'environment_variables[1].name "A" is declared twice'),
    ([sluice.Env("A", default=[1])], "environment_variables[0].default must be a string, a number, a bool or None (got [1])"),
    ([sluice.Env(3)], "environment_variables[0].name must be a string (got 3)"),
])
def test_an_environment_variable_that_is_not_a_valid_env_is_refused(envs, message):
    errors = options(environment_variables=envs)[1]
    assert len(errors) == 1 and errors[0].startswith(message)


@pytest.mark.parametrize("given, message", [
    ({"minimum_replicas": -1}, "minimum_replicas must be an integer between 0 and 64 (got -1)"),
    ({"minimum_replicas": 65}, "minimum_replicas must be an integer between 0 and 64 (got 65)"),
    ({"minimum_replicas": True}, "minimum_replicas must be an integer between 0 and 64 (got True)"),
    ({"maximum_replicas": 1.5}, "maximum_replicas must be None or an integer between 0 and 64 (got 1.5)"),
    ({"minimum_replicas": 3, "maximum_replicas": 2}, "maximum_replicas (2) must be at least minimum_replicas (3), or 0 for no cap"),
    ({"restart_on_error": "yes"}, "restart_on_error must be True or False (got 'yes')"),
    ({"timeout": 0}, "timeout must be None or whole seconds between 1 and 86400 (got 0)"),
    ({"timeout": 86401}, "timeout must be None or whole seconds between 1 and 86400 (got 86401)"),
    ({"timeout": 1.5}, "timeout must be None or whole seconds between 1 and 86400 (got 1.5)"),
    ({"title": 3}, "title must be a string or None (got 3)"),
    ({"cuda_version": 12}, "cuda_version must be a string or None (got 12)"),
    ({"tags": "a"}, "tags must be a list of strings or None (got 'a')"),
])
def test_each_option_out_of_its_range_is_refused(given, message):
    assert options(**given)[1] == [message]


def test_options_in_range_are_kept():
    out, errors = options(minimum_replicas=2, maximum_replicas=0, timeout=86400, restart_on_error=False, tags=("a", "b"), title="T")
    assert errors == []
    assert (out["minimum_replicas"], out["maximum_replicas"], out["timeout"], out["restart_on_error"], out["tags"], out["title"]) == (
        2, 0, 86400, False, ["a", "b"], "T")


def test_an_unknown_option_is_refused_with_the_closest_known_one():
    assert options(gpus=1)[1] == ['unknown field "gpus" (did you mean "gpu"?)']
    assert options(zzz=1)[1] == ['unknown field "zzz"']


def test_every_problem_is_reported_each_with_its_field():
    assert fields(timeout=0, tags="x", gpu="h100") == ["gpu", "timeout", "tags"]


def test_metadata_fills_the_presentation_options_and_a_field_may_be_given_one_way_only():
    cover = sluice.Image(url="https://x/cover.png")
    out, errors = options(metadata=Metadata(title="T", description="D", code_url="https://code", image=cover, tags=["a"],
                                            readme="# R", name="ignored"))
    assert errors == []
    assert {key: out[key] for key in ("title", "description", "code_url", "cover_image_url", "tags", "readme")} == {
        "title": "T", "description": "D", "code_url": "https://code", "cover_image_url": "https://x/cover.png", "tags": ["a"], "readme": "# R"}
    assert options(title="A", metadata=Metadata(title="B"))[1] == ["title is given twice: as an argument and in metadata"]
    assert options(metadata=None)[1] == []
    assert options(metadata={"title": "T"})[1] == ["metadata must be sluice.Metadata(...) or None (got {'title': 'T'})"]


def test_metadata_keeps_what_it_is_given_and_names_what_it_ignores():
    metadata = Metadata(title="T", name="n", extra=1)
    assert metadata.ignored == ["extra", "name"]
    assert metadata.options() == {"title": "T"}
    assert metadata == Metadata(title="T", name="n", extra=1) and metadata != Metadata(title="U")
    assert repr(metadata) == "Metadata(title='T')"
    assert Metadata(image=sluice.File("local.png")).options() == {}  # a cover image by path has no URL


def test_the_gpu_constructors_name_the_service_machine_types():
    made = [sluice.gpu.T4(), sluice.gpu.L4(2), sluice.gpu.A100(), sluice.gpu.A10020GB(), sluice.gpu.V100(split=4)]
    assert [gpu.to_dict() for gpu in made] == [
        {"machine_type": "t4", "split": 1}, {"machine_type": "l4", "split": 2}, {"machine_type": "a100", "split": 1},
        {"machine_type": "a100-20gb", "split": 1}, {"machine_type": "v100", "split": 4}]
    assert sorted(sluice.gpu.MACHINE_TYPES) == sorted(name for name in sluice.gpu.__all__ if name not in ("Gpu", "MACHINE_TYPES", "DEFAULT_GPU"))


def test_the_registry_keeps_the_last_function_of_a_name():
    @sluice.function(name="twice-test")
    def first():
        pass

    @sluice.function(name="twice-test")
    def second():
        pass

    assert _decorator.registered()["twice-test"].target is second
