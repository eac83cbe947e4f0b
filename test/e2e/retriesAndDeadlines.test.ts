import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Raises on its first `failures` runs of each key in this process, then sleeps `seconds` and answers. */
const FLAKY = `import time
import sluice

runs = {}

@sluice.function(name="flaky", retries=3, restart_on_error=False, maximum_replicas=1)
def flaky(key: str, failures: int, seconds: float = 0) -> str:
    runs[key] = runs.get(key, 0) + 1
    if runs[key] <= failures:
        raise ValueError(f"run {runs[key]} of {key} failed")
    time.sleep(seconds)
    return f"{key} succeeded on run {runs[key]}"
`;

const FATAL = `import sluice

@sluice.function(name="fatal", retries=3)
def fatal(key: str) -> str:
    raise sluice.FatalException(f"{key} cannot be done")
`;

const SLEEPY = `import time
import sluice

@sluice.function(name="sleepy", maximum_replicas=1)
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"
`;

describe('retries and start deadlines (Sluice extensions)', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = async (fn: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const pushed = await call('POST', '/v2/push', { function: `local/${fn}`, inputs, ...extra });
    expect(pushed.status).toBe(200);
    return pushed.body.id as string;
  };
  const awaited = async (id: string) => (await call('GET', `/v2/jobs/${id}/await`)).body;
  const job = async (id: string) => (await call('GET', `/v2/jobs/${id}`)).body;

  beforeAll(async () => {
    service = await startTestService();
    for (const [name, source] of [
      ['flaky', FLAKY],
      ['fatal', FATAL],
      ['sleepy', SLEEPY],
    ] as const) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      await waitForBuild(service, `local/${name}`, deployed.body.version.id);
    }
  }, 120_000);
  afterAll(() => service.close());

  it("runs a job that raises again, up to the function's retries=, each retry a restart entry with its error", async () => {
    const done = await awaited(await push('flaky', { key: 'twice', failures: 2 }));
    expect(done).toMatchObject({ status: 'finished', retries: 3, error: '' });
    expect(done.outputs[0].data).toBe('twice succeeded on run 3');
    expect(done.restarts.map(({ type, retry }: { type: string; retry: number }) => ({ type, retry }))).toEqual([
      { type: 'error', retry: 1 },
      { type: 'error', retry: 2 },
    ]);
    expect(done.restarts[0].reason).toMatch(/ValueError: run 1 of twice failed/);
    expect(done.restarts[1].reason).toMatch(/ValueError: run 2 of twice failed/);
    expect(new Set([...done.restarts.map((restart: { run_id: string }) => restart.run_id), done.run_id]).size).toBe(3);
  });

  it("shows the function's retries= on its version", async () => {
    expect((await call('GET', '/v2/functions/local/flaky/versions/latest')).body.retries).toBe(3);
    expect((await call('GET', '/v2/functions/local/fatal/versions/latest')).body.retries).toBe(3);
    expect((await call('GET', '/v2/functions/local/sleepy/versions/latest')).body.retries).toBe(0);
  });

  it("ends in error with the last attempt's error once the retries are spent; a push's retries overrides the function's", async () => {
    const spent = await awaited(await push('flaky', { key: 'always', failures: 99 }));
    expect(spent.status).toBe('error');
    expect(spent.error).toMatch(/ValueError: run 4 of always failed/);
    expect(spent.restarts).toHaveLength(3);

    const none = await awaited(await push('flaky', { key: 'once', failures: 1 }, { retries: 0 }));
    expect(none).toMatchObject({ status: 'error', retries: 0, restarts: [] });
    expect(none.error).toMatch(/ValueError: run 1 of once failed/);
  });

  it('never retries a FatalException', async () => {
    const failed = await awaited(await push('fatal', { key: 'this' }));
    expect(failed).toMatchObject({ status: 'error', retries: 3, restarts: [] });
    expect(failed.error).toMatch(/this cannot be done/);
  });

  it('never retries a job that ran past its time limit: it would most likely run as long again', async () => {
    const limited = await awaited(await push('flaky', { key: 'slow', failures: 0, seconds: 30 }, { timeout: 1, retries: 2 }));
    expect(limited).toMatchObject({ status: 'error', error: 'The job exceeded its time limit of 1 s.', restarts: [] });
  });

  it('keeps a job whose retry waits in the queue across a restart of the service, and runs it after', async () => {
    // `waiting` raises at once and its retry queues behind `busy`, which holds the only replica.
    const waiting = await push('flaky', { key: 'across-restart', failures: 1 });
    const busy = await push('flaky', { key: 'busy', failures: 0, seconds: 3 });
    await until(async () => (await job(busy)).status === 'processing' && (await job(waiting)).restarts.length === 1);
    expect((await job(waiting)).status).toBe('queued');

    service = await service.restart();
    // A new process: its first run of the key raises again (a second retry), its second succeeds.
    const done = await awaited(waiting);
    expect(done.status).toBe('finished');
    expect(done.restarts.map((restart: { retry?: number }) => restart.retry)).toEqual([1, 2]);
  }, 60_000);

  it('cancels a job that did not start within its start_timeout, saying so; it costs nothing', async () => {
    const busy = await push('sleepy', { seconds: 5 });
    await until(async () => (await job(busy)).status === 'processing');
    const started = Date.now();
    const late = await awaited(await push('sleepy', { seconds: 0 }, { start_timeout: 1 }));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(late).toMatchObject({ status: 'cancelled', error: 'The job did not start within its start_timeout of 1 s.', started_at: null, start_timeout: 1 });
    const usage = (await call('GET', `/v2/usage/job/${late.id}`)).body;
    expect(usage.cost).toBe(0);
    expect((await awaited(busy)).status).toBe('finished');
  }, 30_000);
});
