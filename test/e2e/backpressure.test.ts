import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const SLEEPY = `import sluice, time

@sluice.function(name="sleepy", maximum_replicas=1)
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"
`;

describe("a version's queue bound (SLUICE_MAX_QUEUED_PER_VERSION)", () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = (seconds: number) => call('POST', '/v2/push', { function: 'local/sleepy', inputs: { seconds } });

  beforeAll(async () => {
    service = await startTestService({ SLUICE_MAX_QUEUED_PER_VERSION: '2' });
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': SLEEPY }));
    await waitForBuild(service, 'local/sleepy', deployed.body.version.id);
  }, 120_000);
  afterAll(() => service.close());

  it('answers 429 with Retry-After once the queue holds the bound, and takes pushes again once it drains', async () => {
    const running = (await push(30)).body.id as string;
    await until(async () => (await call('GET', `/v2/jobs/${running}`)).body.status === 'processing');
    const queued = [(await push(0)).body.id as string, (await push(0)).body.id as string];

    const refused = await fetch(`${service.url}/v2/push`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: JSON.stringify({ function: 'local/sleepy', inputs: { seconds: 0 } }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/2 jobs already wait .* the limit is 2/);
    // Refused before anything was written: the function's jobs are the three accepted.
    expect((await call('GET', '/v2/functions/local/sleepy/jobs')).body.data).toHaveLength(3);

    expect((await call('DELETE', `/v2/jobs/${running}`)).status).toBe(200);
    for (const id of queued) expect((await call('GET', `/v2/jobs/${id}/await`)).body.status).toBe('finished');
    expect((await push(0)).status).toBe(200);
  }, 60_000);
});
