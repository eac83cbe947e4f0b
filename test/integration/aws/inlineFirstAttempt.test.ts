import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Builder } from '../../../shared/ports/builder.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { JobLifecycle } from '../../../shared/services/jobLifecycle.js';
import { Sweeper, SWEEPER_DEFAULTS } from '../../../shared/services/sweeper.js';
import { startWebhookRig, type WebhookRig } from './support/webhookRig.js';

/**
 * On AWS a delivery's first attempt is made by the code that made the job's move; only what it
 * leaves pending (or what waits behind an earlier delivery) becomes a Step Functions execution.
 * The first attempt's bound is long here, so a receiver that hangs keeps it in flight.
 */
let rig: WebhookRig;

beforeAll(async () => {
  rig = await startWebhookRig({ firstAttemptTimeoutMs: 5000, senderTimeoutMs: 10_000 });
});
afterAll(async () => {
  await rig.close();
});

describe('the first attempt of a webhook delivery (AWS)', () => {
  it('delivers to a receiver answering 200 from the code that ended the job: one attempt, no execution started', async () => {
    const job = rig.aJobWithHooks('/ok', ['job.complete']);
    await rig.webhooks.onJobEvent({ type: 'completed', job });

    const [delivery] = await rig.store.deliveries.listByJob(job.id);
    expect(delivery).toMatchObject({ state: 'delivered', attempts: [{ status: 200, error: null }] });
    expect(rig.receiver.at('/ok').map((hook) => hook.headers['webhook-id'])).toEqual([delivery?.id]);
    expect(await rig.executions([delivery?.id])).toEqual([]);
    expect(rig.errors).toEqual([]);
  });

  it('retries a receiver that answered 500 through the state machine, which waits the backoff before attempting', async () => {
    rig.receiver.failNext('/flaky', 500);
    const job = rig.aJobWithHooks('/flaky', ['job.complete']);
    await rig.webhooks.onJobEvent({ type: 'completed', job });

    const [first] = await rig.store.deliveries.listByJob(job.id);
    const id = first?.id as string;
    expect(first).toMatchObject({ state: 'pending', attempts: [{ status: 500, error: 'HTTP 500' }] });
    // Named after the attempts so far; the retry's delay (1 s) is the run's first state.
    expect(await rig.executions([id])).toEqual([{ name: `${id}-1`, input: { deliveryId: id, waitSeconds: 1 } }]);

    const delivered = await rig.waitForDelivery(id, (delivery) => delivery.state === 'delivered');
    expect(delivered.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
    const [failed, retried] = rig.receiver.at('/flaky');
    expect(retried?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
    expect((retried?.at ?? 0) - (failed?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(await rig.executions([id])).toHaveLength(1);
  });

  it('makes one first attempt and starts one run for a delivery scheduled twice', async () => {
    rig.receiver.failNext('/twice', 500);
    const job = rig.aJobWithHooks('/twice', ['job.complete']);
    await rig.webhooks.onJobEvent({ type: 'completed', job });
    const [delivery] = await rig.store.deliveries.listByJob(job.id);
    await rig.scheduler.schedule(delivery as NonNullable<typeof delivery>);

    expect(rig.receiver.at('/twice')).toHaveLength(1);
    expect((await rig.store.deliveries.get(delivery?.id as string))?.attempts).toHaveLength(1);
    expect(await rig.executions([delivery?.id])).toEqual([{ name: `${delivery?.id}-1`, input: { deliveryId: delivery?.id, waitSeconds: 1 } }]);
  });

  it('keeps a job’s deliveries to one URL in order: one behind a pending delivery waits in a run, and goes after it', async () => {
    rig.receiver.failNext('/ordered', 500);
    const job = rig.aJobWithHooks('/ordered', ['job.start', 'job.complete']);
    await rig.webhooks.onJobEvent({ type: 'started', job });
    await rig.webhooks.onJobEvent({ type: 'completed', job });

    const [start, complete] = await rig.store.deliveries.listByJob(job.id);
    expect([start?.eventType, complete?.eventType]).toEqual(['job.start', 'job.complete']);
    // job.complete was held: no attempt yet, a run that first waits for job.start's retry.
    expect(complete?.attempts).toEqual([]);
    expect(rig.receiver.at('/ordered')).toHaveLength(1);
    const executions = await rig.executions([start?.id, complete?.id]);
    expect(executions).toEqual([
      { name: `${start?.id}-1`, input: { deliveryId: start?.id, waitSeconds: 1 } },
      { name: `${complete?.id}-0`, input: { deliveryId: complete?.id, waitSeconds: expect.any(Number) } },
    ]);

    await rig.waitForDelivery(complete?.id as string, (delivery) => delivery.state === 'delivered');
    expect(rig.receiver.at('/ordered').map((hook) => [hook.body.type, hook.headers['webhook-id']])).toEqual([
      ['job.start', start?.id],
      ['job.start', start?.id],
      ['job.complete', complete?.id],
    ]);
  });

  it('leaves a delivery whose first attempt dies with its process due and pending, so the sweeper starts its run', async () => {
    rig.receiver.hang('/dies');
    const job = rig.aJobWithHooks('/dies', ['job.complete']);
    const move = rig.webhooks.onJobEvent({ type: 'completed', job }) as Promise<void>;
    await rig.receiver.waitFor('/dies', 1);

    // The attempt is under way: nothing more is written until it answers, so the store holds
    // what a process killed now would leave behind.
    const [left] = await rig.store.deliveries.listByJob(job.id);
    expect(left).toMatchObject({ state: 'pending', attempts: [] });
    expect(left?.nextAttemptAt).toBeLessThanOrEqual(Date.now() * 1000);
    expect(await rig.executions([left?.id])).toEqual([]);

    // Another process's sweep, past the sweeper's threshold for overdue deliveries (the other
    // specs' deliveries, pending in the same store, are swept too).
    const later: Clock = { now: () => Date.now() * 1000 + (SWEEPER_DEFAULTS.overdueDeliverySeconds + 60) * 1e6, nowNs: () => 0n };
    const idle = {} as Builder & JobLifecycle; // no stuck version or expired job to act on here
    const report = await new Sweeper(rig.store, idle, rig.scheduler, rig.deliverer, idle, later).sweep();
    expect(report.deliveriesRestarted).toContain(left?.id);
    expect(await rig.executions([left?.id])).toEqual([{ name: `${left?.id}-0`, input: { deliveryId: left?.id } }]);
    await move;
  });
});
