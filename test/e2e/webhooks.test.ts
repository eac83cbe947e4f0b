import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { startServiceProcess, stopServiceProcess } from './support/serviceProcess.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';
import { startWebhookReceiver } from './support/webhookReceiver.js';

const WORDS = `import sluice
from typing import Iterator

@sluice.function(name="words")
def words(text: str) -> Iterator[str]:
    for word in text.split():
        yield word
`;

const ALL_EVENTS = ['job.start', 'job.new_output', 'job.complete', 'job.complete.no_output'] as const;

/** Verifies a delivery as a receiver would, with the Standard Webhooks scheme. */
function verify(secret: string, headers: Record<string, any>, raw: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`).digest('base64');
  return String(headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

describe('webhooks', () => {
  let service: TestService;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = async (path: string, types: readonly string[] = ALL_EVENTS, text = 'one two') => {
    const { body } = await call('POST', '/v2/push', {
      function: 'local/words',
      inputs: { text },
      webhooks: types.map((type) => ({ type, url: receiver.url(path) })),
    });
    return body.id as string;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startTestService({ SLUICE_WEBHOOK_RETRY_BASE_MS: '200', SLUICE_WEBHOOK_TIMEOUT_S: '1' });
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': WORDS }));
    await waitForBuild(service, 'local/words', deployed.body.version.id);
  }, 60_000);
  afterAll(async () => {
    await service.close();
    await receiver.close();
  });

  it('delivers job.start, each job.new_output, then job.complete and job.complete.no_output, in order, with the documented bodies', async () => {
    const jobId = await push('/order');
    const hooks = await receiver.waitFor('/order', 5);
    expect(hooks.map((hook) => hook.body.type)).toEqual(['job.start', 'job.new_output', 'job.new_output', 'job.complete', 'job.complete.no_output']);
    expect(hooks[0]?.body.body).toEqual({ job_id: jobId, status: 'processing', error: '', outputs: [] });
    // Sieve's NewOutputResponse: the output is a string, the InputOutput as JSON text.
    expect(hooks[1]?.body.body).toEqual({ job_id: jobId, output: expect.any(String) });
    expect(JSON.parse(hooks[1]?.body.body.output)).toMatchObject({ type: 'str', data: 'one', name: '', is_optional: false });
    expect(hooks[3]?.body.body).toMatchObject({ job_id: jobId, status: 'finished', error: '', outputs: [{ data: 'one' }, { data: 'two' }] });
    expect(hooks[4]?.body.body).toEqual({ job_id: jobId, status: 'finished', error: '' });
  });

  it('fires a webhook only for its own event type', async () => {
    await push('/only-complete', ['job.complete']);
    const hooks = await receiver.waitFor('/only-complete', 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/only-complete').map((hook) => hook.body.type)).toEqual(['job.complete']);
    expect(hooks).toHaveLength(1);
  });

  it('signs every delivery (Standard Webhooks) with the organization’s secret, which the owner can rotate', async () => {
    const { secret } = (await call('GET', '/v2/webhooks/secret')).body;
    expect(secret).toMatch(/^whsec_/);
    await push('/signed', ['job.complete']);
    const [hook] = await receiver.waitFor('/signed', 1);
    expect(verify(secret, hook!.headers, hook!.raw)).toBe(true);
    expect(Math.abs(Number(hook!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const rotated = (await call('POST', '/v2/webhooks/secret/rotate')).body.secret;
    expect(rotated).not.toBe(secret);
    await push('/signed-again', ['job.complete']);
    const [again] = await receiver.waitFor('/signed-again', 1);
    expect(verify(rotated, again!.headers, again!.raw)).toBe(true);
    expect(verify(secret, again!.headers, again!.raw)).toBe(false);
  });

  it('retries until the receiver answers 200, with exponential spacing, and lists every attempt', async () => {
    receiver.failNext('/flaky', 500, 503);
    const jobId = await push('/flaky', ['job.complete']);
    const hooks = await receiver.waitFor('/flaky', 3);
    const gaps = [hooks[1]!.at - hooks[0]!.at, hooks[2]!.at - hooks[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(390);
    expect(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { data } = (await call('GET', `/v2/jobs/${jobId}/webhooks`)).body;
    expect(data).toEqual([
      expect.objectContaining({
        type: 'job.complete',
        state: 'delivered',
        attempts: [
          expect.objectContaining({ status: 500, error: 'HTTP 500' }),
          expect.objectContaining({ status: 503 }),
          expect.objectContaining({ status: 200, error: null }),
        ],
      }),
    ]);
  });

  it('does not let a receiver that never answers delay other receivers or the job', async () => {
    receiver.hang('/stuck');
    const { body } = await call('POST', '/v2/push', {
      function: 'local/words',
      inputs: { text: 'fast' },
      webhooks: [
        { type: 'job.start', url: receiver.url('/stuck') },
        { type: 'job.complete', url: receiver.url('/stuck') },
        { type: 'job.complete', url: receiver.url('/healthy') },
      ],
    });
    const started = Date.now();
    expect((await call('GET', `/v2/jobs/${body.id}/await`)).body.status).toBe('finished');
    await receiver.waitFor('/healthy', 1);
    expect(Date.now() - started).toBeLessThan(900); // well inside the stuck receiver's 1 s timeout
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const stuck = (await call('GET', `/v2/jobs/${body.id}/webhooks`)).body.data.find((d: any) => d.url.endsWith('/stuck') && d.type === 'job.start');
    expect(stuck.attempts[0].error).toMatch(/no answer within 1 s/);
  });

  it('refuses webhook URLs that are not http(s) or that point at private or link-local networks', async () => {
    const pushWith = (url: string) => call('POST', '/v2/push', { function: 'local/words', inputs: { text: 'x' }, webhooks: [{ type: 'job.complete', url }] });
    for (const url of ['ftp://example.com/hook', 'http://10.0.0.7/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/hook']) {
      const { status, body } = await pushWith(url);
      expect(status).toBe(422);
      expect(body.detail[0].loc).toEqual(['body', 'webhooks', 0, 'url']);
    }
    const edit = await call('POST', '/v2/functions/local/words/edit', { webhooks: { hooks: [{ type: 'job.start', url: 'http://192.168.1.1/x' }] } });
    expect(edit.status).toBe(422);
    expect(edit.body.detail[0].loc).toEqual(['body', 'webhooks', 'hooks', 0, 'url']);
  });

  it('uses the function’s webhooks unless the push gives its own', async () => {
    await call('POST', '/v2/functions/local/words/edit', { webhooks: { hooks: [{ type: 'job.complete', url: receiver.url('/from-function') }] } });
    await call('POST', '/v2/push', { function: 'local/words', inputs: { text: 'a' } });
    await receiver.waitFor('/from-function', 1);
    await call('POST', '/v2/push', { function: 'local/words', inputs: { text: 'b' }, webhooks: [{ type: 'job.complete', url: receiver.url('/from-push') }] });
    await receiver.waitFor('/from-push', 1);
    expect(receiver.at('/from-function')).toHaveLength(1);
    await call('POST', '/v2/functions/local/words/edit', { webhooks: { hooks: [] } });
  });

  it('sends a job’s events again on request, over HTTP and with the CLI', async () => {
    const jobId = await push('/again', ['job.start', 'job.complete']);
    await receiver.waitFor('/again', 2);
    const resent = (await call('POST', `/v2/jobs/${jobId}/webhooks/resend`)).body.data;
    expect(resent.map((d: any) => d.type)).toEqual(['job.start', 'job.complete']);
    const hooks = await receiver.waitFor('/again', 4);
    expect(hooks.slice(2).map((hook) => hook.body.type)).toEqual(['job.start', 'job.complete']);
    expect(hooks[2]!.headers['webhook-id']).not.toBe(hooks[0]!.headers['webhook-id']);
    const cli = await runCli(['webhooks', 'resend', jobId], { SLUICE_URL: service.url, SLUICE_API_KEY: service.key });
    expect(cli.stdout).toContain('Queued 2 deliveries');
    await receiver.waitFor('/again', 6);
  });
});

describe('webhook delivery across failures and restarts', () => {
  it('gives up after ten attempts and records the delivery as failed', async () => {
    const service = await startTestService({ SLUICE_WEBHOOK_RETRY_BASE_MS: '2' });
    try {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': WORDS }));
      await waitForBuild(service, 'local/words', deployed.body.version.id);
      // Port 9 (discard) on loopback refuses the connection.
      const { body } = await api(service.url, service.key, 'POST', '/v2/push', {
        function: 'local/words',
        inputs: { text: 'x' },
        webhooks: [{ type: 'job.complete', url: 'http://127.0.0.1:9/hook' }],
      });
      let delivery: any;
      await until(async () => {
        delivery = (await api(service.url, service.key, 'GET', `/v2/jobs/${body.id}/webhooks`)).body.data[0];
        return delivery?.state === 'failed';
      });
      expect(delivery.state).toBe('failed');
      expect(delivery.attempts).toHaveLength(10);
      expect(delivery.attempts[0].error).toMatch(/ECONNREFUSED/);
    } finally {
      await service.close();
    }
  });

  it('loses no pending delivery when the service restarts: it is sent once the service is back', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sluice-hooks-restart-'));
    // A port with no receiver yet: the first attempt is refused.
    const probe = await startWebhookReceiver();
    const port = probe.port;
    await probe.close();
    const env = { SLUICE_WEBHOOK_RETRY_BASE_MS: '1500' };
    const first = await startServiceProcess(dataDir, env, []);
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
    try {
      const target = { url: first.url, key: first.key } as TestService;
      const deployed = await deployDirectory(target, await writeFunctionDir({ 'main.py': WORDS }));
      await waitForBuild(target, 'local/words', deployed.body.version.id);
      const url = `http://127.0.0.1:${port}/later`;
      const { body } = await api(first.url, first.key, 'POST', '/v2/push', {
        function: 'local/words',
        inputs: { text: 'x' },
        webhooks: [{ type: 'job.complete', url }],
      });
      await until(async () => (await api(first.url, first.key, 'GET', `/v2/jobs/${body.id}/webhooks`)).body.data[0]?.attempts.length === 1);
      expect(await stopServiceProcess(first.child, 'SIGTERM')).toBe(0);

      receiver = await startWebhookReceiver(port);
      const second = await startServiceProcess(dataDir, env, []);
      try {
        const [hook] = await receiver.waitFor('/later', 1);
        expect(hook!.body).toMatchObject({ type: 'job.complete', body: { job_id: body.id, status: 'finished' } });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const [delivery] = (await api(second.url, second.key, 'GET', `/v2/jobs/${body.id}/webhooks`)).body.data;
        expect(delivery).toMatchObject({ state: 'delivered', attempts: [expect.objectContaining({ status: null }), expect.objectContaining({ status: 200 })] });
      } finally {
        await stopServiceProcess(second.child, 'SIGTERM');
      }
    } finally {
      await receiver?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
