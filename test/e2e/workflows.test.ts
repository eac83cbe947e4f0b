import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { py } from '../support/python.js';
import { runSdkProgram } from '../support/sdkProgram.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

const CHILD = `import sluice

@sluice.function(name="double")
def double(n: int) -> int:
    return n * 2
`;

const PARENT = `import sluice

@sluice.function(name="pipeline")
def pipeline(n: int) -> dict:
    doubled = sluice.function.get("local/double").run(n=n)
    queued = sluice.function.get("local/double").push(n=100)
    return {"doubled": doubled, "pushed": queued.job_id}
`;

const COUNT = `import time
import sluice

@sluice.function(name="count")
def count(n: int):
    for i in range(n):
        time.sleep(0.2)
        yield i
`;

// Sieve's habit: the functions it calls named once, at the module's top level.
const FAN_OUT = `import sluice

double = sluice.function.get("local/double")
count = sluice.function.get("local/count")

@sluice.function(name="fan-out")
def fan_out(n: int, stranger: str = "") -> dict:
    if stranger:  # code that asks the agent for a job it did not push, as hostile code could
        from sluice import _remote
        try:
            return _remote._remote_caller.__self__.watch_job("local/double", stranger, 0, "end")
        except sluice.RemoteError as error:
            return {"refused": error.error}
    jobs = [double.push(n + i) for i in range(3)]
    counting = count.push(3)
    streamed = list(counting.outputs)
    return {"results": [job.result() for job in jobs], "statuses": [job.status for job in jobs], "streamed": streamed}
`;

const FILES = `import sluice

@sluice.function(name="shout-file")
def shout_file(document: sluice.File) -> sluice.File:
    with open(document.path) as f:
        text = f.read()
    with open("/tmp/sluice-shouted.txt", "w") as out:
        out.write(text.upper())
    return sluice.File(path="/tmp/sluice-shouted.txt")
`;

const FAN = `import sluice

@sluice.function(name="fan")
def fan(count: int) -> int:
    for n in range(count):
        sluice.function.get("local/double").push(n=n)
    return count
`;

const RELAY = `import sluice

@sluice.function(name="relay")
def relay(url: str, pushed: bool = False) -> str:
    shout = sluice.function.get("local/shout-file")
    shouted = shout.push(document=url).result() if pushed else shout.run(document=url)
    if not isinstance(shouted, sluice.File):
        raise TypeError(f"the child's File came back as {type(shouted).__name__}")
    return shouted.url
`;

/** Reads the Files it is given and says what it got: name, size, checksum. */
const FILE_FACTS = py`
  import hashlib, os
  import sieve

  def facts(file):
      with open(file.path, "rb") as f:
          data = f.read()
      return {"name": os.path.basename(file.path), "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

  @sieve.function(name="file-facts")
  def file_facts(audio: sieve.File, more: list = [], extra: dict = {}) -> dict:
      return {"audio": facts(audio), "more": [facts(f) for f in more], "extra": {k: facts(f) for k, f in extra.items()}}
`;

/** Sieve's commonest workflow: make a file (a WAV, with the standard library) and pass it to another function. */
const MAKE_WAV = py`
  import hashlib, os, struct, tempfile, wave
  import sieve

  facts = sieve.function.get("local/file-facts")

  def expected(path):
      with open(path, "rb") as f:
          data = f.read()
      return {"name": os.path.basename(path), "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

  @sieve.function(name="make-wav")
  def make_wav(how: str) -> dict:
      folder = tempfile.mkdtemp()
      tone = os.path.join(folder, "tone.wav")
      with wave.open(tone, "wb") as out:
          out.setnchannels(1)
          out.setsampwidth(2)
          out.setframerate(8000)
          out.writeframes(b"".join(struct.pack("<h", (i * 97) % 20000 - 10000) for i in range(8000)))
      notes = os.path.join(folder, "notes.txt")
      with open(notes, "w") as f:
          f.write("nested in a list")
      with open("beside-the-code.bin", "wb") as f:  # a relative path, in the function's own folder
          f.write(os.urandom(3000))
      if how == "run":  # positional, a sieve.Audio, a File in a list and one in a dict
          got = facts.run(sieve.Audio(tone), [sieve.File(path=notes)], extra={"local": sieve.File("beside-the-code.bin")})
      else:
          got = facts.push(audio=sieve.File(path=tone), more=[sieve.File(notes)], extra={"local": sieve.File(path="beside-the-code.bin")}).result()
      want = {"audio": expected(tone), "more": [expected(notes)], "extra": {"local": expected("beside-the-code.bin")}}
      return {"same": got == want, "got": got}
`;

