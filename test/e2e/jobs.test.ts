import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobPageWireSchema, jobWireSchema, pushResultWireSchema } from '../../shared/domain/wire/job.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const FUNCTIONS = {
  greet: `import sluice

@sluice.function(name="greet", environment_variables=[sluice.Env(name="GREETING", default="Hello")])
def greet(name: str, punctuation: str = ".") -> str:
    import os
    print("greeting", name)
    return f"{os.environ['GREETING']}, {name}{punctuation}"
`,
  words: `import sluice, time
from typing import Iterator

@sluice.function(name="words")
def words(text: str, pause: float = 0.0) -> Iterator[str]:
    for word in text.split():
        yield word
        time.sleep(pause)
`,
  fail: `import sluice

@sluice.function(name="fail")
def fail(message: str) -> str:
    raise ValueError(message)
`,
  sleepy: `import sluice, time

@sluice.function(name="sleepy")
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"
`,
};

describe('jobs over HTTP, on real Python replicas', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = (body: unknown) => call('POST', '/v2/push', body);
  const awaitJob = (id: string, query = '') => call('GET', `/v2/jobs/${id}/await${query}`);

  beforeAll(async () => {
    service = await startTestService({ SLUICE_AWAIT_TIMEOUT_S: '2', SLUICE_DEFAULT_MAX_REPLICAS: '2' });
    for (const [name, source] of Object.entries(FUNCTIONS)) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      await waitForBuild(service, `local/${name}`, deployed.body.version.id);
    }
  }, 120_000);
  afterAll(() => service.close());

  it('pushes a job and answers with the Push result', async () => {
    const { status, body } = await push({ function: 'local/greet', inputs: { name: 'Ada' } });
    expect(status).toBe(200);
    const result = pushResultWireSchema.parse(body);
    const version = (await call('GET', '/v2/functions/local/greet/versions/latest')).body;
    expect(result).toMatchObject({ status: 'queued', model_id: version.id, stream_output: false, workflow_id: null });
    expect(result.run_id).not.toBe('');
  });

  it('runs it to finished: await returns the Job with its output, timestamps in order', async () => {
    const { body: pushed } = await push({ function: 'local/greet', inputs: { name: 'Ada' } });
    const { status, body } = await awaitJob(pushed.id);
    expect(status).toBe(200);
    const job = jobWireSchema.parse(body);
    expect(job).toMatchObject({ status: 'finished', error: '', function: { name: 'greet', owner_name: 'local' }, inputs: { name: 'Ada' } });
    expect(job.outputs).toEqual([{ type: 'str', name: '', data: 'Hello, Ada.', description: '', schema: {}, run_id: job.run_id, is_optional: false }]);
    expect(job.created_at! <= job.started_at! && job.started_at! <= job.completed_at!).toBe(true);
  });

  it('pushes by function id and by version id', async () => {
    const fn = (await call('GET', '/v2/functions/local/greet')).body;
    const jobs = await call('GET', '/v2/functions/local/greet/jobs?limit=1');
    const functionId = jobs.body.data[0].function_id;
    for (const id of [functionId, fn.latest_version.id]) {
      const { body } = await push({ id, inputs: { name: 'Id' } });
      expect((await awaitJob(body.id)).body.outputs[0].data).toBe('Hello, Id.');
    }
  });

  it('merges env over the version’s defaults for that job only', async () => {
    const { body: withEnv } = await push({ function: 'local/greet', inputs: { name: 'Env' }, env: { GREETING: 'Howdy' } });
    expect((await awaitJob(withEnv.id)).body.outputs[0].data).toBe('Howdy, Env.');
    const { body: without } = await push({ function: 'local/greet', inputs: { name: 'Env' } });
    expect((await awaitJob(without.id)).body.outputs[0].data).toBe('Hello, Env.');
  });

  it('refuses function and id together, or neither, with 422 naming both fields', async () => {
    for (const body of [{ inputs: {} }, { function: 'local/greet', id: 'x', inputs: {} }]) {
      const response = await push(body);
      expect(response.status).toBe(422);
      expect(response.body.detail.map((issue: any) => issue.loc.join('.'))).toEqual(['body.function', 'body.id']);
    }
  });

  it('checks inputs: a missing required one or an unknown one gets 422 with its name', async () => {
    const response = await push({ function: 'local/greet', inputs: { nom: 'Ada' } });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((issue: any) => issue.loc.join('.')).sort()).toEqual(['body.inputs.name', 'body.inputs.nom']);
  });

  it('tells a missing field from one of the wrong type in a 422', async () => {
    const missing = await push({ inputs: { name: 'Ada' } });
    expect(missing.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'function'] }));
    const wrongType = await push({ function: 'local/greet', inputs: { name: 'Ada' }, webhooks: 42 });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'webhooks'], type: 'array_type', msg: expect.not.stringContaining('Field required') }),
    ]);
  });

  it('takes inputs by position, in the order the function declares them, and env null, as Sieve does', async () => {
    const { status, body: pushed } = await push({ function: 'local/greet', inputs: ['Ada', '!'], env: null });
    expect(status).toBe(200);
    const job = (await awaitJob(pushed.id)).body;
    expect(job.inputs).toEqual({ name: 'Ada', punctuation: '!' });
    expect(job.outputs[0].data).toBe('Hello, Ada!');
    const tooMany = await push({ function: 'local/greet', inputs: ['Ada', '!', 'extra'] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'inputs', 2]);
  });

  it('answers Sieve’s 400 "Invalid function specified." for a reference it cannot read', async () => {
    const { status, body } = await push({ function: 'not a reference', inputs: {} });
    expect(status).toBe(400);
    expect(body.detail).toMatch(/^Invalid function specified\. /);
  });

  it('reports the organization’s queued and processing jobs now, and its concurrency over time', async () => {
    const running = await Promise.all([1, 2].map(() => push({ function: 'local/sleepy', inputs: { seconds: 1.5 } })));
    const { body: queued } = await push({ function: 'local/sleepy', inputs: { seconds: 0.5 } });
    await until(async () => (await call('GET', '/v2/user/concurrency')).body.num_processing === 2);
    const now = (await call('GET', '/v2/user/concurrency')).body;
    expect(now).toMatchObject({ num_processing: 2, num_queued: 1, num_current: 3, num_limited: 0 });
    expect(now.max_concurrency).toBeGreaterThan(1_000_000);
    for (const { body } of [...running, { body: queued }]) await awaitJob(body.id);
    expect((await api(service.url, await service.createOrganization('quiet'), 'GET', '/v2/user/concurrency')).body.num_current).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const stats = (await call('GET', `/v2/usage/concurrency?function=local/sleepy&start=${day}T00:00&end=${day}T23:59&chunk_size=1440`)).body;
    expect(stats).toHaveLength(1);
    expect(stats[0]).toMatchObject({ chunk_start: `${day}T00:00:00.000000`, chunk_end: expect.stringMatching(/T00:00:00.000000$/) });
    expect(stats[0].num_jobs).toBeGreaterThanOrEqual(3);
    expect(stats[0].median_processing_time_seconds).toBeGreaterThan(0);
    expect(stats[0].average_concurrency).toBeCloseTo((stats[0].num_jobs * stats[0].median_processing_time_seconds) / 86_400, 9);
    const bad = await call('GET', `/v2/usage/concurrency?start=${day}T00:00&end=2099-01-01T00:00`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'end']);
  });

  it('answers 404 "Function not found." for an unknown function', async () => {
    expect(await push({ function: 'local/nothing', inputs: {} })).toEqual({ status: 404, body: { detail: 'Function not found.' } });
  });

  it('streams a generator’s outputs while it runs, one InputOutput each, in order', async () => {
    const { body: pushed } = await push({ function: 'local/words', inputs: { text: 'one two three', pause: 0.4 } });
    expect(pushed.stream_output).toBe(true);
    let partial: any[] = [];
    for (let i = 0; i < 100 && partial.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const job = (await call('GET', `/v2/jobs/${pushed.id}`)).body;
      if (job.status === 'processing') partial = job.outputs;
    }
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(3);
    const done = (await awaitJob(pushed.id)).body;
    expect(done.outputs.map((o: any) => o.data)).toEqual(['one', 'two', 'three']);
    expect((await awaitJob(pushed.id, '?offset=2')).body.outputs.map((o: any) => o.data)).toEqual(['three']);
  });

  it('ends in error with the exception’s type, message and traceback', async () => {
    const { body: pushed } = await push({ function: 'local/fail', inputs: { message: 'bad input' } });
    const job = (await awaitJob(pushed.id)).body;
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/^ValueError: bad input/);
    expect(job.error).toContain('main.py');
    expect(job.outputs).toEqual([]);
  });

  it('answers 408 "Request timeout." when the job outlasts the await window', async () => {
    const { body: pushed } = await push({ function: 'local/sleepy', inputs: { seconds: 4 } });
    expect(await awaitJob(pushed.id)).toEqual({ status: 408, body: { detail: 'Request timeout.' } });
    await call('DELETE', `/v2/jobs/${pushed.id}`);
  });

  it('answers 404 "Job not found." for an unknown job, on await and get', async () => {
    expect(await awaitJob('no-such-job')).toEqual({ status: 404, body: { detail: 'Job not found.' } });
    expect(await call('GET', '/v2/jobs/no-such-job')).toEqual({ status: 404, body: { detail: 'Job not found.' } });
  });

  it('cancels a processing job by stopping its run, and refuses to cancel an ended one', async () => {
    const { body: pushed } = await push({ function: 'local/sleepy', inputs: { seconds: 30 } });
    await until(async () => (await call('GET', `/v2/jobs/${pushed.id}`)).body.status === 'processing');
    const cancelled = await call('DELETE', `/v2/jobs/${pushed.id}`);
    expect(cancelled).toEqual({ status: 200, body: { message: `Job ${pushed.id} cancelled.` } });
    const job = (await call('GET', `/v2/jobs/${pushed.id}`)).body;
    expect(job.status).toBe('cancelled');
    expect(job.completed_at).not.toBeNull();
    const again = await call('DELETE', `/v2/jobs/${pushed.id}`);
    expect(again).toEqual({ status: 400, body: { detail: 'Job is not processing.' } });
    // The replica was replaced: the next job still runs.
    const { body: next } = await push({ function: 'local/sleepy', inputs: { seconds: 0 } });
    expect((await awaitJob(next.id)).body.status).toBe('finished');
  });

  it('cancels a queued job at once', async () => {
    // Two replicas at most: the third job waits in the queue.
    const running = await Promise.all([1, 2].map(() => push({ function: 'local/sleepy', inputs: { seconds: 1.5 } })));
    const { body: queued } = await push({ function: 'local/sleepy', inputs: { seconds: 0 } });
    expect((await call('DELETE', `/v2/jobs/${queued.id}`)).status).toBe(200);
    expect((await call('GET', `/v2/jobs/${queued.id}`)).body).toMatchObject({ status: 'cancelled', started_at: null });
    for (const { body } of running) expect((await awaitJob(body.id)).body.status).toBe('finished');
    expect((await call('GET', `/v2/jobs/${queued.id}`)).body.status).toBe('cancelled');
  });

  it('keeps what the function prints as the job’s logs, labelled, oldest first, paged', async () => {
    const { body: pushed } = await push({ function: 'local/greet', inputs: { name: 'Logs' } });
    await awaitJob(pushed.id);
    const page = (await call('GET', `/v2/logs?job_id=${pushed.id}`)).body;
    const lines = page.data.flatMap((group: any) => group.logs.map((line: any) => line.message));
    expect(lines).toContain('greeting Logs');
    expect(page.data[0].labels).toMatchObject({ stage: 'run', job_id: pushed.id, run_id: pushed.run_id, function_id: expect.any(String) });
    const next = (await call('GET', `/v2/logs?job_id=${pushed.id}&start_time=${BigInt(page.last_time_returned) + 1n}`)).body;
    expect(next).toMatchObject({ data: [] });
  });

  it('lists jobs newest first: by function with a status filter, by version, and for the organization', async () => {
    const errors = jobPageWireSchema.parse((await call('GET', '/v2/functions/local/fail/jobs?status=error')).body);
    expect(errors.data.length).toBeGreaterThan(0);
    expect(errors.data.every((job) => job.status === 'error' && job.function.name === 'fail')).toBe(true);
    const greet = (await call('GET', '/v2/functions/local/greet/versions/latest/jobs?limit=2')).body;
    expect(greet.data).toHaveLength(2);
    expect(greet.next_offset).toBe(2);
    expect(greet.data[0].created_at >= greet.data[1].created_at).toBe(true);
    const all = (await call('GET', '/v2/jobs?limit=1000')).body;
    expect(new Set(all.data.map((job: any) => job.function.name))).toEqual(new Set(['greet', 'words', 'fail', 'sleepy']));
    expect(all.next_offset).toBe(-1);
  });

  it('keeps jobs private to the organization that pushed them', async () => {
    const other = await service.createOrganization('elsewhere');
    const { body: pushed } = await push({ function: 'local/greet', inputs: { name: 'Private' } });
    expect((await api(service.url, other, 'GET', `/v2/jobs/${pushed.id}`)).status).toBe(404);
    expect((await api(service.url, other, 'GET', '/v2/jobs')).body.data).toEqual([]);
  });
});
