/**
 * The replica runtime, `python3 -m sluice._runtime` (python/sluice/_runtime.py): the protocol
 * the agent speaks with one replica over fds 3 and 4. Each case starts a real interpreter on a
 * small function written to a temp dir (test/support/replicaHarness.ts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplica } from '../support/replicaHarness.js';
import type { Message, Replica, ReplicaOptions } from '../support/replicaHarness.js';
import { py } from '../support/python.js';

let scratch = '';
const replicas: Replica[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sluice-runtime-'));
});

afterAll(async () => {
  for (const replica of replicas) replica.kill();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function start(options: ReplicaOptions): Promise<Replica> {
  const replica = await startReplica(scratch, options);
  replicas.push(replica);
  return replica;
}

/** A replica of main.py's `symbol`, past hello and ready. */
async function ready(source: string, symbol: string, extra: Partial<ReplicaOptions> = {}): Promise<Replica> {
  const replica = await start({ files: { 'main.py': source }, symbol, ...extra });
  await replica.next('hello');
  await replica.next('ready');
  return replica;
}

let jobCounter = 0;

/** Sends a run and collects its messages up to done or error. */
async function runJob(
  replica: Replica,
  inputs: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ jobId: string; outputs: Message[]; end: Message }> {
  const jobId = `job-${++jobCounter}`;
  replica.send({ type: 'run', job_id: jobId, run_id: `run-${jobCounter}`, inputs, env });
  const end = await replica.until((m) => m.job_id === jobId && (m.type === 'done' || m.type === 'error'), `the end of ${jobId}`);
  const outputs = replica.received.filter((r) => r.message.type === 'output' && r.message.job_id === jobId);
  return { jobId, outputs: outputs.map((r) => r.message), end: end.message };
}

