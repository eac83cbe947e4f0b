/**
 * The deploy-time inspector, `python3 -m sluice._inspect DIR` (python/sluice/_inspect.py):
 * the contract between function authors' Python and the service. Each case writes a small
 * project to a temp dir and runs the real interpreter on it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionMetadataSchema } from '../../shared/domain/functionMetadata.js';
import { py } from '../support/python.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pythonDir = join(repoRoot, 'python');
const python = process.env.SLUICE_PYTHON ?? 'python3';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface InputMeta {
  name: string;
  type: string;
  description: string;
  is_optional: boolean;
  default?: unknown;
}

interface Metadata {
  name: string;
  entrypoint: { file: string; symbol: string; kind: 'function' | 'class'; generator: boolean };
  gpu: { machine_type: string; split: number } | null;
  environment_variables: { name: string; description: string; default: string }[];
  inputs: InputMeta[];
  outputs: { name: string; type: string; description: string }[];
  function_dependencies: string[];
  [field: string]: unknown;
}

let scratch = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sluice-inspector-'));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The evaluator a spec gives the inspector: the interpreter itself (sluice deploy gives it the sandbox's). */
const EVALUATOR = ['--evaluator', JSON.stringify([python, '-m', 'sluice._evaluate'])];

function runInspector(dir: string, extra: string[] = []): Promise<Run> {
  return new Promise((done, fail) => {
    execFile(
      python,
      ['-m', 'sluice._inspect', dir, ...extra],
      { env: { ...process.env, PYTHONPATH: pythonDir, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          fail(error);
          return;
        }
        done({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** Writes the files (paths relative to a fresh project dir) and inspects that dir. */
async function inspectFiles(files: Record<string, string | Buffer>, extra: string[] = []): Promise<Run> {
  const dir = await mkdtemp(join(scratch, 'project-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return runInspector(dir, extra);
}

interface Notes {
  warnings: string[];
  evaluated: string[];
}

/** Expects success; every function must also satisfy the service's own metadata schema. */
function functionsOf(run: Run, expectedNotes: Notes = { warnings: [], evaluated: [] }): Metadata[] {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const doc = JSON.parse(run.stdout) as { functions: Metadata[] } & Notes;
  expect(Object.keys(doc)).toEqual(['functions', 'warnings', 'evaluated']);
  expect({ warnings: doc.warnings, evaluated: doc.evaluated }).toEqual(expectedNotes);
  for (const fn of doc.functions) functionMetadataSchema.parse(fn);
  return doc.functions;
}

async function inspectOne(source: string): Promise<Metadata> {
  const functions = functionsOf(await inspectFiles({ 'main.py': source }));
  expect(functions).toHaveLength(1);
  return functions[0]!;
}

/** Expects exit 2 with nothing on stdout but `{"errors": [...]}`. */
function errorsOf(run: Run): string[] {
  expect(run.code).toBe(2);
  const doc = JSON.parse(run.stdout) as { errors: string[] };
  expect(Object.keys(doc)).toEqual(['errors', 'warnings', 'evaluated']);
  expect(doc.errors.length).toBeGreaterThan(0);
  return doc.errors;
}

async function inspectErrors(files: Record<string, string>): Promise<string[]> {
  return errorsOf(await inspectFiles(files));
}

// Each case is one interpreter start, most of its cost; they are independent, so run them side by side.
describe.concurrent('python inspector', () => {
  it('reads a plain function: every field, its inputs with defaults, and its output', async () => {
    const fn = await inspectOne(py`
      import sluice

      @sluice.function(name="echo")
      def echo(text: str, times: int = 2, sep: str = ", ", scale: float = -1.5, flags: list = (1, 2)) -> str:
          return sep.join([text] * times)
    `);
    expect(fn).toEqual({
      name: 'echo',
      entrypoint: { file: 'main.py', symbol: 'echo', kind: 'function', generator: false },
      gpu: null,
      python_version: null,
      python_packages: [],
      system_packages: [],
      cuda_version: null,
      run_commands: [],
      environment_variables: [],
      minimum_replicas: 0,
      maximum_replicas: null,
      restart_on_error: true,
      timeout: null,
      retries: 0,
      title: null,
      description: null,
      tags: null,
      readme: null,
      code_url: null,
      cover_image_url: null,
      inputs: [
        { name: 'text', type: 'str', description: '', is_optional: false },
        { name: 'times', type: 'int', description: '', is_optional: true, default: 2 },
        { name: 'sep', type: 'str', description: '', is_optional: true, default: ', ' },
        { name: 'scale', type: 'float', description: '', is_optional: true, default: -1.5 },
        { name: 'flags', type: 'list', description: '', is_optional: true, default: [1, 2] },
      ],
      outputs: [{ name: '', type: 'str', description: '' }],
      function_dependencies: [],
    });
  });

  it('reads every decorator option', async () => {
    const fn = await inspectOne(py`
      import sluice

      @sluice.function(
          name="full.fn-1",
          python_version="3.11",
          python_packages=["numpy==2.0", "pillow"],
          system_packages=["ffmpeg", "libgl1"],
          cuda_version="12.1",
          minimum_replicas=1,
          maximum_replicas=3,
          restart_on_error=False,
          timeout=90,
          title="Full",
          description="Every option",
          tags=["a", "b"],
          readme="# Full",
          code_url="https://example.com/code",
          cover_image_url="https://example.com/cover.png",
      )
      def full() -> None:
          pass
    `);
    expect(fn).toMatchObject({
      name: 'full.fn-1',
      python_version: '3.11',
      python_packages: ['numpy==2.0', 'pillow'],
      system_packages: ['ffmpeg', 'libgl1'],
      cuda_version: '12.1',
      minimum_replicas: 1,
      maximum_replicas: 3,
      restart_on_error: false,
      timeout: 90,
      title: 'Full',
      description: 'Every option',
      tags: ['a', 'b'],
      readme: '# Full',
      code_url: 'https://example.com/code',
      cover_image_url: 'https://example.com/cover.png',
      inputs: [],
      outputs: [],
    });
  });

  it('reads a class: inputs from __predict__ without self, __setup__ ignored', async () => {
    const fn = await inspectOne(py`
      import sluice

      @sluice.function(name="model")
      class Model:
          def __setup__(self):
              self.ready = True

          def helper(self, unused: int) -> int:
              return unused

          def __predict__(self, image: sluice.File, threshold: float = 0.5) -> dict:
              return {"ok": self.ready}
    `);
    expect(fn.entrypoint).toEqual({ file: 'main.py', symbol: 'Model', kind: 'class', generator: false });
    expect(fn.inputs).toEqual([
      { name: 'image', type: 'sieve.File', description: '', is_optional: false },
      { name: 'threshold', type: 'float', description: '', is_optional: true, default: 0.5 },
    ]);
    expect(fn.outputs).toEqual([{ name: '', type: 'dict', description: '' }]);
  });

  it('marks generators as streaming and takes the output type from Iterator[X]', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
          from typing import Generator, Iterator
          import sluice

          @sluice.function(name="annotated")
          def annotated(text: str) -> Iterator[str]:
              for word in text.split():
                  yield word

          @sluice.function(name="generator-type")
          def generator_type(n: int) -> Generator[int, None, None]:
              yield from range(n)

          @sluice.function(name="bare")
          def bare(n: int):
              yield n

          @sluice.function(name="returns-iterator")
          def returns_iterator(n: int) -> Iterator[float]:
              return iter([1.0] * n)

          @sluice.function(name="nested-yield")
          def nested_yield(n: int) -> int:
              def inner():
                  yield n
              return n

          @sluice.function(name="streaming-class")
          class Streaming:
              def __predict__(self, text: str) -> Iterator[sluice.File]:
                  yield sluice.File(path=text)
        `,
      }),
    );
    const summary = functions.map((f) => [f.name, f.entrypoint.generator, f.outputs.map((o) => o.type)]);
    expect(summary).toEqual([
      ['annotated', true, ['str']],
      ['generator-type', true, ['int']],
      ['bare', true, ['any']],
      ['returns-iterator', true, ['float']],
      ['nested-yield', false, ['int']],
      ['streaming-class', true, ['sieve.File']],
    ]);
  });

  it('reads the gpu machine type and split, also through from-imports', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
          import sluice
          from sluice.gpu import A10020GB

          @sluice.function(name="t4", gpu=sluice.gpu.T4(split=2))
          def t4(): pass

          @sluice.function(name="l4", gpu=sluice.gpu.L4())
          def l4(): pass

          @sluice.function(name="a100", gpu=sluice.gpu.A100(split=8))
          def a100(): pass

          @sluice.function(name="a100-20gb", gpu=A10020GB(3))
          def a100_20gb(): pass

          @sluice.function(name="v100", gpu=sluice.gpu.V100(split=1))
          def v100(): pass

          @sluice.function(name="cpu", gpu=None)
          def cpu(): pass
        `,
      }),
    );
    expect(functions.map((f) => [f.name, f.gpu])).toEqual([
      ['t4', { machine_type: 't4', split: 2 }],
      ['l4', { machine_type: 'l4', split: 1 }],
      ['a100', { machine_type: 'a100', split: 8 }],
      ['a100-20gb', { machine_type: 'a100-20gb', split: 3 }],
      ['v100', { machine_type: 'v100', split: 1 }],
      ['cpu', null],
    ]);
  });

  it('reads environment variables, filling the description; one without a default is required (null), as in Sieve', async () => {
    const fn = await inspectOne(py`
      import sluice

      @sluice.function(
          name="env",
          environment_variables=[
              sluice.Env(name="GREETING", description="how to greet", default="hi"),
              sluice.Env("API_TOKEN"),
              sluice.Env("MODE", "which mode"),
          ],
      )
      def env(): pass
    `);
    expect(fn.environment_variables).toEqual([
      { name: 'GREETING', description: 'how to greet', default: 'hi' },
      { name: 'API_TOKEN', description: '', default: null },
      { name: 'MODE', description: 'which mode', default: null },
    ]);
  });

  it('makes Optional[X] and X | None inputs optional with type X', async () => {
    const fn = await inspectOne(py`
      from typing import Optional, Union
      import sluice

      @sluice.function(name="optional")
      def optional(a: Optional[int], b: str | None, c: "Optional[float]" = None, d: Union[None, bool] = True, e: int | str | None = None):
          return a
    `);
    expect(fn.inputs).toEqual([
      { name: 'a', type: 'int', description: '', is_optional: true },
      { name: 'b', type: 'str', description: '', is_optional: true },
      { name: 'c', type: 'float', description: '', is_optional: true, default: null },
      { name: 'd', type: 'bool', description: '', is_optional: true, default: true },
      { name: 'e', type: 'any', description: '', is_optional: true, default: null },
    ]);
  });

  it('maps annotations to the service type names, and anything unknown to "any"', async () => {
    const fn = await inspectOne(py`
      from typing import Dict, List
      import numpy as np
      import sluice
      from sluice import File

      @sluice.function(name="types")
      def types(a: List[int], b: dict[str, int], c: Dict, d: list, e: File, f: "sluice.File", g: np.ndarray, h, i: bool = False, j=object()):
          return a
    `);
    expect(fn.inputs.map((i) => [i.name, i.type, i.is_optional])).toEqual([
      ['a', 'list', false],
      ['b', 'dict', false],
      ['c', 'dict', false],
      ['d', 'list', false],
      ['e', 'sieve.File', false],
      ['f', 'sieve.File', false],
      ['g', 'any', false],
      ['h', 'any', false],
      ['i', 'bool', true],
      ['j', 'any', true],
    ]);
    // A default that is not a literal still makes the input optional, but is not recorded.
    expect(fn.inputs[9]).not.toHaveProperty('default');
    expect(fn.outputs).toEqual([{ name: '', type: 'any', description: '' }]);
  });

  it('takes input and output descriptions from :param: and :return: in the docstring', async () => {
    const fn = await inspectOne(py`
      import sluice

      @sluice.function(name="documented")
      def documented(text: str) -> str:
          """Shout.

          :param text: what to shout
          :return: the text in capitals
          """
          return text.upper()
    `);
    expect(fn.inputs[0]?.description).toBe('what to shout');
    expect(fn.outputs[0]?.description).toBe('the text in capitals');
  });

  it('collects function_dependencies from sluice.function.get calls, deduplicated in order', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
          import sluice

          unrelated = sluice.function.get("acme/module-level")

          @sluice.function(name="workflow")
          def workflow(url: str) -> str:
              first = sluice.function.get("acme/download")
              second = sluice.function.get("acme/transcribe")
              again = sluice.function.get("acme/download")
              dynamic = sluice.function.get(url)
              return second.run(audio=first.run(url=url))

          @sluice.function(name="class-workflow")
          class ClassWorkflow:
              def __setup__(self):
                  self.model = sluice.function.get("acme/model")

              def __predict__(self, x: int) -> int:
                  return self.model.run(x=x)
        `,
        'other.py': py`
          from sluice import function

          @function(name="from-import")
          def from_import() -> None:
              function.get("acme/other")
        `,
      }),
    );
    expect(functions.map((f) => [f.name, f.function_dependencies])).toEqual([
      ['workflow', ['acme/download', 'acme/transcribe']],
      ['class-workflow', ['acme/model']],
      ['from-import', ['acme/other']],
    ]);
  });

  it('counts a sieve.function.get at the top level of the module for each function that uses it, also through a helper', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
          import sieve

          transcriber = sieve.function.get("acme/transcribe")
          models: dict = {"small": sieve.function.get("acme/small"), "large": sieve.function.get("acme/large")}
          unused = sieve.function.get("acme/unused")

          def translate(text):
              return sieve.function.get("acme/translate").run(text)

          def pipeline(audio):
              return translate(transcriber.run(audio))

          @sieve.function(name="direct")
          def direct(audio: sieve.File) -> str:
              return transcriber.push(audio).result()

          @sieve.function(name="through-helpers")
          def through_helpers(audio: sieve.File, size: str) -> str:
              models[size].run(audio)
              return pipeline(audio)

          @sieve.Model(name="none")
          class NoCalls:
              def __predict__(self, text: str) -> str:
                  return text
        `,
      }),
    );
    expect(functions.map((f) => [f.name, f.function_dependencies])).toEqual([
      ['direct', ['acme/transcribe']],
      ['through-helpers', ['acme/small', 'acme/large', 'acme/translate', 'acme/transcribe']],
      ['none', []],
    ]);
  });

  it('recognises @function from "from sluice import function" and an aliased "import sluice as s"', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'a.py': py`
          from sluice import function, Env

          @function(name="from-import", environment_variables=[Env("X")])
          def a(x: int) -> int:
              return x
        `,
        'b.py': py`
          import sluice as s

          @s.function(name="aliased", gpu=s.gpu.T4(split=4))
          def b(f: s.File) -> s.File:
              return f
        `,
        'c.py': py`
          import functools

          @functools.lru_cache()
          def not_a_sluice_function(x: int) -> int:
              return x
        `,
      }),
    );
    expect(functions.map((f) => [f.name, f.entrypoint.file, f.entrypoint.symbol])).toEqual([
      ['from-import', 'a.py', 'a'],
      ['aliased', 'b.py', 'b'],
    ]);
    expect(functions[1]?.gpu).toEqual({ machine_type: 't4', split: 4 });
    expect(functions[1]?.inputs[0]?.type).toBe('sieve.File');
  });

  it("does not import the user's code", async () => {
    const fn = await inspectOne(py`
      import numpy_that_does_not_exist
      import sluice

      print("this would corrupt the inspector's stdout")
      raise SystemExit(7)

      @sluice.function(name="heavy", python_packages=["numpy_that_does_not_exist"])
      def heavy(x: int) -> int:
          return numpy_that_does_not_exist.square(x)
    `);
    expect(fn.name).toBe('heavy');
  });

  it('walks subfolders with posix paths and skips hidden folders, __pycache__, venvs and node_modules', async () => {
    const broken = 'def broken(:\n';
    const functions = functionsOf(
      await inspectFiles({
        'pkg/sub/model.py': py`
          import sluice

          @sluice.function(name="deep")
          def deep(): pass
        `,
        'notes.txt': broken,
        '.hidden/x.py': broken,
        '__pycache__/x.py': broken,
        'venv/lib/x.py': broken,
        '.venv/lib/x.py': broken,
        'node_modules/pkg/x.py': broken,
      }),
    );
    expect(functions.map((f) => f.entrypoint.file)).toEqual(['pkg/sub/model.py']);
  });

  it('reads a Sieve function file unchanged: import sieve, @sieve.Model, sieve.gpu, run_commands, sieve.Metadata with the README beside it', async () => {
    const [fn] = functionsOf(
      await inspectFiles({
        'README.md': '# Shout\n\nUpper-cases text.\n',
        'main.py': py`
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
            run_commands=["echo one", "mkdir -p $VIRTUAL_ENV/data"],
            environment_variables=[sieve.Env(name="TOKEN", description="a token")],
            metadata=metadata,
        )
        class Shout:
            def __setup__(self):
                pass

            def __predict__(self, text: str, picture: sieve.Image, config: sieve.Struct) -> sieve.File:
                return picture
      `,
      }),
    );
    expect(fn).toMatchObject({
      name: 'shout',
      entrypoint: { file: 'main.py', symbol: 'Shout', kind: 'class', generator: false },
      gpu: { machine_type: 'a100-20gb', split: 2 },
      python_packages: ['six'],
      run_commands: ['echo one', 'mkdir -p $VIRTUAL_ENV/data'],
      environment_variables: [{ name: 'TOKEN', description: 'a token', default: null }],
      title: 'Shout',
      description: 'Upper-cases text',
      code_url: 'https://example.com/shout',
      cover_image_url: 'https://example.com/shout.png',
      tags: ['Text'],
      readme: '# Shout\n\nUpper-cases text.\n',
    });
    expect(fn!.inputs.map((i) => [i.name, i.type])).toEqual([
      ['text', 'str'],
      ['picture', 'sieve.File'],
      ['config', 'dict'],
    ]);
    expect(fn!.outputs.map((o) => o.type)).toEqual(['sieve.File']);
  });

  it('reads sieve imports in every spelling, and metadata given inline, with a README from a subfolder and a local cover image', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'docs/README.md': 'Read me.',
        'logo.png': 'PNG',
        'a.py':
          'from sieve import function, Metadata, File\n\n@function(name="a", metadata=Metadata(readme=open("docs/README.md").read(), image=File(path="logo.png")))\ndef a(f: File) -> File:\n    return f\n',
        'b.py':
          'import sieve as sv\nfrom pathlib import Path\n\n@sv.function(name="b", metadata=sv.Metadata(readme=Path("docs/README.md").read_text()))\ndef b() -> None:\n    sv.function.get("acme/child").run(1)\n',
      }),
    );
    const [a, b] = functions;
    expect(a).toMatchObject({ name: 'a', readme: 'Read me.', cover_image_url: `data:image/png;base64,${Buffer.from('PNG').toString('base64')}` });
    expect(a!.inputs[0]!.type).toBe('sieve.File');
    expect(b).toMatchObject({ name: 'b', readme: 'Read me.', function_dependencies: ['acme/child'] });
  });

  it('inspects the examples cleanly', async () => {
    const functions = functionsOf(await runInspector(join(repoRoot, 'examples')));
    const byName = new Map(functions.map((f) => [f.name, f]));
    expect([...byName.keys()].sort()).toEqual(['audio-loudness', 'digits', 'hello', 'image-thumbnail', 'stream-words', 'video-thumbnails']);

    const hello = byName.get('hello')!;
    expect(hello.entrypoint).toEqual({ file: 'hello/main.py', symbol: 'hello', kind: 'function', generator: false });
    expect(hello.inputs.map((i) => [i.name, i.type, i.is_optional])).toEqual([
      ['name', 'str', false],
      ['excited', 'bool', true],
    ]);
    expect(hello.outputs.map((o) => o.type)).toEqual(['str']);
    expect(hello.python_packages).toEqual([]);
    expect(hello.title).toEqual(expect.any(String));
    expect(hello.readme).toEqual(expect.any(String));

    const words = byName.get('stream-words')!;
    expect(words.entrypoint).toMatchObject({ file: 'stream-words/main.py', generator: true });
    expect(words.inputs.map((i) => [i.name, i.type])).toEqual([['text', 'str']]);
    expect(words.outputs.map((o) => o.type)).toEqual(['str']);

    // The workloads (test/e2e/workloads.test.ts runs them): File in, and the packages they install.
    const signature = (name: string) => {
      const f = byName.get(name)!;
      return [f.python_packages, f.entrypoint.generator, f.inputs.map((i) => `${i.name}: ${i.type}`), f.outputs.map((o) => o.type)];
    };
    expect(signature('video-thumbnails')).toEqual([['av', 'pillow'], true, ['video: sieve.File', 'count: int', 'width: int'], ['sieve.File']]);
    expect(signature('audio-loudness')).toEqual([['numpy', 'soundfile'], false, ['audio: sieve.File', 'sample_rate: int'], ['dict']]);
    expect(signature('image-thumbnail')).toEqual([['pillow'], false, ['image: sieve.File', 'size: int', 'blur: float', 'greyscale: bool'], ['sieve.File']]);
    expect(signature('digits')).toEqual([['scikit-learn'], false, ['pixels: list'], ['dict']]);

    // Each example folder is what `sluice deploy examples/<name>` inspects.
    for (const folder of ['hello', 'stream-words', 'video', 'audio', 'image', 'digits']) {
      expect(functionsOf(await runInspector(join(repoRoot, 'examples', folder)))).toHaveLength(1);
    }
  });
});

