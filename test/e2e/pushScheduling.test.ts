import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWireSchema } from '../../shared/domain/wire/job.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

describe("a push's scheduling fields (Sluice extensions)", () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = (extra: Record<string, unknown>) => call('POST', '/v2/push', { function: 'local/echo', inputs: { text: 'hi' }, ...extra });

  beforeAll(async () => {
    service = await startTestService();
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('echo') }));
    await waitForBuild(service, 'local/echo', deployed.body.version.id);
  }, 60_000);
  afterAll(() => service.close());

  it('shows the priority, start_timeout and retries a push gave on the job, and their defaults when it gave none', async () => {
    const given = await push({ priority: 7, start_timeout: 30, retries: 2 });
    expect(given.status).toBe(200);
    const job = jobWireSchema.parse((await call('GET', `/v2/jobs/${given.body.id}/await`)).body);
    expect(job).toMatchObject({ status: 'finished', priority: 7, start_timeout: 30, retries: 2, replay_of: null });

    const plain = await push({});
    const defaults = (await call('GET', `/v2/jobs/${plain.body.id}/await`)).body;
    expect(defaults).toMatchObject({ priority: 0, start_timeout: null, retries: 0, replay_of: null });
  });

  it('refuses a priority, start_timeout or retries out of bounds with 422 naming the field', async () => {
    const refused: [string, unknown][] = [
      ['priority', 11],
      ['priority', -11],
      ['priority', 1.5],
      ['start_timeout', 0],
      ['start_timeout', 8 * 24 * 3600],
      ['start_timeout', '5'],
      ['retries', -1],
      ['retries', 11],
    ];
    for (const [field, value] of refused) {
      const { status, body } = await push({ [field]: value });
      expect({ field, value, status }).toEqual({ field, value, status: 422 });
      expect(body.detail[0].loc).toEqual(['body', field]);
    }
  });
});
