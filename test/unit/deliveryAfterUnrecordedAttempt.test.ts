/**
 * The local webhook scheduler (shared/adapters/local/localDeliveryScheduler.ts) when an attempt
 * cannot be recorded: the soak found job.complete and job.new_output events never delivered
 * after the data directory's disk filled, the channel left holding them with nothing draining it.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import { LocalDeliveryScheduler } from '../../shared/adapters/local/localDeliveryScheduler.js';

const delivery = (id: string, sequence: number) =>
  ({ id, jobId: 'job-1', url: 'http://receiver.test/hook', sequence, nextAttemptAt: 0, state: 'pending' }) as WebhookDelivery;

describe('a webhook channel whose attempt could not be recorded', () => {
  it('attempts the delivery again, then the ones behind it', async () => {
    const attempts: string[] = [];
    const deliverer = {
      attempt: async (id: string) => {
        attempts.push(id);
        if (attempts.length === 1) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        return { ...delivery(id, 0), state: 'delivered' } as WebhookDelivery;
      },
    };
    const errors: unknown[] = [];
    const scheduler = new LocalDeliveryScheduler({} as never, { now: () => 0, nowNs: () => 0n }, deliverer as never, (error) => errors.push(error));
    await scheduler.schedule(delivery('start', 1));
    await scheduler.schedule(delivery('complete', 2));
    const deadline = Date.now() + 5_000;
    while (attempts.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await scheduler.stop();
    expect(attempts).toEqual(['start', 'start', 'complete']);
    expect(errors).toHaveLength(1);
  });
});
