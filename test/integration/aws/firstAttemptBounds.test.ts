import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookRig, type WebhookRig } from './support/webhookRig.js';

/** The code that ends a job waits for its webhooks' first attempts (AWS): a slow receiver holds it for the first attempt's bound at most. */
const BOUND_MS = 300;
let rig: WebhookRig;

beforeAll(async () => {
  rig = await startWebhookRig({ firstAttemptTimeoutMs: BOUND_MS, senderTimeoutMs: 5000 });
});
afterAll(async () => {
  await rig.close();
});

const timed = async (work: () => Promise<unknown>) => {
  const began = performance.now();
  await work();
  return performance.now() - began;
};

describe('the first attempt’s bounds (AWS)', () => {
  it('holds a job’s move for the bound, not the sender’s timeout, when its receiver does not answer; the attempt is recorded and its retry left to a run', async () => {
    rig.receiver.hang('/silent');
    const job = rig.aJobWithHooks('/silent', ['job.complete']);
    const elapsed = await timed(() => rig.webhooks.onJobEvent({ type: 'completed', job }) as Promise<void>);

    expect(elapsed).toBeGreaterThanOrEqual(BOUND_MS);
    expect(elapsed).toBeLessThan(2500);
    const [delivery] = await rig.store.deliveries.listByJob(job.id);
    expect(delivery).toMatchObject({ state: 'pending', attempts: [{ status: null, error: 'no answer within 0.3 s' }] });
    expect(await rig.executions([delivery?.id])).toEqual([{ name: `${delivery?.id}-1`, input: { deliveryId: delivery?.id, waitSeconds: 1 } }]);
  });

  it('sends the rest of a job’s deliveries to runs at once once its first attempts took the bound, so many slow receivers cannot add up', async () => {
    for (const path of ['/slow-a', '/slow-b', '/slow-c']) rig.receiver.hang(path);
    const job = rig.aJobWithHooks('/slow-a', ['job.complete']);
    job.webhooks.push({ type: 'job.complete', url: rig.receiver.url('/slow-b') }, { type: 'job.complete', url: rig.receiver.url('/slow-c') });
    const elapsed = await timed(() => rig.webhooks.onJobEvent({ type: 'completed', job }) as Promise<void>);

    expect(elapsed).toBeLessThan(2500);
    const [a, b, c] = await rig.store.deliveries.listByJob(job.id);
    expect([a?.attempts.length, b?.attempts.length, c?.attempts.length]).toEqual([1, 0, 0]);
    expect(await rig.executions([a?.id, b?.id, c?.id])).toEqual([
      { name: `${a?.id}-1`, input: { deliveryId: a?.id, waitSeconds: 1 } },
      { name: `${b?.id}-0`, input: { deliveryId: b?.id } },
      { name: `${c?.id}-0`, input: { deliveryId: c?.id } },
    ]);
  });
});