/** Passes its own File input on (one a client uploaded has no URL: the agent stores it again for the child). */
const PASS_ON = py`
  import sieve

  @sieve.function(name="pass-on")
  def pass_on(doc: sieve.File) -> dict:
      return sieve.function.get("local/file-facts").run(doc)
`;

/** Hostile: names a file of the service's (or any path) as a File to pass, past the SDK's own checks. */
const PASS_SECRET = py`
  import sieve
  from sluice import _remote

  @sieve.function(name="pass-secret")
  def pass_secret(paths: list, sdk: bool = False) -> str:
      with open("/tmp/fine.txt", "w") as f:
          f.write("a file it may pass")
      try:
          if sdk:
              sieve.function.get("local/file-facts").run(sieve.File(paths[0]))
          else:
              marker = lambda path: {"_type": "sieve.File", "path": path, "name": "loot"}
              runtime = _remote._remote_caller.__self__
              runtime.call_function("local/file-facts", {"audio": marker(paths[0]), "more": [marker(p) for p in paths[1:]]})
      except (sieve.RemoteError, TypeError) as error:
          return f"{type(error).__name__}: {error}"
      return "passed"
`;

/** Passes `count` files of `size` bytes each in one call. */
const PASS_MANY = py`
  import os, tempfile
  import sieve

  @sieve.function(name="pass-many")
  def pass_many(count: int, size: int) -> str:
      folder = tempfile.mkdtemp()
      files = []
      for i in range(count):
          path = os.path.join(folder, f"part-{i}.bin")
          with open(path, "wb") as f:
              f.write(b"x" * size)
          files.append(sieve.File(path))
      try:
          got = sieve.function.get("local/file-facts").run(files[0], files[1:])
      except sieve.RemoteError as error:
          return error.error
      return f"passed {1 + len(got['more'])}"
`;

/** Sieve code reading a streaming function's outputs from inside a function. */
const STREAM_READER = py`
  import sieve

  count = sieve.function.get("local/count")
  double = sieve.function.get("local/double")

  @sieve.function(name="stream-reader")
  def stream_reader(n: int) -> dict:
      job = count.push(10)
      first = next(job.result())
      status_after_first = job.status
      ran = count.run(n)
      one = count.run(1)
      pushed_one = count.push(1).result()
      return {
          "first": first,
          "status_after_first": status_after_first,
          "ran_is_iterator": iter(ran) is ran,
          "ran": [x for x in ran],
          "one_is_iterator": iter(one) is one,
          "one": list(one),
          "pushed_one_is_iterator": iter(pushed_one) is pushed_one,
          "pushed_one": list(pushed_one),
          "double": double.run(n),
          "double_pushed": double.push(n).result(),
      }
`;

/** The same from a client program, over the API. */
const STREAM_CLIENT = py`
  import json
  import sieve

  count = sieve.function.get("local/count")
  double = sieve.function.get("local/double")
  streamed = count.push(2).result()
  one = count.push(1).result()
  timed = count.push(2).result(timeout=60)
  ran = count.run(1)
  print(json.dumps({
      "iterator": iter(streamed) is streamed, "values": list(streamed),
      "one_is_iterator": iter(one) is one, "one": list(one),
      "timed_is_iterator": iter(timed) is timed, "timed": list(timed),
      "run_one_is_iterator": iter(ran) is ran, "run_one": list(ran),
      "double": double.push(3).result(), "double_run": double.run(4),
  }))
`;

