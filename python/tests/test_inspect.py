"""The deploy-time inspector (sluice._inspect and its _inspect_* helpers): the metadata of every
decorated function in a folder, read from the source, on the repository's real examples and on
function files written for each test. Arguments the module computes are learnt by running it
(sluice._evaluate) as a separate command, as ``sluice deploy`` does."""

import json
import os
import subprocess
import sys

import pytest

import sluice
from sluice._inspect import inspect_path, main, python_files
from sluice_harness import REPO_ROOT, SDK_DIR, sdk_env, write_files

EXAMPLES = os.path.join(REPO_ROOT, "examples")
EVALUATOR = ["env", f"PYTHONPATH={SDK_DIR}", "PYTHONDONTWRITEBYTECODE=1", sys.executable, "-m", "sluice._evaluate"]


def inspect_files(tmp_path, files, evaluator=None, only=None):
    folder = tmp_path / "fn"
    folder.mkdir(exist_ok=True)
    binary = {path: content for path, content in files.items() if isinstance(content, bytes)}
    write_files(str(folder), {path: content for path, content in files.items() if path not in binary})
    for path, content in binary.items():
        (folder / path).write_bytes(content)
    return inspect_path(str(folder), only, evaluator)


def functions_of(inspector):
    assert inspector.errors == [], inspector.errors
    return inspector.functions


def test_the_retries_a_function_declares_are_in_its_metadata(tmp_path):
    assert one(tmp_path, decorated('name="x", retries=3'))["retries"] == 3
    assert one(tmp_path, decorated('name="x"'))["retries"] == 0


def one(tmp_path, source, **options):
    (found,) = functions_of(inspect_files(tmp_path, {"main.py": source}, **options))
    return found


# --- the repository's examples ---------------------------------------------------------------


def test_the_examples_inspect_cleanly_each_with_its_signature_and_packages():
    inspector = inspect_path(EXAMPLES)
    assert (inspector.errors, inspector.warnings, inspector.evaluated) == ([], [], [])
    by_name = {fn["name"]: fn for fn in inspector.functions}
    assert sorted(by_name) == ["audio-loudness", "digits", "hello", "image-thumbnail", "stream-words", "video-thumbnails"]

    hello = by_name["hello"]
    assert hello["entrypoint"] == {"file": "hello/main.py", "symbol": "hello", "kind": "function", "generator": False}
    assert hello["inputs"] == [
        {"name": "name", "type": "str", "description": "who to greet", "is_optional": False},
        {"name": "excited", "type": "bool", "description": 'end with "!" instead of "."', "is_optional": True, "default": False},
    ]
    assert hello["outputs"] == [{"name": "", "type": "str", "description": "the greeting"}]
    assert (hello["title"], hello["tags"], hello["python_packages"], hello["gpu"]) == ("Hello", ["example"], [], None)
    assert hello["readme"].startswith("# hello\n")
    assert hello["function_dependencies"] == []

    words = by_name["stream-words"]
    assert words["entrypoint"]["generator"] is True and words["outputs"][0]["type"] == "str"

    def signature(name):
        fn = by_name[name]
        return [fn["python_packages"], fn["entrypoint"]["generator"], [f"{i['name']}: {i['type']}" for i in fn["inputs"]],
                [o["type"] for o in fn["outputs"]]]

    assert signature("video-thumbnails") == [["av", "pillow"], True, ["video: sieve.File", "count: int", "width: int"], ["sieve.File"]]
    assert signature("audio-loudness") == [["numpy", "soundfile"], False, ["audio: sieve.File", "sample_rate: int"], ["dict"]]
    assert signature("image-thumbnail") == [["pillow"], False, ["image: sieve.File", "size: int", "blur: float", "greyscale: bool"],
                                            ["sieve.File"]]
    assert signature("digits") == [["scikit-learn"], False, ["pixels: list"], ["dict"]]


