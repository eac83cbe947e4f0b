import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushResultWireSchema } from '../../shared/domain/wire/job.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, restartTestService, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

describe('Idempotency-Key on POST /v2/push: a retried push makes one job', () => {
  let service: TestService;
  let rivalKey: string;
  const push = async (body: unknown, idempotencyKey?: string, key = service.key) => {
    const headers: Record<string, string> = { 'x-api-key': key, 'content-type': 'application/json' };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(`${service.url}/v2/push`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const jobCount = async () => {
    const response = await fetch(`${service.url}/v2/jobs?limit=1000`, { headers: { 'x-api-key': service.key } });
    return ((await response.json()) as any).data.length as number;
  };
  const echo = (text: string) => ({ function: 'local/echo', inputs: { text } });

  beforeAll(async () => {
    service = await startTestService();
    rivalKey = await service.createOrganization('rival');
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('echo') }));
    expect((await waitForBuild(service, 'local/echo', deployed.body.version.id)).build_status).toBe('ready');
    // Public, so that another organization can push to it too.
    expect((await api(service.url, service.key, 'POST', '/v2/functions/local/echo/edit', { visibility: 'public' })).status).toBe(200);
  }, 180_000);
  afterAll(() => service.close());

  it('answers the same key and request with the same job, 200 and the push result, and makes no second job', async () => {
    const before = await jobCount();
    const first = await push(echo('once'), 'order-1');
    expect(first.status).toBe(200);
    const again = await push(echo('once'), 'order-1');
    expect(again.status).toBe(200);
    expect(pushResultWireSchema.parse(again.body).id).toBe(first.body.id);
    expect(await jobCount()).toBe(before + 1);
    // Without a key every push is a new job.
    expect((await push(echo('once'))).body.id).not.toBe(first.body.id);
  });

  it('makes one job of pushes racing with one key', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => push(echo('race'), 'order-race')));
    const ids = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.id));
    expect(ids.size).toBe(1);
    // A retry that arrives before the first push's job exists is told to retry (409); the rest get the job.
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
  });

  it('refuses the same key with a different request: 422, naming the key and the job it names', async () => {
    const first = await push(echo('one thing'), 'order-2');
    const other = await push(echo('another thing'), 'order-2');
    expect(other.status).toBe(422);
    expect(other.body.detail).toContain('Idempotency-Key "order-2" was used by an earlier push with a different request');
    expect(other.body.detail).toContain(first.body.id);
  });

  it("keeps keys per organization: another organization's push with the same key is its own job", async () => {
    const ours = await push(echo('mine'), 'order-3');
    const theirs = await push(echo('mine'), 'order-3', rivalKey);
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(ours.body.id);
  });

  it('leaves the key free when the push is refused, so the corrected push may use it', async () => {
    const refused = await push({ function: 'local/echo', inputs: { text: 5 } }, 'order-4');
    expect(refused.status).toBe(422);
    const corrected = await push(echo('fixed'), 'order-4');
    expect(corrected.status).toBe(200);
  });

  it('refuses a key that cannot be one (over 255 characters) with a 422 on the header', async () => {
    const answer = await push(echo('x'), 'k'.repeat(256));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
  });

  it('answers the same job after the service restarts', async () => {
    const first = await push(echo('durable'), 'order-5');
    await api(service.url, service.key, 'GET', `/v2/jobs/${first.body.id}/await`);
    service = await restartTestService(service);
    const again = await push(echo('durable'), 'order-5');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  }, 60_000);
});
