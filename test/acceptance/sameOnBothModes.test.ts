import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/support/cli.js';
import { until, writeFunctionDir } from '../e2e/support/testService.js';
import { startWebhookReceiver } from '../e2e/support/webhookReceiver.js';
import { py } from '../support/python.js';
import { runSdkProgram } from '../support/sdkProgram.js';
import { openEventStream, type ReadEvent } from '../e2e/support/eventStream.js';
import { startAwsTarget, startLocalTarget, targetClient, type Target } from './targets.js';
import { ANSWER_BYTES, followToDone, readOnByOffset, SEVEN_BIG_OUTPUTS, SEVEN_BIG_SOURCE, shortened, sizedGet } from '../support/largeJob.js';

/**
 * One black-box acceptance, run against `npm start` and against `npm run aws:local`: what a
 * user does over HTTP and with the CLI must behave the same in both modes.
 */
const FUNCTIONS = {
  'main.py': `import os, signal, sys, tempfile, time
from typing import Iterator
import sluice

@sluice.function(name="greet")
def greet(name: str) -> str:
    print(f"greeting {name}")
    return f"Hello, {name}."

@sluice.function(name="words")
def words(text: str) -> Iterator[str]:
    for word in text.split():
        yield word

@sluice.function(name="shout-file")
def shout_file(document: sluice.File) -> sluice.File:
    with open(document.path) as f:
        text = f.read()
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "shouted.txt"), "w") as out:
        out.write(text.upper())
    return sluice.File(path=os.path.join(folder, "shouted.txt"))

@sluice.function(name="pass-file")
def pass_file(text: str) -> dict:
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "note.txt"), "w") as out:
        out.write(text)
    shouted = sluice.function.get("local/shout-file").run(sluice.File(os.path.join(folder, "note.txt")))
    with open(shouted.path) as f:
        text = f.read()
    streamed = sluice.function.get("local/words").push("x y").result()
    return {"shouted": text, "first": next(streamed), "rest": list(streamed)}

@sluice.function(name="fails")
def fails(reason: str) -> str:
    raise ValueError(reason)

@sluice.function(name="sleepy")
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "awake"

@sluice.function(name="chatty")
def chatty(lines: int) -> int:
    for n in range(lines):
        print(f"line {n}")
    return lines

@sluice.function(name="dies-once")
def dies_once(token: str, mode: str) -> str:
    marker = f"/tmp/sluice-dies-once-{token}"
    if not os.path.exists(marker):
        open(marker, "w").close()
        sys.stdout.flush()
        # On AWS the whole worker task dies (as an instance lost); locally, the replica.
        os.kill(os.getppid() if mode == "aws" else os.getpid(), signal.SIGKILL)
        os._exit(1)
    return "survived"
${SEVEN_BIG_SOURCE}`,
};

/** A Sieve user's own program, with only SIEVE_API_URL and SIEVE_API_KEY set: every way Sieve's SDK calls a function. */
const CLIENT = py`
  import concurrent.futures, json, os, tempfile
  import sieve

  greet = sieve.function.get("local/greet")
  words = sieve.function.get("local/words")
  report = {"run": greet.run("Ada")}
  job = greet.push(name="Grace")
  report["push"] = [job.result(), job.status]
  report["as_completed"] = sorted(f.result() for f in concurrent.futures.as_completed([greet.push(n) for n in "abc"]))
  report["stream_run"] = list(words.run("one two"))
  report["stream_outputs"] = list(words.push("three four").outputs)
  try:
      sieve.function.get("local/fails").run("no such frame")
  except sieve.RemoteError as error:
      report["error"] = error.error.splitlines()[0]
  path = os.path.join(tempfile.mkdtemp(), "note.txt")
  with open(path, "w") as f:
      f.write("quiet words")
  with open(sieve.function.get("local/shout-file").run(sieve.File(path)).path) as f:
      report["file"] = f.read()
  print(json.dumps(report))
`;

// Without moto_server the AWS half fails, saying how to install it (MotoMissingError).
const targets = ['local', 'aws'] as const;