describe.concurrent('python runtime', () => {
  it('says hello with its pid, then ready once the code is imported', async () => {
    const replica = await start({
      files: {
        'main.py': py`
        import sluice

        @sluice.function(name="noop")
        def noop() -> None:
            pass
      `,
      },
      symbol: 'noop',
    });
    const hello = await replica.next('hello');
    expect(hello.message).toEqual({ type: 'hello', pid: replica.child.pid });
    await replica.next('ready');
    expect(replica.received.map((r) => r.message.type)).toEqual(['hello', 'ready']);
  });

  it('runs a class: __setup__ once, state kept across jobs', async () => {
    const replica = await ready(
      py`
      import sluice

      SETUPS = []

      @sluice.function(name="counter")
      class Counter:
          def __setup__(self):
              SETUPS.append(1)
              self.calls = 0

          def __predict__(self, step: int) -> list:
              self.calls += step
              return [len(SETUPS), self.calls]
    `,
      'Counter',
      { kind: 'class' },
    );
    const first = await runJob(replica, { step: 1 });
    const second = await runJob(replica, { step: 2 });
    expect(first.outputs.map((o) => o.value)).toEqual([[1, 1]]);
    expect(second.outputs.map((o) => o.value)).toEqual([[1, 3]]);
    expect(second.end).toEqual({ type: 'done', job_id: second.jobId, output_read: true });
  });

  it('sends a return value as output 0 then done; undeclared inputs are not passed', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="pair")
      def pair(a: int, b: int = 10):
          return (a, b)
    `,
      'pair',
    );
    const job = await runJob(replica, { a: 1, ignored: 'x' });
    expect(job.outputs).toEqual([{ type: 'output', job_id: job.jobId, index: 0, value: [1, 10] }]);
    expect(job.end).toEqual({ type: 'done', job_id: job.jobId, output_read: true });
  });

  it('sends a None return as a null output, but nothing for "-> None"', async () => {
    const replica = await start({
      files: {
        'main.py': py`
          import sluice

          @sluice.function(name="nothing")
          def nothing():
              return None

          @sluice.function(name="silent")
          def silent() -> None:
              return None
        `,
      },
      symbol: 'nothing',
    });
    await replica.next('ready');
    const job = await runJob(replica, {});
    expect(job.outputs.map((o) => o.value)).toEqual([null]);

    const silent = await start({ files: { 'main.py': await readFile(join(replica.dir, 'main.py'), 'utf8') }, symbol: 'silent' });
    await silent.next('ready');
    const none = await runJob(silent, {});
    expect(none.outputs).toEqual([]);
    expect(none.end.type).toBe('done');
  });

  it('streams a generator: each output is sent as it is yielded', async () => {
    const replica = await ready(
      py`
      import time
      import sluice

      @sluice.function(name="slow")
      def slow(n: int):
          for i in range(n):
              yield {"step": i}
              time.sleep(0.5)
    `,
      'slow',
    );
    const job = await runJob(replica, { n: 2 });
    expect(job.outputs.map((o) => [o.index, o.value])).toEqual([
      [0, { step: 0 }],
      [1, { step: 1 }],
    ]);
    const at = (m: Message): number => replica.received.find((r) => r.message === m)!.at;
    expect(at(job.end) - at(job.outputs[0]!)).toBeGreaterThanOrEqual(800);
    expect(at(job.end) - at(job.outputs[1]!)).toBeGreaterThanOrEqual(300);
  });

  it('runs async functions and streams async generators', async () => {
    const source = py`
      import asyncio
      import sluice

      @sluice.function(name="wait")
      async def wait(x: int) -> int:
          await asyncio.sleep(0.01)
          return x + 1

      @sluice.function(name="ticks")
      async def ticks(n: int):
          for i in range(n):
              await asyncio.sleep(0.01)
              yield i
    `;
    const plain = await ready(source, 'wait');
    expect((await runJob(plain, { x: 1 })).outputs.map((o) => o.value)).toEqual([2]);
    const stream = await ready(source, 'ticks');
    expect((await runJob(stream, { n: 3 })).outputs.map((o) => o.value)).toEqual([0, 1, 2]);
  });

  it('reports an exception as error: type, message and traceback; the replica keeps serving', async () => {
    const replica = await ready(
      py`
      import sluice

      def check(n):
          if n < 0:
              raise ValueError(f"n must not be negative (got {n})")
          return n

      @sluice.function(name="strict")
      def strict(n: int):
          return check(n)
    `,
      'strict',
    );
    const failed = await runJob(replica, { n: -7 });
    expect(failed.outputs).toEqual([]);
    expect(failed.end.type).toBe('error');
    const text = failed.end.error as string;
    expect(text.split('\n')[0]).toBe('ValueError: n must not be negative (got -7)');
    expect(text).toContain('Traceback (most recent call last)');
    expect(text).toMatch(/main\.py", line \d+, in strict/);
    expect(text).toMatch(/main\.py", line \d+, in check/);
    expect(text).not.toContain('_runtime.py');
    const next = await runJob(replica, { n: 3 });
    expect(next.outputs.map((o) => o.value)).toEqual([3]);
  });

  it('marks a sieve.FatalException as fatal, so the agent replaces the replica whatever restart_on_error says; any other error is not', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="picky")
      def picky(n: int) -> int:
          if n < 0:
              raise sieve.FatalException("n must not be negative")
          if n == 0:
              raise ValueError("zero")
          return n
    `,
      'picky',
    );
    const fatal = await runJob(replica, { n: -1 });
    expect(fatal.end).toMatchObject({ type: 'error', fatal: true });
    expect((fatal.end.error as string).split('\n')[0]).toBe('FatalException: n must not be negative');
    const plain = await runJob(replica, { n: 0 });
    expect(plain.end.type).toBe('error');
    expect(plain.end.fatal).toBeUndefined();
  });

  it('passes a dict input to a sieve.Struct parameter as the Struct, and sends a Struct output as its fields', async () => {
    const replica = await ready(
      py`
      import sieve

      class Box(sieve.Struct):
          width: int
          height: int = 1

      @sieve.function(name="grow")
      def grow(box: Box) -> sieve.Struct:
          return Box(width=box.width * 2, height=box.height * 2)
    `,
      'grow',
    );
    const job = await runJob(replica, { box: { width: 3 } });
    expect(job.end.type).toBe('done');
    expect(job.outputs.map((o) => o.value)).toEqual([{ width: 6, height: 2 }]);
  });

  it('sends positional arguments of a call as args, for the agent to name after the called inputs', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="caller")
      def caller() -> int:
          return sieve.function.get("acme/add").run(2, 3, scale=10)
    `,
      'caller',
    );
    replica.send({ type: 'run', job_id: 'job-args', run_id: 'run-args', inputs: {}, env: {} });
    const call = (await replica.next('call')).message;
    expect(call).toEqual({ type: 'call', call_id: call.call_id, function: 'acme/add', inputs: { scale: 10 }, args: [2, 3], wait: true });
    replica.send({ type: 'call_result', call_id: call.call_id, ok: true, job_id: 'child', outputs: [50] });
    expect((await replica.next('output')).message.value).toBe(50);
  });

  it('reports a failing __setup__ as setup_error and exits 1', async () => {
    const replica = await start({
      files: {
        'main.py': py`
        import sluice

        @sluice.function(name="broken")
        class Broken:
            def __setup__(self):
                raise RuntimeError("weights not found")

            def __predict__(self, x: int) -> int:
                return x
      `,
      },
      symbol: 'Broken',
      kind: 'class',
    });
    await replica.next('hello');
    const failure = await replica.next('setup_error');
    expect(failure.message.error).toMatch(/^RuntimeError: weights not found\n/);
    expect(failure.message.error).toContain('in __setup__');
    expect(await replica.exited()).toBe(1);
    expect(replica.received.map((r) => r.message.type)).toEqual(['hello', 'setup_error']);
  });

  it('reports an import error as setup_error', async () => {
    const replica = await start({
      files: { 'main.py': 'import sluice\nimport not_installed_anywhere\n' },
      symbol: 'f',
    });
    const failure = await replica.next('setup_error');
    expect(failure.message.error).toMatch(/^ModuleNotFoundError: No module named 'not_installed_anywhere'/);
    expect(await replica.exited()).toBe(1);
  });

  it('imports an entry file inside a package, with its relative imports', async () => {
    const replica = await start({
      files: {
        'pkg/__init__.py': '',
        'pkg/helpers.py': 'def double(x):\n    return 2 * x\n',
        'pkg/model.py': py`
          import sluice
          from .helpers import double

          @sluice.function(name="model")
          def model(x: int) -> int:
              return double(x)
        `,
      },
      entryFile: 'pkg/model.py',
      symbol: 'model',
    });
    await replica.next('ready');
    const job = await runJob(replica, { x: 21 });
    expect(job.outputs.map((o) => o.value)).toEqual([42]);
  });

  it('sets the job env and SLUICE_JOB_ID for the job and restores the environment after', async () => {
    const replica = await ready(
      py`
      import os
      import sluice

      @sluice.function(name="env")
      def env() -> dict:
          return {k: os.environ.get(k) for k in ("TOKEN", "PRESET", "SLUICE_JOB_ID")}
    `,
      'env',
      { env: { PRESET: 'outer' } },
    );
    const first = await runJob(replica, {}, { TOKEN: 'secret', PRESET: 'inner' });
    expect(first.outputs[0]!.value).toEqual({ TOKEN: 'secret', PRESET: 'inner', SLUICE_JOB_ID: first.jobId });
    const second = await runJob(replica, {});
    expect(second.outputs[0]!.value).toEqual({ TOKEN: null, PRESET: 'outer', SLUICE_JOB_ID: second.jobId });
  });

  it('runs as batch work (SCHED_BATCH), and so do the threads and processes the function starts: a woken replica never preempts the agent', async () => {
    const replica = await ready(
      py`
      import os
      import subprocess
      import sys
      import threading
      import sluice

      def policy_of_a_thread() -> int:
          seen = []
          thread = threading.Thread(target=lambda: seen.append(os.sched_getscheduler(0)))
          thread.start()
          thread.join()
          return seen[0]

      @sluice.function(name="policies")
      def policies() -> dict:
          child = subprocess.run([sys.executable, "-c", "import os; print(os.sched_getscheduler(0))"], capture_output=True, text=True)
          return {
              "batch": os.SCHED_BATCH,
              "job": os.sched_getscheduler(0),
              "thread": policy_of_a_thread(),
              "process": int(child.stdout),
          }
    `,
      'policies',
    );
    const { outputs } = await runJob(replica, {});
    const seen = outputs[0]!.value as Record<string, number>;
    expect(seen).toEqual({ batch: seen.batch, job: seen.batch, thread: seen.batch, process: seen.batch });
    expect(seen.batch).not.toBe(0); // SCHED_OTHER is 0: the test would pass vacuously on it
  });

  it("sleeps through the agent's reads of its messages: a job's done does not wake the thread that reads the protocol", async () => {
    // The kernel tells a socket's blocked readers when the peer has read what was written there,
    // as if it were input: without poll(), the agent paid a wake-up of that thread for every job.
    const replica = await ready(
      py`
      import os
      import threading
      import sluice

      @sluice.function(name="reader_sleeps")
      def reader_sleeps() -> int:
          me = threading.get_native_id()
          sleeps = 0
          for thread in os.listdir("/proc/self/task"):
              if int(thread) != me:
                  with open(f"/proc/self/task/{thread}/status") as status:
                      sleeps += next(int(line.split()[1]) for line in status if line.startswith("voluntary_ctxt_switches"))
          return sleeps
    `,
      'reader_sleeps',
    );
    const sleeps = async () => (await runJob(replica, {})).outputs[0]!.value as number;
    const before = await sleeps();
    for (let i = 0; i < 48; i++) await runJob(replica, {});
    // The agent read 49 dones meanwhile; the reader woke once a job before poll().
    expect((await sleeps()) - before).toBeLessThan(10);
  });

  it("keeps prints on stdout/stderr, off fd 3, and a job's lines arrive before its done", async () => {
    const replica = await ready(
      py`
      import sys
      import sluice

      print("importing")

      @sluice.function(name="chatty")
      def chatty(lines: int) -> str:
          for i in range(lines):
              print(f"line {i}")
          print("to stderr", file=sys.stderr)
          print("last line")
          return "ok"
    `,
      'chatty',
    );
    const job = await runJob(replica, { lines: 20000 });
    expect(job.end.type).toBe('done');
    const done = replica.received.find((r) => r.message === job.end)!;
    expect(replica.stdout.slice(0, done.stdoutLines)).toContain('last line');
    expect(replica.stdout[0]).toBe('importing');
    expect(replica.stdout).toHaveLength(20002);
    expect(replica.stderr).toContain('to stderr');
    expect(JSON.stringify(replica.received.map((r) => r.message))).not.toContain('line');
  });

  it('hands a File input the agent fetched to the function as its local path and URL', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="read")
      def read(doc: sluice.File, note: str = "") -> dict:
          with open(doc) as f:
              content = f.read()
          return {"path": doc.path, "content": content, "url": doc.url}
    `,
      'read',
    );
    const path = join(replica.dir, 'fetched.txt');
    await writeFile(path, 'pixels from the agent\n');
    const url = 'https://example.com/photo.txt';
    const job = await runJob(replica, { doc: { path, url } });
    expect(job.end.type).toBe('done');
    expect(job.outputs[0]!.value).toEqual({ path, content: 'pixels from the agent\n', url });
  });

  it('never downloads a File input itself: a URL the agent did not fetch fails the job, naming the input', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.end('should not be read');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const replica = await ready(
        py`
        import sluice
        from typing import Optional

        @sluice.function(name="read")
        def read(doc: Optional[sluice.File]) -> str:
            return "never"
      `,
        'read',
      );
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret.txt`;
      for (const doc of [{ url }, url, 'file:///etc/passwd', '/etc/passwd']) {
        const job = await runJob(replica, { doc });
        expect(job.end.type).toBe('error');
        expect(job.end.error).toMatch(/^InputError: input doc is a sluice.File the agent did not fetch/);
      }
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it('sends a File output as its absolute path and name', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="write")
      def write(text: str) -> sluice.File:
          with open("result.txt", "w") as f:
              f.write(text)
          return sluice.File("result.txt")
    `,
      'write',
    );
    const job = await runJob(replica, { text: 'hello file' });
    expect(job.outputs).toEqual([{ type: 'output', job_id: job.jobId, index: 0, file: join(replica.dir, 'result.txt'), name: 'result.txt' }]);
    expect(await readFile(job.outputs[0]!.file as string, 'utf8')).toBe('hello file');
  });

  it('sends Files nested in dicts, lists and tuples marked: by absolute path and name, or by URL for one known by URL only', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="write")
      def write(text: str) -> dict:
          with open("a.txt", "w") as f:
              f.write(text)
          return {"files": [sieve.File("a.txt"), (sieve.File(url="https://example.com/b.png"), 1)], "n": 2}
    `,
      'write',
    );
    const job = await runJob(replica, { text: 'nested' });
    expect(job.end.type).toBe('done');
    expect(job.outputs[0]!.value).toEqual({
      files: [{ _type: 'sieve.File', path: join(replica.dir, 'a.txt'), name: 'a.txt' }, [{ _type: 'sieve.File', url: 'https://example.com/b.png' }, 1]],
      n: 2,
    });
  });

  it('hands marked Files in a dict or list input, fetched by the agent, to the function as Files', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="read")
      def read(bundle: dict, items: list) -> list:
          files = [bundle["doc"], *items]
          return [[type(f).__name__, open(f.path).read(), f.url] for f in files]
    `,
      'read',
    );
    const path = join(replica.dir, 'fetched.txt');
    await writeFile(path, 'fetched');
    const marker = { _type: 'sieve.File', path, url: 'https://example.com/f.txt' };
    const job = await runJob(replica, { bundle: { doc: marker }, items: [marker] });
    expect(job.end.type).toBe('done');
    expect(job.outputs[0]!.value).toEqual([
      ['File', 'fetched', 'https://example.com/f.txt'],
      ['File', 'fetched', 'https://example.com/f.txt'],
    ]);
  });

  it('takes a File built from a URL, positional or keyword, for that URL, and a path for a path (as Sieve’s SDK does)', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="make")
      def make() -> list:
          made = [sieve.File("https://example.com/a.mp4"), sieve.File(url="https://example.com/b.mp4"), sieve.File("data:text/plain,hi"), sieve.File("local.txt")]
          return [[f.url, f._path] for f in made] + [open(made[2].path).read()]
    `,
      'make',
    );
    const job = await runJob(replica, {});
    expect(job.end.type).toBe('done');
    expect(job.outputs[0]!.value).toEqual([
      ['https://example.com/a.mp4', null],
      ['https://example.com/b.mp4', null],
      ['data:text/plain,hi', null],
      [null, 'local.txt'],
      'hi',
    ]);
  });

  it('fails the job when an output is not JSON, naming its type', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="bad")
      def bad():
          yield "fine"
          yield {1, 2}
          yield "never"
    `,
      'bad',
    );
    const job = await runJob(replica, {});
    expect(job.outputs.map((o) => o.value)).toEqual(['fine']);
    expect(job.end.type).toBe('error');
    expect(job.end.error).toMatch(/^OutputError: output 1 is not JSON-serialisable \(set\)/);
  });

  it('calls another function with run(): a call message, then the call_result output', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="caller")
      def caller(x: int) -> dict:
          child = sluice.function.get("acme/child")
          many = child.run(x=x, mode="many")
          try:
              child.run(x=-1)
          except sluice.RemoteError as e:
              failed = str(e)
          pushed = child.push(x=x)
          return {"one": child.run(x=x), "many": many, "failed": failed, "pushed": pushed.job_id}
    `,
      'caller',
    );
    const jobId = 'job-caller';
    replica.send({ type: 'run', job_id: jobId, run_id: 'run-caller', inputs: { x: 4 }, env: {} });

    const many = (await replica.next('call')).message;
    expect(many).toEqual({ type: 'call', call_id: many.call_id, function: 'acme/child', inputs: { x: 4, mode: 'many' }, wait: true });
    replica.send({ type: 'call_result', call_id: many.call_id, ok: true, job_id: 'child-1', outputs: [1, 2] });

    const failing = (await replica.next('call')).message;
    expect(failing.inputs).toEqual({ x: -1 });
    replica.send({ type: 'call_result', call_id: failing.call_id, ok: false, error: 'ValueError: x must be positive\n' });

    const pushed = (await replica.next('call')).message;
    expect(pushed.wait).toBe(false);
    replica.send({ type: 'call_result', call_id: pushed.call_id, ok: true, job_id: 'child-3', outputs: [] });

    const one = (await replica.next('call')).message;
    expect(one.wait).toBe(true);
    replica.send({ type: 'call_result', call_id: one.call_id, ok: true, job_id: 'child-4', outputs: [8] });

    const output = (await replica.next('output')).message;
    expect(output.value).toEqual({
      one: 8,
      many: [1, 2],
      failed: 'acme/child failed: ValueError: x must be positive\n',
      pushed: 'child-3',
    });
    expect((await replica.next('done')).message.job_id).toBe(jobId);
  });

  it('awaits pushed jobs through the agent: several in flight at once, results, status, streamed outputs, failures', async () => {
    const replica = await ready(
      py`
      import concurrent.futures
      import sieve

      @sieve.function(name="fan-out")
      def fan_out() -> dict:
          child = sieve.function.get("acme/child")
          jobs = [child.push(n) for n in (1, 2, 3)]
          concurrent.futures.wait(jobs)
          stream = child.push(4)
          failing = child.push(-1)
          try:
              failing.result()
          except sieve.RemoteError as e:
              failed = e.error
          return {"ids": [job.job_id for job in jobs], "results": [job.result() for job in jobs],
                  "status": stream.status, "streamed": list(stream.outputs), "failed": failed}
    `,
      'fan_out',
    );
    replica.send({ type: 'run', job_id: 'parent', run_id: 'run-parent', inputs: {}, env: {} });
    const answer = (message: Message, fields: Record<string, unknown>) =>
      replica.send({ type: 'call_result', call_id: message.call_id, ok: true, outputs: [], ...fields });
    for (const n of [1, 2, 3]) {
      const push = (await replica.next('call')).message;
      expect(push).toMatchObject({ function: 'acme/child', args: [n], wait: false });
      answer(push, { job_id: `child-${n}` });
    }
    // wait() asks for all three at once; the answers come back in another order.
    const awaits: Message[] = [];
    for (let n = 0; n < 3; n++) awaits.push((await replica.next('await')).message);
    expect(awaits.map((a) => [a.job_id, a.offset, a.until]).sort()).toEqual([
      ['child-1', 0, 'end'],
      ['child-2', 0, 'end'],
      ['child-3', 0, 'end'],
    ]);
    for (const awaited of [...awaits].reverse())
      answer(awaited, { job_id: awaited.job_id, status: 'finished', outputs: [Number(awaited.job_id.slice(-1)) * 10] });

    answer((await replica.next('call')).message, { job_id: 'stream' });
    answer((await replica.next('call')).message, { job_id: 'failing' });
    const failing = (await replica.next('await')).message;
    expect(failing).toMatchObject({ job_id: 'failing', until: 'end' });
    answer(failing, { job_id: 'failing', status: 'error', error: 'ValueError: n must be positive\n' });

    const status = (await replica.next('await')).message;
    expect(status).toMatchObject({ job_id: 'stream', until: 'now' });
    answer(status, { job_id: 'stream', status: 'processing' });
    const first = (await replica.next('await')).message;
    expect(first).toMatchObject({ job_id: 'stream', offset: 0, until: 'output' });
    answer(first, { job_id: 'stream', status: 'processing', outputs: ['a', 'b'] });
    const rest = (await replica.next('await')).message;
    expect(rest).toMatchObject({ job_id: 'stream', offset: 2, until: 'output' });
    answer(rest, { job_id: 'stream', status: 'finished', outputs: ['c'] });

    expect((await replica.next('output')).message.value).toEqual({
      ids: ['child-1', 'child-2', 'child-3'],
      results: [10, 20, 30],
      status: 'processing',
      streamed: ['a', 'b', 'c'],
      failed: 'ValueError: n must be positive\n',
    });
    expect((await replica.next('done')).message.job_id).toBe('parent');
  });

  it('raises RemoteError out of the job when an unhandled call fails', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="caller")
      def caller() -> int:
          return sluice.function.get("acme/child").run()
    `,
      'caller',
    );
    replica.send({ type: 'run', job_id: 'j', run_id: 'r', inputs: {}, env: {} });
    const call = (await replica.next('call')).message;
    replica.send({ type: 'call_result', call_id: call.call_id, ok: false, error: 'boom' });
    const error = (await replica.next('error')).message;
    expect(error.error).toMatch(/^RemoteError: acme\/child failed: boom\n/);
    expect(error.error).toMatch(/main\.py", line \d+, in caller/);
  });

  it('passes a File the function made to another function by its absolute path and name (positional, by name, nested in lists and dicts), a File with a URL by its URL', async () => {
    const replica = await ready(
      py`
      import os
      import sieve

      @sieve.function(name="caller")
      def caller() -> str:
          with open("made.wav", "wb") as f:
              f.write(b"RIFF")
          os.makedirs("sub", exist_ok=True)
          with open("sub/notes.txt", "w") as f:
              f.write("notes")
          return sieve.function.get("acme/child").run(
              sieve.Audio("made.wav"), [sieve.File(path="sub/notes.txt"), {"deep": sieve.Video(url="https://example.com/v.mp4")}],
              extra={"file": sieve.File(os.path.abspath("made.wav"))})
    `,
      'caller',
    );
    replica.send({ type: 'run', job_id: 'job-pass', run_id: 'run-pass', inputs: {}, env: {} });
    const call = (await replica.next('call')).message;
    const made = { _type: 'sieve.File', path: join(replica.dir, 'made.wav'), name: 'made.wav' };
    expect(call.args).toEqual([
      made,
      [
        { _type: 'sieve.File', path: join(replica.dir, 'sub', 'notes.txt'), name: 'notes.txt' },
        { deep: { _type: 'sieve.File', url: 'https://example.com/v.mp4' } },
      ],
    ]);
    expect(call.inputs).toEqual({ extra: { file: made } });
    replica.send({ type: 'call_result', call_id: call.call_id, ok: true, job_id: 'child', outputs: ['got it'], stream: false });
    expect((await replica.next('output')).message.value).toBe('got it');
  });

  it('refuses to pass a File whose path is not a file, with a TypeError naming it, sending no call', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="caller")
      def caller() -> str:
          try:
              sieve.function.get("acme/child").run(sieve.File("/no/such/file.wav"))
          except TypeError as error:
              return str(error)
    `,
      'caller',
    );
    const job = await runJob(replica, {});
    expect(job.outputs[0]!.value).toMatch(/a sluice\.File passed to another function names \/no\/such\/file\.wav, which is not a file/);
    expect(replica.received.some((r) => r.message.type === 'call')).toBe(false);
  });

  it('hands a streaming callee’s outputs as an iterator, read as they come, from run() and push().result(), even for one output; a callee that does not stream, its value, None for none', async () => {
    const replica = await ready(
      py`
      import sieve

      @sieve.function(name="reader")
      def reader() -> dict:
          words = sieve.function.get("acme/words")
          ran = words.run("a b")
          first = next(ran)
          one = words.push("c").result()
          quiet = sieve.function.get("acme/quiet").run()
          value = sieve.function.get("acme/quiet").push().result()
          return {"first": first, "rest": list(ran), "one_is_iterator": iter(one) is one, "one": list(one), "quiet": quiet, "value": value}
    `,
      'reader',
    );
    replica.send({ type: 'run', job_id: 'job-stream', run_id: 'run-stream', inputs: {}, env: {} });
    const answer = (message: Message, fields: Record<string, unknown>) =>
      replica.send({ type: 'call_result', call_id: message.call_id, ok: true, outputs: [], ...fields });
    // run() of a streaming function: the agent answers at once, and each next() asks for outputs past those seen.
    const ran = (await replica.next('call')).message;
    expect(ran).toMatchObject({ function: 'acme/words', args: ['a b'], wait: true });
    answer(ran, { job_id: 'words-1', stream: true });
    const firstAwait = (await replica.next('await')).message;
    expect(firstAwait).toMatchObject({ job_id: 'words-1', offset: 0, until: 'output' });
    answer(firstAwait, { job_id: 'words-1', status: 'processing', outputs: ['a'] });
    const pushed = (await replica.next('call')).message;
    expect(pushed).toMatchObject({ function: 'acme/words', wait: false });
    answer(pushed, { job_id: 'words-2', stream: true });
    const quiet = (await replica.next('call')).message;
    answer(quiet, { job_id: 'quiet-1', stream: false, outputs: [] });
    const value = (await replica.next('call')).message;
    answer(value, { job_id: 'quiet-2', stream: false });
    const valueAwait = (await replica.next('await')).message;
    expect(valueAwait).toMatchObject({ job_id: 'quiet-2', until: 'end' });
    answer(valueAwait, { job_id: 'quiet-2', status: 'finished', outputs: [{ k: 1 }] });
    const restAwait = (await replica.next('await')).message;
    expect(restAwait).toMatchObject({ job_id: 'words-1', offset: 1, until: 'output' });
    answer(restAwait, { job_id: 'words-1', status: 'finished', outputs: ['b'] });
    // push(...).result() of a streaming function: its outputs are asked for as it is read.
    const oneAwait = (await replica.next('await')).message;
    expect(oneAwait).toMatchObject({ job_id: 'words-2', offset: 0, until: 'output' });
    answer(oneAwait, { job_id: 'words-2', status: 'finished', outputs: ['c'] });
    expect((await replica.next('output')).message.value).toEqual({ first: 'a', rest: ['b'], one_is_iterator: true, one: ['c'], quiet: null, value: { k: 1 } });
  });

  it('exits 0 on shutdown', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="idle")
      def idle() -> None:
          pass
    `,
      'idle',
    );
    replica.send({ type: 'shutdown' });
    expect(await replica.exited()).toBe(0);
  });

  it('exits when the agent closes fd 3', async () => {
    const replica = await ready(
      py`
      import sluice

      @sluice.function(name="idle")
      def idle() -> None:
          pass
    `,
      'idle',
    );
    replica.protocol.end();
    expect(await replica.exited()).toBe(0);
  });
});