describe.concurrent('python inspector errors (exit 2, {"errors": [...]}, each naming the file:line and field)', () => {
  const decorated = (args: string, body = 'def f():\n    pass\n') => `import sluice\n\n@sluice.function(${args})\n${body}`;

  it.each([
    ['gpu split out of range', decorated('name="x", gpu=sluice.gpu.T4(split=9)'), 'main.py:3: gpu.split must be between 1 and 8 (got 9)'],
    ['gpu split zero', decorated('name="x", gpu=sluice.gpu.L4(split=0)'), 'main.py:3: gpu.split must be between 1 and 8 (got 0)'],
    ['unknown GPU', decorated('name="x", gpu=sluice.gpu.H100()'), 'main.py:3: gpu: sluice.gpu.H100 is not a GPU this service has a machine type for'],
    ['a GPU name this service has none of', decorated('name="x", gpu="a100-80gb"'), 'main.py:3: gpu must be None or one of sluice.gpu.T4(split=N)'],
    [
      'machine_type with a gpu= of its own',
      decorated('name="x", gpu=sluice.gpu.L4(), machine_type="a100"'),
      "main.py:3: machine_type is Sieve's older spelling of gpu=",
    ],
    ['iterator_input not a boolean', decorated('name="x", iterator_input="yes"'), "main.py:3: iterator_input must be True or False (got 'yes')"],
    ['missing name', decorated('gpu=None'), 'main.py:3: name is required'],
    ['decorator without a call', 'import sluice\n\n@sluice.function\ndef f():\n    pass\n', 'main.py:3: name is required'],
    ['invalid name', decorated('name="has space"'), 'main.py:3: name "has space" is not valid'],
    [
      'name computed, with no evaluator to run the module',
      decorated('name=NAME'),
      'main.py:3: name is computed (NAME): write it as a literal value (this inspector runs no code)',
    ],
    ['positional argument', decorated('"x"'), 'main.py:3: sluice.function takes keyword arguments only'],
    ['unknown field', decorated('name="x", gpus=1'), 'main.py:3: unknown field "gpus"'],
    [
      'python_packages as a string',
      'import sluice\n\n@sluice.function(\n    name="x",\n    python_packages="numpy",\n)\ndef f():\n    pass\n',
      'main.py:5: python_packages must be a list of strings',
    ],
    [
      'system package that is not a Debian name',
      decorated('name="x", system_packages=["FFmpeg"]'),
      'main.py:3: system_packages: "FFmpeg" is not a Debian package name',
    ],
    ['python_version as a number', decorated('name="x", python_version=3.11'), 'main.py:3: python_version must be a string like "3.11" (got 3.11)'],
    ['python_version in another form', decorated('name="x", python_version="python3"'), 'main.py:3: python_version must be a string like "3.11"'],
    ['negative minimum_replicas', decorated('name="x", minimum_replicas=-1'), 'main.py:3: minimum_replicas must be an integer between 0 and 64 (got -1)'],
    [
      'maximum below minimum',
      decorated('name="x", minimum_replicas=3, maximum_replicas=2'),
      'main.py:3: maximum_replicas (2) must be at least minimum_replicas (3)',
    ],
    ['restart_on_error not a boolean', decorated('name="x", restart_on_error="yes"'), "main.py:3: restart_on_error must be True or False (got 'yes')"],
    ['timeout of zero seconds', decorated('name="x", timeout=0'), 'main.py:3: timeout must be None or whole seconds between 1 and 86400 (got 0)'],
    ['timeout as a float', decorated('name="x", timeout=1.5'), 'main.py:3: timeout must be None or whole seconds between 1 and 86400 (got 1.5)'],
    ['title not a string', decorated('name="x", title=3'), 'main.py:3: title must be a string or None (got 3)'],
    ['tags not a list', decorated('name="x", tags="a"'), 'main.py:3: tags must be a list of strings or None'],
    [
      'env name not an identifier',
      decorated('name="x", environment_variables=[sluice.Env(name="1ABC")]'),
      'main.py:3: environment_variables[0].name must be a valid identifier',
    ],
    [
      'env default a list',
      decorated('name="x", environment_variables=[sluice.Env(name="A", default=[1])]'),
      'main.py:3: environment_variables[0].default must be a string, a number, a bool or None (got [1])',
    ],
    [
      'env declared twice',
      decorated('name="x", environment_variables=[sluice.Env("A"), sluice.Env("A")]'),
      'main.py:3: environment_variables[1].name "A" is declared twice',
    ],
    ['env given as a dict', decorated('name="x", environment_variables=[{"name": "A"}]'), 'main.py:3: environment_variables[0] must be sluice.Env('],
    ['class without __predict__', decorated('name="x"', 'class F:\n    def __setup__(self):\n        pass\n'), 'main.py:4: class F must define __predict__'],
    ['*args input', decorated('name="x"', 'def f(*args):\n    pass\n'), 'main.py:4: f: *args cannot be an input'],
    [
      'nested function',
      'import sluice\n\ndef outer():\n    @sluice.function(name="x")\n    def f():\n        pass\n',
      'main.py:4: @sluice.function must decorate a function or class at the top level',
    ],
    [
      'bad dependency name',
      decorated('name="x"', 'def f():\n    sluice.function.get("no-owner")\n'),
      'main.py:5: sluice.function.get("no-owner"): the name must look like "owner/name"',
    ],
    ['run_commands as a string', decorated('name="x", run_commands="make"'), 'main.py:3: run_commands must be a list of strings'],
    ['an empty run command', decorated('name="x", run_commands=["echo", " "]'), "main.py:3: run_commands: ' ' is not a shell command"],
    ['metadata that is not sieve.Metadata', decorated('name="x", metadata={"title": "T"}'), 'main.py:3: metadata must be sieve.Metadata(...)'],
    [
      'a metadata field given twice',
      decorated('name="x", title="A", metadata=sluice.Metadata(title="B")'),
      'main.py:3: title is given twice: as an argument and in metadata',
    ],
    [
      'a README outside the folder',
      decorated('name="x", metadata=sluice.Metadata(readme=open("../secret").read())'),
      "main.py:3: ../secret is outside the function's folder",
    ],
    [
      'a README that is missing',
      decorated('name="x", metadata=sluice.Metadata(readme=open("README.md").read())'),
      'main.py:3: metadata.readme: cannot read README.md',
    ],
    [
      'an unknown Sieve GPU',
      'import sieve\n\n@sieve.function(name="x", gpu=sieve.gpu.H100())\ndef f():\n    pass\n',
      'main.py:3: gpu: sluice.gpu.H100 is not a GPU',
    ],
  ])('%s', async (_case, source, expected) => {
    const errors = await inspectErrors({ 'main.py': source });
    expect(errors).toEqual([expect.stringContaining(expected)]);
    expect(errors[0]!.startsWith(expected.slice(0, expected.indexOf(': ') + 2))).toBe(true);
  });

  it('reports a syntax error with its file and line', async () => {
    const errors = await inspectErrors({ 'ok.py': decorated('name="ok"'), 'sub/main.py': 'import sluice\n\n\ndef f(:\n    pass\n' });
    expect(errors).toEqual([expect.stringMatching(/^sub\/main\.py:4: syntax error: /)]);
  });

  it('rejects two functions with the same name, naming both places', async () => {
    const errors = await inspectErrors({ 'a.py': decorated('name="echo"'), 'b.py': decorated('name="echo"') });
    expect(errors).toEqual(['b.py:3: two functions are named "echo": here and at a.py:3']);
  });

  it('rejects a directory with no decorated function', async () => {
    const errors = await inspectErrors({ 'main.py': 'def plain():\n    return 1\n' });
    expect(errors).toEqual([expect.stringContaining('no function decorated with @sluice.function')]);
  });

  it('reports every problem at once, each on the line of its field', async () => {
    const errors = await inspectErrors({
      'main.py': py`
        import sluice

        @sluice.function(
            name="x",
            gpu=sluice.gpu.T4(split=9),
            python_packages="numpy",
        )
        def f():
            pass

        @sluice.function(name="y", gpus=2)
        def g():
            pass
      `,
    });
    expect(errors).toEqual([
      'main.py:5: gpu.split must be between 1 and 8 (got 9)',
      "main.py:6: python_packages must be a list of strings (got 'numpy')",
      'main.py:11: unknown field "gpus" (did you mean "gpu"?)',
    ]);
  });

  it('answers in the same shape when the directory does not exist', async () => {
    const run = await runInspector(join(scratch, 'does-not-exist'));
    expect(errorsOf(run)).toEqual([expect.stringContaining('no such file or directory')]);
  });
});