function verify(secret: string, headers: Record<string, any>, raw: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`).digest('base64');
  return String(headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

describe.each(targets)('the same behaviour in the %s mode', (mode) => {
  let target: Target;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let deployOutput = '';
  const { call, push, awaitJob } = targetClient(() => target);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    target = mode === 'aws' ? await startAwsTarget() : await startLocalTarget();
    const deployed = await runCli(['deploy', await writeFunctionDir(FUNCTIONS)], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 240_000);
    deployOutput = deployed.stdout + deployed.stderr;
    expect(deployed.code, deployOutput).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await target?.close();
    await receiver?.close();
  });

  it('deploys with sluice deploy, showing the build’s progress and log, every function ready', () => {
    expect(deployOutput).toContain('building');
    expect(deployOutput).toMatch(/✓ local\/greet is ready/);
    expect(deployOutput).toMatch(/✓ local\/dies-once is ready/);
    expect(deployOutput).toMatch(/\| .+/);
  });

  it('ends a build that cannot succeed in error, saying why, and sluice deploy exits non-zero', async () => {
    const broken = await writeFunctionDir({
      'main.py': 'import sluice\n\n@sluice.function(name="broken", python_version="3.99")\ndef broken(x: str) -> str:\n    return x\n',
    });
    const deployed = await runCli(['deploy', broken], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 120_000);
    expect(deployed.code).not.toBe(0);
    expect(deployed.stdout + deployed.stderr).toContain('Python 3.99 is not installed');
    expect(deployed.stdout).toMatch(/✗ local\/broken failed to build/);
  }, 120_000);

  it('pushes a job and awaits its result, the job’s print in its logs', async () => {
    const id = await push('greet', { name: 'Ada' });
    const job = await awaitJob(id);
    expect(job).toMatchObject({ id, status: 'finished', error: '' });
    expect(job.outputs.map((output: any) => output.data)).toEqual(['Hello, Ada.']);
    await until(
      async () => (await call('GET', `/v2/logs?job_id=${id}`)).body.data.some((entry: any) => entry.logs?.some((line: any) => line.message === 'greeting Ada')),
      20_000,
    );
  });

  it('streams a job as Server-Sent Events until done, a client reconnecting with Last-Event-ID whenever a stream ends without it', async () => {
    const id = await push('greet', { name: 'Eve' });
    const events: ReadEvent[] = [];
    let connections = 0;
    while (events.at(-1)?.event !== 'done') {
      connections += 1;
      expect(connections).toBeLessThan(40);
      const stream = await openEventStream(`${target.url}/v2/jobs/${id}/events`, target.key, events.at(-1)?.id);
      expect(stream.status).toBe(200);
      events.push(...(await stream.rest()));
    }
    // Locally one stream lasts until done. On AWS each answers within a bounded wait, so a job
    // still running when a stream answers takes a reconnection; a job done by then takes none.
    if (mode === 'local') expect(connections).toBe(1);
    const statuses = events.filter((event) => event.event === 'status').map((event) => event.data.status);
    expect(statuses.at(-1)).toBe('finished');
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(events.filter((event) => event.event === 'output').map((event) => event.data.data)).toEqual(['Hello, Eve.']);
    expect(events.filter((event) => event.event === 'log').map((event) => event.data.message)).toContain('greeting Eve');
    expect(events.at(-1)!.data).toEqual((await call('GET', `/v2/jobs/${id}`)).body);
  }, 120_000);

  it('answers a push retried with its Idempotency-Key with the same job, and refuses the key for another request', async () => {
    const pushWithKey = async (name: string) => {
      const response = await fetch(`${target.url}/v2/push`, {
        method: 'POST',
        headers: { 'x-api-key': target.key, 'content-type': 'application/json', 'idempotency-key': `greet-${mode}` },
        body: JSON.stringify({ function: 'local/greet', inputs: { name } }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const first = await pushWithKey('Kim');
    expect(first.status).toBe(200);
    const again = await pushWithKey('Kim');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await pushWithKey('Lee')).status).toBe(422);
  });

  it('returns each output a generator yields, in order', async () => {
    const job = await awaitJob(await push('words', { text: 'one two three' }));
    expect(job.status).toBe('finished');
    expect(job.outputs.map((output: any) => output.data)).toEqual(['one', 'two', 'three']);
  });

  it('ends a job whose function raises in error, with the exception’s type and message', async () => {
    const job = await awaitJob(await push('fails', { reason: 'no such frame' }));
    expect(job.status).toBe('error');
    expect(job.error).toContain('ValueError: no such frame');
  });

  it('cancels a running job', async () => {
    const id = await push('sleepy', { seconds: 60 });
    await until(async () => (await call('GET', `/v2/jobs/${id}`)).body.status === 'processing', 60_000, 200);
    expect((await call('DELETE', `/v2/jobs/${id}`)).status).toBe(200);
    const job = await awaitJob(id);
    expect(job.status).toBe('cancelled');
  }, 90_000);

  it('runs a job again, with a restart entry, when what ran it was killed mid-job', async () => {
    const job = await awaitJob(await push('dies-once', { token: `${mode}-${Date.now()}`, mode }));
    expect(job.status).toBe('finished');
    expect(job.outputs.map((output: any) => output.data)).toEqual(['survived']);
    expect(job.restarts).toHaveLength(1);
  }, 120_000);

  it('pages a long log exactly', async () => {
    const id = await push('chatty', { lines: 2500 });
    expect((await awaitJob(id)).status).toBe('finished');
    const seen: string[] = [];
    let start = '';
    for (let page = 0; page < 10 && seen.length < 2500; page++) {
      const body = (await call('GET', `/v2/logs?job_id=${id}&limit=1000${start ? `&start_time=${start}` : ''}`)).body;
      const lines = body.data.flatMap((entry: any) => entry.logs.map((line: any) => line.message));
      if (lines.length === 0) break;
      seen.push(...lines);
      start = String(BigInt(body.last_time_returned) + 1n);
    }
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, n) => `line ${n}`));
  }, 60_000);

  it('delivers signed webhooks in order, retrying a receiver that fails', async () => {
    const { secret } = (await call('GET', '/v2/webhooks/secret')).body;
    receiver.failNext(`/${mode}/hooks`, 500, 503);
    const types = ['job.start', 'job.new_output', 'job.complete'];
    const id = await push('words', { text: 'a b' }, { webhooks: types.map((type) => ({ type, url: receiver.url(`/${mode}/hooks`) })) });
    const hooks = await receiver.waitFor(`/${mode}/hooks`, 6, 60_000);
    const delivered = hooks.slice(2);
    expect(delivered.map((hook) => hook.body.type)).toEqual(['job.start', 'job.new_output', 'job.new_output', 'job.complete']);
    expect(delivered.every((hook) => hook.body.body.job_id === id && verify(secret, hook.headers, hook.raw))).toBe(true);
  }, 90_000);

  it('serves a Python program written for Sieve: run, push, futures, streaming, errors, and a local file uploaded', async () => {
    const result = await runSdkProgram(CLIENT, target);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      run: 'Hello, Ada.',
      push: ['Hello, Grace.', 'finished'],
      as_completed: ['Hello, a.', 'Hello, b.', 'Hello, c.'],
      stream_run: ['one', 'two'],
      stream_outputs: ['three', 'four'],
      error: 'ValueError: no such frame',
      file: 'QUIET WORDS',
    });
  }, 120_000);

  it('passes a File a function made to another function, and reads a streaming child’s push().result() as an iterator, inside a job', async () => {
    const job = await awaitJob(await push('pass-file', { text: 'made in a job' }));
    expect(job.error).toBe('');
    expect(job.outputs[0].data).toEqual({ shouted: 'MADE IN A JOB', first: 'x', rest: ['y'] });
  }, 90_000);

  it('reads a job of seven 0.9 MB outputs (past Lambda’s 6 MB) through GET, await, the lists and the stream, each answer within the budget (test/e2e/largeJobs.test.ts has the SDKs)', async () => {
    const pushed = await call('POST', '/v2/push', { function: 'local/seven-big', inputs: { count: 7 } });
    const { id, model_id: versionId } = pushed.body;
    expect((await awaitJob(id)).status).toBe('finished');
    for (const route of [`${target.url}/v2/jobs/${id}`, `${target.awaitBase}v2/jobs/${id}/await`]) {
      const read = await readOnByOffset(route, target.key);
      expect(read.answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(read.outputs).toEqual(SEVEN_BIG_OUTPUTS);
      for (const answer of read.answers) expect(answer.bytes).toBeLessThan(ANSWER_BYTES);
    }
    for (const path of ['/v2/jobs', '/v2/functions/local/seven-big/jobs', `/v2/functions/local/seven-big/versions/${versionId}/jobs`]) {
      const page = await sizedGet(`${target.url}${path}`, target.key);
      expect(page.status, path).toBe(200);
      expect(page.body.data.find((job: any) => job.id === id).outputs).toHaveLength(7);
    }
    const streamed = await followToDone(`${target.url}/v2/jobs/${id}/events`, target.key);
    expect(streamed.statuses.every((status) => status === 200)).toBe(true);
    expect(streamed.events.filter((event) => event.event === 'output').map((event) => shortened(event.data.data))).toEqual(SEVEN_BIG_OUTPUTS);
    expect(streamed.events.at(-1)?.event).toBe('done');
  }, 120_000);

  it('reports usage by machine type', async () => {
    await awaitJob(await push('greet', { name: 'usage' }));
    const report = (await call('GET', '/v2/usage')).body;
    expect(report.cpu.compute_seconds).toBeGreaterThan(0);
    expect(report.cpu.cost_dollars).toBeGreaterThan(0);
  });
});
