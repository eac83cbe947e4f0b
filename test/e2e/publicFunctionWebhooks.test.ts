import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';
import { startWebhookReceiver } from './support/webhookReceiver.js';

/** Org "local" owns the public function `local/shared`, with a webhook of its own; org "acme" uses it. */
describe('webhooks of a public function', () => {
  let service: TestService;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let otherKey: string;
  const owner = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const other = (method: string, path: string, body?: unknown) => api(service.url, otherKey, method, path, body);
  const hooks = (count: number, path: string) => Array.from({ length: count }, () => ({ type: 'job.complete', url: receiver.url(path) }));

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startTestService();
    otherKey = await service.createOrganization('acme');
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('shared') }));
    await waitForBuild(service, 'local/shared', deployed.body.version.id);
    const edit = await owner('POST', '/v2/functions/local/shared/edit', { visibility: 'public', webhooks: { hooks: hooks(1, '/owner') } });
    expect(edit.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await service.close();
    await receiver.close();
  });

  it('shows its webhooks to its owner only', async () => {
    expect((await owner('GET', '/v2/functions/local/shared')).body.webhooks).toEqual([{ type: 'job.complete', url: receiver.url('/owner') }]);
    const seen = await other('GET', '/v2/functions/local/shared');
    expect(seen.status).toBe(200);
    expect(seen.body.webhooks).toEqual([]);
  });

  it('never sends another organization’s job, its inputs or outputs, to the owner’s webhooks; that organization’s own webhooks fire', async () => {
    const theirs = await other('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'acme-secret' } });
    const withHook = await other('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'acme-hooked' }, webhooks: hooks(1, '/acme') });
    for (const job of [theirs, withHook]) expect((await other('GET', `/v2/jobs/${job.body.id}/await`)).body.status).toBe('finished');
    const [acme] = await receiver.waitFor('/acme', 1);
    expect(acme!.body.body).toMatchObject({ job_id: withHook.body.id, outputs: [expect.objectContaining({ data: 'acme-hooked' })] });
    expect((await other('GET', `/v2/jobs/${theirs.body.id}/webhooks`)).body.data).toEqual([]);
    // The owner's own job reaches the owner's webhook; by then the others would have too.
    const mine = await owner('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'mine' } });
    const [delivered] = await receiver.waitFor('/owner', 1);
    expect(delivered!.body.body.job_id).toBe(mine.body.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/owner').map((hook) => hook.body.body.job_id)).toEqual([mine.body.id]);
    expect(receiver.received.map((hook) => hook.raw).join('')).not.toContain('acme-secret');
  });

  it('refuses more than 20 webhooks for a job or a function with a 422 naming the field', async () => {
    const tooMany = await other('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'x' }, webhooks: hooks(21, '/many') });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'webhooks'], msg: expect.stringContaining('at most 20') });
    const edit = await owner('POST', '/v2/functions/local/shared/edit', { webhooks: { hooks: hooks(21, '/many') } });
    expect(edit.status).toBe(422);
    expect(edit.body.detail[0].loc).toEqual(['body', 'webhooks', 'hooks']);
    expect((await other('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'x' }, webhooks: hooks(20, '/twenty') })).status).toBe(200);
  });

  it('lets a job’s webhooks be resent 3 times a minute, then answers 429 with Retry-After', async () => {
    const job = await other('POST', '/v2/push', { function: 'local/shared', inputs: { text: 'again' }, webhooks: hooks(1, '/resent') });
    await other('GET', `/v2/jobs/${job.body.id}/await`);
    for (let resend = 0; resend < 3; resend++) expect((await other('POST', `/v2/jobs/${job.body.id}/webhooks/resend`)).status).toBe(200);
    const response = await fetch(`${service.url}/v2/jobs/${job.body.id}/webhooks/resend`, { method: 'POST', headers: { 'x-api-key': otherKey } });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/resent 3 times in 60 s; try again in \d+ s/);
    await receiver.waitFor('/resent', 4);
  });
});