describe.concurrent("python inspector: what Sieve's deploy accepts", () => {
  it('reads Sieve\'s 2023 arguments: gpu=True/False/"l4", machine_type, iterator_input and persist_output', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
        import sieve

        @sieve.function(name="plain-gpu", gpu=True, iterator_input=True, persist_output=True)
        def a(it: sieve.Image) -> sieve.Video:
            pass

        @sieve.function(name="no-gpu", gpu=False)
        def b():
            pass

        @sieve.Model(name="named", gpu="l4")
        class C:
            def __predict__(self):
                pass

        @sieve.function(name="typed", gpu=True, machine_type="a100-20gb")
        def d():
            pass

        @sieve.function(name="host-variant", gpu=True, machine_type="T4-highmem-8-ssd")
        def e():
            pass
      `,
      }),
    );
    expect(functions.map((f) => [f.name, f.gpu?.machine_type ?? null])).toEqual([
      ['plain-gpu', 't4'],
      ['no-gpu', null],
      ['named', 'l4'],
      ['typed', 'a100-20gb'],
      ['host-variant', 't4'],
    ]);
    expect(functions[0]).not.toHaveProperty('iterator_input');
    // iterator_input: the input takes the values a stream gave, as a list.
    expect(functions[0]!.inputs.map((i) => [i.name, i.type])).toEqual([['it', 'list']]);
  });

  it('takes python_version "3.12.3" as 3.12, an Env default as the string it prints, and an Env without a default as required (null)', async () => {
    const fn = await inspectOne(py`
      import sieve

      @sieve.function(
          name="x",
          python_version="3.12.3",
          environment_variables=[
              sieve.Env(name="FPS", default=30),
              sieve.Env(name="RATIO", default=0.8),
              sieve.Env(name="API_KEY", description="required"),
              sieve.Env(name="EMPTY", default=""),
          ],
      )
      def f():
          pass
    `);
    expect(fn.python_version).toBe('3.12');
    expect(fn.environment_variables).toEqual([
      { name: 'FPS', description: '', default: '30' },
      { name: 'RATIO', description: '', default: '0.8' },
      { name: 'API_KEY', description: 'required', default: null },
      { name: 'EMPTY', description: '', default: '' },
    ]);
  });

  it("warns of, and ignores, the arguments Sieve's pydantic models ignore: Env(is_secret=), Metadata(name=)", async () => {
    const [fn] = functionsOf(
      await inspectFiles({
        'main.py': py`
        import sieve

        @sieve.function(
            name="x",
            environment_variables=[sieve.Env(name="KEY", is_secret=True)],
            metadata=sieve.Metadata(name="Shown", description="d"),
        )
        def f():
            pass
      `,
      }),
      {
        warnings: [
          'main.py: environment_variables[0]: is_secret= is not an argument of sieve.Env here (name, description, default); ignored',
          'main.py: metadata: name= is not a field of sieve.Metadata (title, description, code_url, tags, readme, image); ignored',
        ],
        evaluated: [],
      },
    );
    expect(fn!.description).toBe('d');
    expect(fn!.title).toBeNull();
  });

  it('takes sieve.File("https://...") as the cover image URL, and leaves out a local cover image over 1 MB with a warning', async () => {
    const functions = functionsOf(
      await inspectFiles({
        'main.py': py`
        import sieve

        @sieve.function(name="by-url", metadata=sieve.Metadata(image=sieve.File("https://example.com/cover.gif")))
        def a():
            pass

        @sieve.function(name="too-large", metadata=sieve.Metadata(image=sieve.Image(path="big.png")))
        def b():
            pass
      `,
        'big.png': Buffer.alloc(1_200_000),
      }),
      {
        warnings: [expect.stringContaining('main.py: metadata.image: big.png is over 1 MB, so the function has no cover image')],
        evaluated: [],
      } as unknown as Notes,
    );
    expect(functions.map((f) => f.cover_image_url)).toEqual(['https://example.com/cover.gif', null]);
  });

  it('reads only the .py files --only names (the ones sluice deploy sends)', async () => {
    const functions = functionsOf(
      await inspectFiles(
        {
          'kept.py': 'import sieve\n\n@sieve.function(name="kept")\ndef f():\n    pass\n',
          'ignored.py': 'import sieve\n\n@sieve.function(name="ignored")\ndef g():\n    pass\n',
        },
        ['--only', JSON.stringify(['kept.py'])],
      ),
    );
    expect(functions.map((f) => f.name)).toEqual(['kept']);
  });

  it('deploys a 2023 sieve.workflow as a function, its sieve.reference calls as dependencies', async () => {
    const fn = await inspectOne(py`
      import sieve

      @sieve.workflow(name="pipeline")
      def pipeline(video: sieve.Video) -> dict:
          frames = sieve.reference("sieve/video-splitter")(video)
          return sieve.reference("sieve/face-detector")(frames)
    `);
    expect(fn.function_dependencies).toEqual(['sieve/video-splitter', 'sieve/face-detector']);
    expect(fn.inputs.map((i) => i.type)).toEqual(['sieve.File']);
  });
});

describe.concurrent('python inspector: arguments the module computes, learnt by running it (--evaluator)', () => {
  it('reads a README and a cover image found through os.path and __file__, and a metadata made by a helper of another module', async () => {
    const [fn] = functionsOf(
      await inspectFiles(
        {
          'main.py': py`
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

        @sieve.function(name="computed", metadata=metadata)
        def f():
            pass
      `,
          'helpers.py': 'def describe(what):\n    return "It " + what + "."\n',
          'README.md': '# Computed\n',
          'icon.png': Buffer.from('89504e47', 'hex'),
        },
        EVALUATOR,
      ),
      { warnings: [], evaluated: ['main.py'] },
    );
    expect(fn).toMatchObject({ name: 'computed', description: 'It shouts.', readme: '# Computed\n', cover_image_url: 'data:image/png;base64,iVBORw==' });
  });

  it('runs past top-level imports of packages not installed here, and their use at the top of the module', async () => {
    const fn = functionsOf(
      await inspectFiles(
        {
          'main.py': py`
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
      `,
        },
        EVALUATOR,
      ),
      { warnings: [], evaluated: ['main.py'] },
    )[0]!;
    expect(fn.name).toBe('net-runner');
    expect(fn.python_packages).toEqual(['torch']);
  });

  it('does not run the module\'s if __name__ == "__main__" block', async () => {
    const [fn] = functionsOf(
      await inspectFiles(
        {
          'main.py':
            'import sieve\n\nTITLE = "T"\n\n@sieve.function(name="x", title=TITLE)\ndef f():\n    pass\n\nif __name__ == "__main__":\n    raise SystemExit(3)\n',
        },
        EVALUATOR,
      ),
      { warnings: [], evaluated: ['main.py'] },
    );
    expect(fn!.title).toBe('T');
  });

  it("reports the failure of the module on the decorator's line, with its exception", async () => {
    const errors = errorsOf(
      await inspectFiles(
        {
          'main.py': 'import sieve\n\nREADME = open("MISSING.md").read()\n\n@sieve.function(name="x", readme=README)\ndef f():\n    pass\n',
        },
        EVALUATOR,
      ),
    );
    expect(errors).toEqual([
      expect.stringMatching(
        /^main\.py:5: running the module failed: FileNotFoundError: .*MISSING\.md.*; the decorator's arguments are computed by the module's code/,
      ),
    ]);
  });

  it('names the module a computed value comes from when it is not in the folder deployed', async () => {
    const errors = errorsOf(
      await inspectFiles(
        {
          'main.py': 'import sieve\nfrom utils.ci import function_name\n\n@sieve.function(name=function_name("a"))\ndef f():\n    pass\n',
        },
        EVALUATOR,
      ),
    );
    expect(errors).toEqual([
      'main.py:4: name is made by utils.ci.function_name(), and utils is neither in the folder deployed nor installed where sluice deploy runs: deploy the folder that holds it',
    ]);
  });
});