/** Every file under a folder, recursively (none when it does not exist). */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('functions calling functions, and files', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const { body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs });
    return (await call('GET', `/v2/jobs/${body.id}/await`)).body;
  };

  beforeAll(async () => {
    // The file server of the File test listens on loopback, which input URLs may reach only when allowed.
    // Confined (bubblewrap), as a production service is: what a function may pass on is what its sandbox holds.
    // A 1 MB upload limit bounds the files one call passes.
    service = await startTestService({ SLUICE_DEFAULT_MAX_REPLICAS: '2', SLUICE_INPUT_ALLOW: 'loopback', SLUICE_SANDBOX: 'bwrap', SLUICE_MAX_UPLOAD_MB: '1' });
    for (const source of [CHILD, PARENT, COUNT, FAN_OUT, FILES, FAN, RELAY, FILE_FACTS, MAKE_WAV, PASS_ON, PASS_SECRET, PASS_MANY, STREAM_READER]) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      await waitForBuild(service, `local/${deployed.body.function.name}`, deployed.body.version.id);
    }
  }, 180_000);
  afterAll(() => service.close());

  it('marks a function that calls others as a workflow listing its dependencies', async () => {
    const fn = (await call('GET', '/v2/functions/local/pipeline')).body;
    expect(fn.function_type).toBe('workflow');
    expect(fn.latest_version.function_dependencies).toEqual(['local/double']);
  });

  it('runs a child function from inside a job; the child records its parent and the parent lists its children', async () => {
    const parent = await run('pipeline', { n: 21 });
    expect(parent.status).toBe('finished');
    expect(parent.outputs[0].data.doubled).toBe(42);
    // Keyed by the function called, each value an array of its jobs (Sieve's shape).
    expect(Object.keys(parent.children)).toEqual(['local/double']);
    const childIds = parent.children['local/double'].map((child: any) => child.id);
    expect(childIds).toHaveLength(2);
    const pushed = (await call('GET', `/v2/jobs/${parent.outputs[0].data.pushed}/await`)).body;
    expect(pushed.outputs[0].data).toBe(200);
    expect(childIds).toContain(pushed.id);
  });

  it("awaits the jobs it pushed: several in flight, each result, and a streaming child's outputs", async () => {
    const fn = (await call('GET', '/v2/functions/local/fan-out')).body;
    expect(fn.latest_version.function_dependencies).toEqual(['local/double', 'local/count']);
    const parent = await run('fan-out', { n: 5 });
    expect(parent.error).toBe('');
    expect(parent.outputs[0].data).toEqual({ results: [10, 12, 14], statuses: ['finished', 'finished', 'finished'], streamed: [0, 1, 2] });
    expect(parent.children['local/double']).toHaveLength(3);
  });

  it("answers a job's await only for the jobs it pushed itself", async () => {
    const other = await run('double', { n: 1 });
    const parent = await run('fan-out', { n: 0, stranger: other.id });
    expect(parent.outputs[0].data).toEqual({ refused: `Job ${other.id} was not pushed by this job.` });
  });

  it('prices a job with the jobs it pushed (aggregated, the default), or alone', async () => {
    const parent = await run('pipeline', { n: 1 });
    const children = parent.children['local/double'];
    for (const child of children) await call('GET', `/v2/jobs/${child.id}/await`);
    const alone = (await call('GET', `/v2/usage/job/${parent.id}?aggregated=false`)).body;
    const together = (await call('GET', `/v2/usage/job/${parent.id}`)).body;
    const childCosts = await Promise.all(children.map(async (child: any) => (await call('GET', `/v2/usage/job/${child.id}`)).body.cost));
    expect(alone).toMatchObject({
      job_id: parent.id,
      function_name: 'pipeline',
      function_owner_name: 'local',
      function_id: parent.function_id,
      aggregated: false,
    });
    expect(childCosts.every((cost: number) => cost > 0)).toBe(true);
    expect(together.cost).toBeCloseTo(alone.cost + childCosts.reduce((sum: number, cost: number) => sum + cost, 0), 12);
  });

  it('lists a job’s first 100 children on a list page, saying there are more (children_truncated), and all of them on GET of the job', async () => {
    const fan = await run('fan', { count: 130 });
    expect(fan.status).toBe('finished');
    expect(fan.children['local/double']).toHaveLength(130);
    expect(fan.children_truncated).toBeUndefined();
    const listed = (await call('GET', '/v2/functions/local/fan/jobs?limit=1')).body.data[0];
    expect(listed.id).toBe(fan.id);
    // The first 100, oldest first (their statuses move on as they run).
    const idsOf = (children: { id: string }[]) => children.map((child) => child.id);
    expect(idsOf(listed.children['local/double'])).toEqual(idsOf(fan.children['local/double']).slice(0, 100));
    expect(listed.children_truncated).toBe(true);
    const small = (await call('GET', '/v2/functions/local/pipeline/jobs?limit=1')).body.data[0];
    expect(small.children['local/double']).toHaveLength(2);
    expect(small.children_truncated).toBeUndefined();
  }, 60_000);

  it('hands a calling function a child’s File output as a File with its signed URL, from run() and from push().result(), which downloads without a key', async () => {
    const server = createServer((_request, response) => response.end('handed on'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const pushed of [false, true]) {
        const relay = await run('relay', { url: `http://127.0.0.1:${port}/doc.txt`, pushed });
        expect(relay.status).toBe('finished');
        const handed: string = relay.outputs[0].data;
        expect(new URL(handed).searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
        const download = await fetch(handed);
        expect(download.status).toBe(200);
        expect(await download.text()).toBe('HANDED ON');
      }
    } finally {
      server.close();
    }
  });

  it('hands a File input given by URL to the function as a local path, and serves a File output by URL', async () => {
    const server = createServer((_request, response) => response.end('quiet words'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const job = await run('shout-file', { document: { url: `http://127.0.0.1:${port}/doc.txt` } });
      expect(job.status).toBe('finished');
      expect(job.outputs[0].type).toBe('sieve.File');
      // The URL a job shows is signed: no key needed. The route it stands for still needs one.
      const download = await fetch(job.outputs[0].data.url);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('QUIET WORDS');
      expect((await fetch(`${service.url}/v2/jobs/${job.id}/files/0`)).status).toBe(401);
    } finally {
      server.close();
    }
  });
  it('passes a File a function made (a WAV, a file in a list, one in a dict, a relative path) to another function, which reads the same bytes under the same name, from run() and push().result()', async () => {
    for (const how of ['run', 'push']) {
      const parent = await run('make-wav', { how });
      expect(parent.error).toBe('');
      const { same, got } = parent.outputs[0].data;
      expect(got.audio).toMatchObject({ name: 'tone.wav', size: 44 + 2 * 8000 });
      expect(got.more).toEqual([{ name: 'notes.txt', size: 16, sha256: createHash('sha256').update('nested in a list').digest('hex') }]);
      expect(got.extra.local).toMatchObject({ name: 'beside-the-code.bin', size: 3000 });
      expect(same).toBe(true);
      // The child is the caller's organization's, and its inputs name uploads of it, never a path.
      const [child] = parent.children['local/file-facts'];
      const shown = (await call('GET', `/v2/jobs/${child.id}`)).body;
      expect(shown.status).toBe('finished');
      expect(shown.inputs.audio).toMatchObject({ name: 'tone.wav', upload_id: expect.any(String) });
      expect(JSON.stringify(shown.inputs)).not.toContain('"path"');
    }
  }, 60_000);

  it('passes on a File input a client uploaded (no URL to pass), under its name', async () => {
    const bytes = Buffer.from('uploaded by a client program');
    const { body: upload } = await call('POST', '/v2/uploads', { size: bytes.length });
    expect((await fetch(upload.upload_url, { method: 'PUT', body: bytes })).status).toBe(200);
    const parent = await run('pass-on', { doc: { upload_id: upload.upload_id, name: 'speech.txt' } });
    expect(parent.error).toBe('');
    expect(parent.outputs[0].data.audio).toEqual({ name: 'speech.txt', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('refuses to pass a file the function may not hand over (the service’s, or outside its folders), saying so, storing nothing and pushing nothing', async () => {
    const uploads = join(service.dataDir, 'uploads');
    const before = await filesUnder(uploads);
    const attempts: [string[], boolean][] = [
      [['/etc/passwd'], false],
      [[join(service.dataDir, 'api-key')], false],
      [[join(service.dataDir, 'sluice.db')], false],
      [['/proc/self/environ'], false],
      [['../../../../etc/hostname'], false],
      // A file it may pass, then one it may not: neither is stored.
      [['/tmp/fine.txt', '/etc/passwd'], false],
      // Through the SDK: a File named by path.
      [['/etc/passwd'], true],
    ];
    for (const [paths, sdk] of attempts) {
      const parent = await run('pass-secret', { paths, sdk });
      expect(parent.status).toBe('finished');
      const said: string = parent.outputs[0].data;
      // Named by the SDK, a file its sandbox does not show is not sent at all (TypeError); any other, the agent refuses.
      const refused = /^RemoteError: local\/file-facts failed: .+ is not a file the function may pass to another function/;
      expect(said, paths.join(', ')).toMatch(sdk ? new RegExp(`${refused.source}|^TypeError: .+ is not a file`) : refused);
      expect(said).not.toMatch(/root:x:/);
      expect(parent.children ?? {}).toEqual({});
    }
    expect(await filesUnder(uploads)).toEqual(before);
  }, 60_000);

  it('bounds the files one call passes, in number and in total size (SLUICE_MAX_UPLOAD_MB), with an error naming the limit, storing nothing', async () => {
    const uploads = join(service.dataDir, 'uploads');
    const before = await filesUnder(uploads);
    const tooMany = await run('pass-many', { count: 257, size: 1 });
    expect(tooMany.outputs[0].data).toMatch(/^a call may pass at most 256 files the function made \(this one passes 257\)/);
    const tooLarge = await run('pass-many', { count: 2, size: 700_000 });
    expect(tooLarge.outputs[0].data).toMatch(/^the files a call passes may hold 1 MB together \(SLUICE_MAX_UPLOAD_MB\)/);
    expect(await filesUnder(uploads)).toEqual(before);
    expect((await run('pass-many', { count: 3, size: 300_000 })).outputs[0].data).toBe('passed 3');
  }, 60_000);

  it('hands a function a streaming child’s outputs as an iterator, as they come, from run() and push().result(), one output or several; a child that does not stream, its value', async () => {
    const parent = await run('stream-reader', { n: 3 });
    expect(parent.error).toBe('');
    expect(parent.outputs[0].data).toEqual({
      first: 0,
      status_after_first: 'processing',
      ran_is_iterator: true,
      ran: [0, 1, 2],
      one_is_iterator: true,
      one: [0],
      pushed_one_is_iterator: true,
      pushed_one: [0],
      double: 6,
      double_pushed: 6,
    });
  }, 60_000);

  it('hands a client program a streaming function’s push().result() as an iterator too, as Sieve’s SDK does', async () => {
    const result = await runSdkProgram(STREAM_CLIENT, service);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      iterator: true,
      values: [0, 1],
      one_is_iterator: true,
      one: [0],
      timed_is_iterator: true,
      timed: [0, 1],
      run_one_is_iterator: true,
      run_one: [0],
      double: 6,
      double_run: 8,
    });
  }, 60_000);
});