@pytest.mark.parametrize("folder", ["hello", "stream-words", "video", "audio", "image", "digits"])
def test_each_example_folder_is_what_sluice_deploy_inspects_one_function(folder):
    inspector = inspect_path(os.path.join(EXAMPLES, folder))
    assert inspector.errors == [] and len(inspector.functions) == 1
    assert inspector.functions[0]["entrypoint"]["file"] == "main.py"


def test_a_single_file_can_be_inspected_relative_to_its_folder():
    (found,) = functions_of(inspect_path(os.path.join(EXAMPLES, "hello", "main.py")))
    assert found["entrypoint"]["file"] == "main.py"


def test_the_sdks_own_sieve_package_declares_no_function():
    inspector = inspect_path(os.path.join(SDK_DIR, "sieve"))
    assert inspector.functions == []
    assert inspector.errors == [f"no function decorated with @sluice.function(...) found in {os.path.join(SDK_DIR, 'sieve')}"]


# --- reading function files ------------------------------------------------------------------


def test_the_users_code_is_never_imported(tmp_path):
    found = one(tmp_path, '''
        import numpy_that_does_not_exist
        import sluice

        open("side-effect", "w").close()
        raise SystemExit(7)

        @sluice.function(name="heavy", python_packages=["numpy_that_does_not_exist"])
        def heavy(x: int) -> int:
            return numpy_that_does_not_exist.square(x)
    ''')
    assert found["name"] == "heavy"
    assert not (tmp_path / "fn" / "side-effect").exists() and not os.path.exists("side-effect")


def test_subfolders_are_read_with_posix_paths_and_hidden_folders_caches_venvs_and_node_modules_skipped(tmp_path):
    broken = "def broken(:\n"
    inspector = inspect_files(tmp_path, {
        "pkg/sub/model.py": 'import sluice\n\n@sluice.function(name="deep")\ndef deep(): pass\n',
        "notes.txt": broken, ".hidden/x.py": broken, "__pycache__/x.py": broken, "venv/lib/x.py": broken, ".venv/lib/x.py": broken,
        "node_modules/pkg/x.py": broken, ".dotfile.py": broken,
    })
    assert [fn["entrypoint"]["file"] for fn in functions_of(inspector)] == ["pkg/sub/model.py"]
    assert [path.name for path in python_files(tmp_path / "fn")] == ["model.py"]


def test_a_sieve_function_file_reads_unchanged_with_its_readme_beside_it(tmp_path):
    (found,) = functions_of(inspect_files(tmp_path, {
        "README.md": "# Shout\n\nUpper-cases text.\n",
        "main.py": '''
            import sieve

            metadata = sieve.Metadata(
                title="Shout",
                description="Upper-cases text",
                code_url="https://example.com/shout",
                image=sieve.Image(url="https://example.com/shout.png"),
                tags=["Text"],
                readme=open("README.md", "r").read(),
            )

            @sieve.Model(
                name="shout",
                gpu=sieve.gpu.A10020GB(split=2),
                python_packages=["six"],
                run_commands=["echo one"],
                environment_variables=[sieve.Env(name="TOKEN", description="a token"), sieve.Env("FPS", "", 30)],
                metadata=metadata,
            )
            class Shout:
                def __setup__(self):
                    pass

                def __predict__(self, text: str, picture: sieve.Image, config: sieve.Struct) -> sieve.File:
                    return picture
        ''',
    }))
    assert found["entrypoint"] == {"file": "main.py", "symbol": "Shout", "kind": "class", "generator": False}
    assert found["gpu"] == {"machine_type": "a100-20gb", "split": 2}
    assert found["environment_variables"] == [{"name": "TOKEN", "description": "a token", "default": None},
                                              {"name": "FPS", "description": "", "default": "30"}]
    assert (found["title"], found["code_url"], found["cover_image_url"], found["tags"], found["readme"]) == (
        "Shout", "https://example.com/shout", "https://example.com/shout.png", ["Text"], "# Shout\n\nUpper-cases text.\n")
    assert [(i["name"], i["type"]) for i in found["inputs"]] == [("text", "str"), ("picture", "sieve.File"), ("config", "dict")]
    assert list(found) == ["name", "entrypoint", "gpu", "python_version", "python_packages", "system_packages", "cuda_version",
                           "run_commands", "environment_variables", "minimum_replicas", "maximum_replicas", "restart_on_error",
                           "timeout", "retries", "title", "description", "tags", "readme", "code_url", "cover_image_url", "inputs", "outputs",
                           "function_dependencies"]


