import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Sleeps as long as asked; counts the runs its process has made, so a fresh process shows. */
const sleeper = (name: string, options: string) => `import time
import sluice

runs = 0

@sluice.function(name="${name}"${options})
def run(seconds: float) -> int:
    global runs
    runs += 1
    time.sleep(seconds)
    return runs
`;

describe('time limits', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, seconds: number, extra: Record<string, unknown> = {}) => {
    const pushed = await call('POST', '/v2/push', { function: fn, inputs: { seconds }, ...extra });
    expect(pushed.status).toBe(200);
    return (await call('GET', `/v2/jobs/${pushed.body.id}/await`)).body;
  };

  beforeAll(async () => {
    service = await startTestService();
    for (const [name, options] of [
      ['limited', ', timeout=1'],
      ['unlimited', ''],
    ] as const) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': sleeper(name, options) }));
      await waitForBuild(service, `local/${name}`, deployed.body.version.id);
    }
  }, 60_000);
  afterAll(() => service.close());

  it('ends a job that runs past its function’s timeout in error saying so, and stops its replica; the next job gets a fresh one', async () => {
    expect((await run('local/limited', 0)).outputs[0].data).toBe(1);
    const started = Date.now();
    const job = await run('local/limited', 30);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(job).toMatchObject({ status: 'error', error: 'The job exceeded its time limit of 1 s.' });
    await until(async () => (await call('GET', '/v2/functions/local/limited/versions/latest')).body.current_workers.active === 0, 3_000);
    expect((await run('local/limited', 0)).outputs[0]).toMatchObject({ data: 1 });
  });

  it('ends a job in error past the timeout its push gives, which cannot extend the function’s', async () => {
    const pushed = await run('local/unlimited', 30, { timeout: 1 });
    expect(pushed).toMatchObject({ status: 'error', error: 'The job exceeded its time limit of 1 s.' });
    const longer = await run('local/limited', 30, { timeout: 60 });
    expect(longer).toMatchObject({ status: 'error', error: 'The job exceeded its time limit of 1 s.' });
    expect((await run('local/unlimited', 0.1, { timeout: 60 })).status).toBe('finished');
  });

  it('refuses a push timeout that is not whole seconds from 1 to a day', async () => {
    for (const timeout of [0, 1.5, 86_401, '5']) {
      const { status, body } = await call('POST', '/v2/push', { function: 'local/unlimited', inputs: { seconds: 0 }, timeout });
      expect(status).toBe(422);
      expect(body.detail[0].loc).toEqual(['body', 'timeout']);
    }
  });
});
