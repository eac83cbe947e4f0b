import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, stopServiceProcess } from './support/serviceProcess.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Dies by `signal` on the first `deaths` attempts (counted in a file), then answers. */
const DYING = `import os, signal, sluice

@sluice.function(name="dying", restart_on_error=False)
def dying(counter: str, deaths: int, signal_name: str) -> str:
    with open(counter, "a") as f:
        f.write("x")
    attempts = len(open(counter).read())
    if attempts <= deaths:
        os.kill(os.getpid(), getattr(signal, signal_name))
    return f"survived after {attempts} attempts"
`;

const STATEFUL = (name: string, restartOnError: boolean) => `import sluice

@sluice.function(name="${name}", restart_on_error=${restartOnError ? 'True' : 'False'})
class Counter:
    def __setup__(self):
        self.calls = 0

    def __predict__(self, fail: bool) -> int:
        self.calls += 1
        if fail:
            raise RuntimeError("asked to fail")
        return self.calls
`;

describe('crash safety', () => {
  let service: TestService;
  let scratch: string;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const { body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs });
    return (await call('GET', `/v2/jobs/${body.id}/await`)).body;
  };

  beforeAll(async () => {
    // The dying function counts its attempts in a file that outlives each replica: only an
    // unconfined function can keep one (a sandboxed replica's files go with it).
    service = await startTestService({ SLUICE_SANDBOX: 'off' });
    scratch = await mkdtemp(join(tmpdir(), 'sluice-crash-'));
    for (const source of [DYING, STATEFUL('keeps-state', false), STATEFUL('fresh-state', true)]) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      await waitForBuild(service, `local/${deployed.body.function.name}`, deployed.body.version.id);
    }
  }, 60_000);
  afterAll(async () => {
    await service.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs a job again when its replica is killed under it, recording the restart', async () => {
    const job = await run('dying', { counter: join(scratch, 'killed'), deaths: 1, signal_name: 'SIGKILL' });
    expect(job.status).toBe('finished');
    expect(job.outputs[0].data).toBe('survived after 2 attempts');
    expect(job.restarts).toHaveLength(1);
    expect(job.restarts[0]).toMatchObject({ type: 'OOM', reason: expect.stringContaining('SIGKILL') });
    expect(job.restarts[0].run_id).not.toBe(job.run_id);
  });

  it('ends in error after three attempts when the replica dies every time (a segfault)', async () => {
    const job = await run('dying', { counter: join(scratch, 'segv'), deaths: 99, signal_name: 'SIGSEGV' });
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/attempted 3 times/);
    expect(job.restarts.map((restart: any) => restart.type)).toEqual(['error', 'error', 'error']);
  });

  it('keeps a replica serving after a job error when restart_on_error is false', async () => {
    expect((await run('keeps-state', { fail: false })).outputs[0].data).toBe(1);
    expect((await run('keeps-state', { fail: true })).status).toBe('error');
    expect((await run('keeps-state', { fail: false })).outputs[0].data).toBe(3);
  });

  it('replaces the replica after a job error when restart_on_error is true (fresh state)', async () => {
    expect((await run('fresh-state', { fail: false })).outputs[0].data).toBe(1);
    expect((await run('fresh-state', { fail: true })).status).toBe('error');
    expect((await run('fresh-state', { fail: false })).outputs[0].data).toBe(1);
  });
});

describe('a service killed with kill -9', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-kill9-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('loses no job: the processing one is queued again with a restart entry, the queued ones run', async () => {
    const first = await startServiceProcess(dataDir, {}, []);
    const deployed = await deployDirectory(
      { url: first.url, key: first.key } as TestService,
      await writeFunctionDir({
        'main.py': 'import sluice, time\n\n@sluice.function(name="nap")\ndef nap(seconds: float) -> str:\n    time.sleep(seconds)\n    return "rested"\n',
      }),
    );
    await waitForBuild({ url: first.url, key: first.key } as TestService, 'local/nap', deployed.body.version.id);
    const pushNap = async (seconds: number) =>
      (await api(first.url, first.key, 'POST', '/v2/push', { function: 'local/nap', inputs: { seconds } })).body.id as string;
    // Long enough that a busy machine cannot finish it between the check and the kill.
    const long = await pushNap(5);
    const waiting = [await pushNap(0), await pushNap(0)];
    await until(async () => (await api(first.url, first.key, 'GET', `/v2/jobs/${long}`)).body.status === 'processing');
    expect(await stopServiceProcess(first.child, 'SIGKILL')).toBeNull();

    const second = await startServiceProcess(dataDir, {}, []);
    try {
      const job = (await api(second.url, second.key, 'GET', `/v2/jobs/${long}/await`)).body;
      expect(job.status).toBe('finished');
      expect(job.restarts).toEqual([expect.objectContaining({ type: 'preemption', reason: expect.stringContaining('stopped') })]);
      for (const id of waiting) expect((await api(second.url, second.key, 'GET', `/v2/jobs/${id}/await`)).body.status).toBe('finished');
    } finally {
      await stopServiceProcess(second.child, 'SIGTERM');
    }
  });
});