def test_a_local_cover_image_is_inline_and_a_readme_may_be_read_with_pathlib(tmp_path):
    (found,) = functions_of(inspect_files(tmp_path, {
        "docs/README.md": "Read me.",
        "logo.png": b"PNG",
        "main.py": '''
            from pathlib import Path
            from sieve import function, Metadata, File

            @function(name="a", metadata=Metadata(readme=Path("docs/README.md").read_text(), image=File(path="logo.png")))
            def a(f: File) -> File:
                return f
        ''',
    }))
    assert (found["readme"], found["cover_image_url"]) == ("Read me.", "data:image/png;base64,UE5H")


def test_a_local_cover_image_over_a_megabyte_is_left_out_with_a_warning(tmp_path):
    inspector = inspect_files(tmp_path, {"big.png": b"\0" * 1_200_000, "main.py": '''
        import sieve

        @sieve.function(name="big", metadata=sieve.Metadata(image=sieve.Image(path="big.png")))
        def f():
            pass
    '''})
    assert functions_of(inspector)[0]["cover_image_url"] is None
    assert inspector.warnings == ["main.py: metadata.image: big.png is over 1 MB, so the function has no cover image; "
                                  "give its URL (sieve.Image(url=...)) to show one"]


def test_arguments_sieves_models_ignore_are_ignored_with_a_warning(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": '''
        import sieve

        @sieve.function(name="x", environment_variables=[sieve.Env(name="KEY", is_secret=True)],
                        metadata=sieve.Metadata(name="Shown", description="d"))
        def f():
            pass
    '''})
    assert functions_of(inspector)[0]["description"] == "d"
    assert inspector.warnings == [
        "main.py: environment_variables[0]: is_secret= is not an argument of sieve.Env here (name, description, default); ignored",
        "main.py: metadata: name= is not a field of sieve.Metadata (title, description, code_url, tags, readme, image); ignored",
    ]


def test_sieves_2023_arguments_are_read_and_iterator_input_makes_every_input_a_list(tmp_path):
    functions = functions_of(inspect_files(tmp_path, {"main.py": '''
        import sieve

        @sieve.function(name="plain-gpu", gpu=True, iterator_input=True, persist_output=True)
        def a(it: sieve.Image, n: int) -> sieve.Video:
            pass

        @sieve.Model(name="named", gpu="l4")
        class C:
            def __predict__(self):
                pass

        @sieve.function(name="typed", gpu=True, machine_type="a100-20gb")
        def d():
            pass
    '''}))
    assert [(fn["name"], (fn["gpu"] or {}).get("machine_type")) for fn in functions] == [
        ("plain-gpu", "t4"), ("named", "l4"), ("typed", "a100-20gb")]
    assert [i["type"] for i in functions[0]["inputs"]] == ["list", "list"]
    assert "iterator_input" not in functions[0]


def test_function_dependencies_are_the_literal_names_the_function_gets_directly_or_through_the_module(tmp_path):
    functions = functions_of(inspect_files(tmp_path, {"main.py": '''
        import sieve

        transcriber = sieve.function.get("acme/transcribe")
        models: dict = {"small": sieve.function.get("acme/small")}
        unused = sieve.function.get("acme/unused")

        def translate(text):
            return sieve.function.get("acme/translate").run(text)

        def pipeline(audio):
            return translate(transcriber.run(audio))

        @sieve.function(name="direct")
        def direct(url: str) -> str:
            first = sieve.function.get("acme/download")
            again = sieve.function.get("acme/download")
            dynamic = sieve.function.get(url)
            return transcriber.push(first.run(url)).result()

        @sieve.function(name="through-helpers")
        def through_helpers(audio: sieve.File) -> str:
            models["small"].run(audio)
            return pipeline(audio)

        @sieve.workflow(name="pipeline-2023")
        def old(video: sieve.Video) -> dict:
            return sieve.reference("sieve/face-detector")(video)
    '''}))
    assert [(fn["name"], fn["function_dependencies"]) for fn in functions] == [
        ("direct", ["acme/download", "acme/transcribe"]),
        ("through-helpers", ["acme/small", "acme/translate", "acme/transcribe"]),
        ("pipeline-2023", ["sieve/face-detector"]),
    ]


def test_only_the_files_named_are_read(tmp_path):
    inspector = inspect_files(tmp_path, {
        "kept.py": 'import sieve\n\n@sieve.function(name="kept")\ndef f():\n    pass\n',
        "ignored.py": 'import sieve\n\n@sieve.function(name="ignored")\ndef g():\n    pass\n',
    }, only=["kept.py"])
    assert [fn["name"] for fn in functions_of(inspector)] == ["kept"]


# --- errors, each with its file and line -----------------------------------------------------


def decorated(args, body="def f():\n    pass\n"):
    return f"import sluice\n\n@sluice.function({args})\n{body}"


@pytest.mark.parametrize("source, expected", [
    (decorated('name="x", gpu=sluice.gpu.T4(split=9)'), "main.py:3: gpu.split must be between 1 and 8 (got 9)"),
    (decorated('name="x", gpu=sluice.gpu.H100()'), "main.py:3: gpu: sluice.gpu.H100 is not a GPU this service has a machine type for"),
    (decorated('name="x", gpu=sluice.gpu.T4(split=2, memory=3)'), "main.py:3: gpu: sluice.gpu.T4(...) takes one argument, split"),
    (decorated("gpu=None"), "main.py:3: name is required"),
    ("import sluice\n\n@sluice.function\ndef f():\n    pass\n", 'main.py:3: name is required: write @sluice.function(name="...")'),
    (decorated('"x"'), "main.py:3: sluice.function takes keyword arguments only"),
    (decorated("name=NAME"), "main.py:3: name is computed (NAME): write it as a literal value (this inspector runs no code)"),
    ('import sluice\n\n@sluice.function(\n    name="x",\n    python_packages="numpy",\n)\ndef f():\n    pass\n',
     "main.py:5: python_packages must be a list of strings"),
    (decorated('name="x", environment_variables=[sluice.Env()]'), "main.py:3: environment_variables[0].name is required"),
    (decorated('name="x", environment_variables=[{"name": "A"}]'), "main.py:3: environment_variables[0] must be sluice.Env("),
    (decorated('name="x"', "class F:\n    def __setup__(self):\n        pass\n"), "main.py:4: class F must define __predict__"),
    (decorated('name="x"', "def f(*args):\n    pass\n"), "main.py:4: f: *args cannot be an input"),
    ('import sluice\n\ndef outer():\n    @sluice.function(name="x")\n    def f():\n        pass\n',
     "main.py:4: @sluice.function must decorate a function or class at the top level of the module (f is nested)"),
    ('import sluice\n\n@sluice.function(name="a")\n@sluice.function(name="b")\ndef f():\n    pass\n',
     "main.py:3: f is decorated with @sluice.function more than once"),
    (decorated('name="x"', 'def f():\n    sluice.function.get("no-owner")\n'),
     'main.py:5: sluice.function.get("no-owner"): the name must look like "owner/name"'),
    (decorated('name="x", metadata=sluice.Metadata(readme=open("../secret").read())'), "main.py:3: ../secret is outside the function's folder"),
    (decorated('name="x", metadata=sluice.Metadata(readme=open("README.md").read())'), "main.py:3: metadata.readme: cannot read README.md"),
    (decorated('name="x", title="A", metadata=sluice.Metadata(title="B")'), "main.py:3: title is given twice: as an argument and in metadata"),
    (decorated('name="x", metadata={"title": "T"}'), "main.py:3: metadata must be sieve.Metadata(...) or None"),
    (decorated('name="x", gpus=1'), 'main.py:3: unknown field "gpus" (did you mean "gpu"?)'),
    (decorated('name="x", retries=11'), "main.py:3: retries must be a whole number of times between 0 and 10 (got 11)"),
])
def test_each_problem_is_an_error_naming_the_file_line_and_field(tmp_path, source, expected):
    inspector = inspect_files(tmp_path, {"main.py": source})
    assert len(inspector.errors) == 1 and inspector.errors[0].startswith(expected), inspector.errors


@pytest.mark.parametrize("source, expected", [
    (decorated('name="x", metadata=META'), "main.py:3: metadata is META, which this module does not assign at its top level: "
                                            "write it as a literal value"),
    (decorated('name="x", gpu=GPU'), "main.py:3: gpu is computed (GPU): write it as a literal value"),
    (decorated('name="x", environment_variables=ENVS'), "main.py:3: environment_variables is computed (ENVS): write it as a literal value"),
    (decorated('name="x", metadata=sluice.Metadata(image=sluice.Image(url=COVER))'),
     "main.py:3: metadata.image's url is computed (COVER): write it as a literal value"),
])
def test_an_argument_the_module_computes_needs_the_evaluator(tmp_path, source, expected):
    assert inspect_files(tmp_path, {"main.py": source}).errors == [expected + " (this inspector runs no code)"]


def test_every_problem_is_reported_at_once_each_on_the_line_of_its_field(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": '''
        import sluice

        @sluice.function(
            name="x",
            timeout=0,
            gpu=sluice.gpu.T4(split=9),
            tags="a",
        )
        def f():
            pass
    '''})
    assert [error.split(":")[1] for error in inspector.errors] == ["6", "5", "7"]


def test_options_passed_as_a_mapping_are_refused_and_what_they_would_have_given_is_missing(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": decorated("**OPTIONS")})
    assert inspector.errors == ["main.py:3: sluice.function arguments must be written out, not passed as **mapping",
                                "main.py:3: name is required"]


def test_a_syntax_error_names_its_file_and_line_and_other_files_are_still_read(tmp_path):
    inspector = inspect_files(tmp_path, {"ok.py": decorated('name="ok"'), "sub/main.py": "import sluice\n\n\ndef f(:\n    pass\n"})
    assert len(inspector.errors) == 1 and inspector.errors[0].startswith("sub/main.py:4: syntax error: ")
    assert [fn["name"] for fn in inspector.functions] == ["ok"]


def test_two_functions_with_computed_names_get_one_error_each_and_no_other(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": decorated("name=A") + "\n" + decorated("name=B", "def g():\n    pass\n")})
    assert [error.split(": ", 1)[1] for error in inspector.errors] == [
        "name is computed (A): write it as a literal value (this inspector runs no code)",
        "name is computed (B): write it as a literal value (this inspector runs no code)",
    ]


def test_two_functions_of_one_name_are_refused_naming_both_places(tmp_path):
    inspector = inspect_files(tmp_path, {"a.py": decorated('name="same"'), "b.py": decorated('name="same"', "def g():\n    pass\n")})
    assert inspector.errors == ['b.py:3: two functions are named "same": here and at a.py:3']


def test_a_folder_that_does_not_exist_or_declares_nothing_is_an_error(tmp_path):
    assert inspect_path(str(tmp_path / "missing")).errors == [f"{tmp_path / 'missing'}: no such file or directory"]
    assert inspect_files(tmp_path, {"plain.py": "x = 1\n"}).errors == [f"no function decorated with @sluice.function(...) found in {tmp_path / 'fn'}"]


# --- the command line ------------------------------------------------------------------------


def run_inspector(*args):
    ran = subprocess.run([sys.executable, "-m", "sluice._inspect", *args], capture_output=True, text=True, env=sdk_env(), timeout=60)
    return ran.returncode, json.loads(ran.stdout)


def test_the_command_prints_the_functions_as_json_and_exits_0():
    code, answer = run_inspector(os.path.join(EXAMPLES, "hello"))
    assert code == 0
    assert set(answer) == {"functions", "warnings", "evaluated"}
    assert [fn["name"] for fn in answer["functions"]] == ["hello"]


def test_the_command_prints_the_errors_as_json_and_exits_2(tmp_path):
    write_files(str(tmp_path), {"main.py": decorated('name="has space"')})
    code, answer = run_inspector(str(tmp_path))
    assert code == 2
    assert answer["errors"][0].startswith('main.py:3: name "has space" is not valid')
    assert "functions" not in answer


def test_the_command_answers_a_usage_error_in_the_same_shape():
    assert run_inspector(EXAMPLES, "--only", "not json") == (
        2, {"errors": ["usage: python3 -m sluice._inspect DIR [--only JSON] [--evaluator JSON]"]})


def test_the_command_in_process_takes_only_and_the_evaluator_as_json(tmp_path, capsys):
    write_files(str(tmp_path), {"a.py": decorated('name="a"'), "b.py": decorated('name="b"')})
    assert main([str(tmp_path), "--only", json.dumps(["b.py"]), "--evaluator", json.dumps(EVALUATOR)]) == 0
    assert [fn["name"] for fn in json.loads(capsys.readouterr().out)["functions"]] == ["b"]


# --- arguments the module computes (--evaluator) ---------------------------------------------


def test_computed_arguments_are_learnt_by_running_the_module_readme_image_and_a_helpers_metadata(tmp_path):
    inspector = inspect_files(tmp_path, {
        "main.py": '''
            import os

            import sieve

            from helpers import describe

            file_dir = os.path.dirname(os.path.realpath(__file__))
            readme_content = open(os.path.join(file_dir, "README.md"), "r").read()

            metadata = sieve.Metadata(
                description=describe("shouts"),
                readme=readme_content,
                image=sieve.File(path=os.path.join(os.path.dirname(__file__), "icon.png")),
            )

            @sieve.function(name="computed", metadata=metadata, environment_variables=[sieve.Env("N", default=int("3"))],
                            gpu=sieve.gpu.L4(split=int("2")))
            def f():
                pass
        ''',
        "helpers.py": "def describe(what):\n    return 'It ' + what + '.'\n",
        "README.md": "# Computed\n",
        "icon.png": bytes.fromhex("89504e47"),
    }, evaluator=EVALUATOR)
    (found,) = functions_of(inspector)
    assert inspector.evaluated == ["main.py"]
    assert (found["description"], found["readme"], found["cover_image_url"]) == ("It shouts.", "# Computed\n", "data:image/png;base64,iVBORw==")
    assert found["environment_variables"] == [{"name": "N", "description": "", "default": "3"}]
    assert found["gpu"] == {"machine_type": "l4", "split": 2}


def test_running_the_module_gets_past_packages_not_installed_and_skips_its_main_block(tmp_path):
    found = one(tmp_path, '''
        import sieve
        import torch
        from transformers import AutoModel

        DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

        class Net(torch.nn.Module):
            pass

        @torch.no_grad()
        def helper():
            return AutoModel.from_pretrained("x")

        NAME = "net-" + "runner"

        @sieve.function(name=NAME, python_packages=["torch"])
        def run():
            pass

        if __name__ == "__main__":
            raise SystemExit(3)
    ''', evaluator=EVALUATOR)
    assert (found["name"], found["python_packages"]) == ("net-runner", ["torch"])


def test_a_module_that_fails_when_run_is_reported_on_the_decorators_line_with_its_exception(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": (
        'import sieve\n\nREADME = open("MISSING.md").read()\n\n@sieve.function(name="x", readme=README)\ndef f():\n    pass\n')},
        evaluator=EVALUATOR)
    (error,) = inspector.errors
    assert error.startswith("main.py:5: running the module failed: FileNotFoundError: ")
    assert "MISSING.md" in error and error.endswith("the decorator's arguments are computed by the module's code, which "
                                                   "sluice deploy runs (as sieve deploy does) to read them")


def test_a_computed_value_made_by_a_package_not_deployed_names_that_package(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": (
        'import sieve\nfrom utils.ci import function_name\n\n@sieve.function(name=function_name("a"))\ndef f():\n    pass\n')},
        evaluator=EVALUATOR)
    assert inspector.errors == ["main.py:4: name is made by utils.ci.function_name(), and utils is neither in the folder deployed nor "
                                "installed where sluice deploy runs: deploy the folder that holds it"]


def test_an_evaluator_that_cannot_run_is_reported(tmp_path):
    inspector = inspect_files(tmp_path, {"main.py": decorated("name=NAME")}, evaluator=[str(tmp_path / "no-such-command")])
    (error,) = inspector.errors
    assert error.startswith("main.py:3: the module could not be run (")


def test_the_evaluator_prints_each_decorators_arguments_as_json(tmp_path):
    write_files(str(tmp_path), {"main.py": '''
        import sieve
        print("printed by the module")

        @sieve.function(name="e", gpu=sieve.gpu.T4(), metadata=sieve.Metadata(title="T", image=sieve.File(url="https://x/i.png")))
        def e():
            pass
    '''})
    ran = subprocess.run([sys.executable, "-m", "sluice._evaluate", str(tmp_path), "main.py"], capture_output=True, text=True,
                         env=sdk_env(), timeout=60)
    assert ran.returncode == 0 and "printed by the module" in ran.stderr
    answer = json.loads(ran.stdout)
    given = answer["functions"]["e"]
    assert (given["name"], given["gpu"], given["timeout"]) == ("e", {"machine_type": "t4", "split": 1}, None)
    assert given["metadata"] == {"title": "T", "description": None, "code_url": None, "tags": None, "readme": None,
                                 "image": {"url": "https://x/i.png"}}
    assert answer["stand_ins"] == []


def test_the_evaluator_turns_the_sdks_objects_into_the_json_the_inspector_reads_back(tmp_path):
    from sluice._evaluate import _StandIn, jsonable

    assert jsonable([sluice.Env("N", default=3), (1, "a", None, True)]) == [{"name": "N", "description": "", "default": 3}, [1, "a", None, True]]
    assert jsonable({"gpu": sluice.gpu.T4(), 1: 2.5}) == {"gpu": {"machine_type": "t4", "split": 1}, "1": 2.5}
    assert jsonable(sluice.File(url="https://x/a.png")) == {"url": "https://x/a.png"}
    assert jsonable(sluice.File("icon.png")) == {"path": os.path.abspath("icon.png")}
    with pytest.raises(TypeError, match="made by torch.device\\(\\), and torch is neither in the folder deployed"):
        jsonable(_StandIn("torch.device()"))
    with pytest.raises(TypeError, match=r"a set \(\{1\}\), which the inspector cannot read"):
        jsonable({1})


def test_a_stand_in_for_a_missing_package_accepts_any_use_at_a_modules_top_level():
    from sluice._evaluate import _StandIn

    torch = _StandIn("torch")
    assert repr(torch.nn.Module) == "<stand-in for torch.nn.Module>"
    assert repr(torch.device("cuda")) == "<stand-in for torch.device()>"
    assert repr(torch.hub["x"]) == "<stand-in for torch.hub[]>"
    assert list(torch.cuda) == []

    def decorated():
        return 1

    assert torch.no_grad()(decorated) is decorated and torch.jit.script(decorated) is decorated  # used as decorators

    class Net(torch.nn.Module):
        pass

    assert Net.__mro__[1:] == (object,)
    with pytest.raises(AttributeError):
        torch.__wrapped__
