import { describe, expect, it } from 'vitest';
import type { DeliveryAttempt, DeliveryState, WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import { aDelivery } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

/** Microsecond times past 2^50, as the clock gives them. */
const T = 1_732_000_000_000_000;
const ids = (deliveries: WebhookDelivery[]) => deliveries.map((delivery) => delivery.id);
const failedAttempt = (at: number): DeliveryAttempt => ({ at, status: 503, error: 'HTTP 503' });
const deliveredAttempt = (at: number): DeliveryAttempt => ({ at, status: 200, error: null });

export function describeDeliveryContract(store: CurrentStore): void {
  /** Creates them in order; a tuple in, the same tuple out. */
  const createAll = async <T extends WebhookDelivery[]>(...deliveries: T): Promise<T> => {
    for (const delivery of deliveries) await store().deliveries.create(delivery);
    return deliveries;
  };

  describe('webhook deliveries', () => {
    it('get returns the delivery as created: payload exactly, attempts, states and large numbers', async () => {
      const delivery = aDelivery({
        eventType: 'job.new_output',
        payload: '{ "type" : "job.new_output",\n  "data": [1e300, -0.0, "\\u00e9", "é", "𝄞", ""] }  ',
        sequence: T + 123_456_789,
        attempts: [failedAttempt(T + 1), { at: T + 2, status: null, error: 'connect ECONNREFUSED' }, deliveredAttempt(T + 3)],
        state: 'delivered',
        nextAttemptAt: T + 4_000_000,
        createdAt: T + 5,
      });
      await store().deliveries.create(delivery);
      expect(await store().deliveries.get(delivery.id)).toEqual(delivery);
      expect((await store().deliveries.get(delivery.id))?.payload).toBe(delivery.payload);
    });

    it('get round-trips a pending delivery with no attempts and an empty payload', async () => {
      const delivery = aDelivery({ payload: '', attempts: [] });
      await store().deliveries.create(delivery);
      expect(await store().deliveries.get(delivery.id)).toEqual(delivery);
    });

    it('keeps a 1 MB payload (an output event of a large output) exactly, in gets, lists and attempts', async () => {
      const delivery = aDelivery({ eventType: 'job.new_output', payload: JSON.stringify({ data: 'é'.repeat(500_000) }) });
      await store().deliveries.create(delivery);
      expect(await store().deliveries.get(delivery.id)).toEqual(delivery);
      expect(await store().deliveries.listByJob(delivery.jobId)).toEqual([delivery]);
      expect(await store().deliveries.listPending()).toEqual([delivery]);
      expect((await store().deliveries.recordAttempt(delivery.id, deliveredAttempt(T + 1), 'delivered', T + 1))?.payload).toBe(delivery.payload);
    });

    it('keeps the time of the resend that made a delivery, in gets, job lists and attempts (the resend limit counts them)', async () => {
      const resent = aDelivery({ jobId: 'job-resent', sequence: T + 1, resentAt: T + 7 });
      const own = aDelivery({ jobId: 'job-resent', sequence: T + 2 });
      await createAll(resent, own);
      expect(await store().deliveries.get(resent.id)).toEqual(resent);
      expect((await store().deliveries.listByJob('job-resent')).map((delivery) => delivery.resentAt)).toEqual([T + 7, undefined]);
      expect((await store().deliveries.recordAttempt(resent.id, deliveredAttempt(T + 8), 'delivered', T + 8))?.resentAt).toBe(T + 7);
    });

    it('keeps the index of the output a job.new_output delivery carries, in gets, job lists and attempts (each attempt signs that output’s Files)', async () => {
      const output = aDelivery({ jobId: 'job-output', eventType: 'job.new_output', outputIndex: 3 });
      await createAll(output);
      expect(await store().deliveries.get(output.id)).toEqual(output);
      expect((await store().deliveries.listByJob('job-output'))[0]?.outputIndex).toBe(3);
      expect((await store().deliveries.recordAttempt(output.id, deliveredAttempt(T + 8), 'delivered', T + 8))?.outputIndex).toBe(3);
    });

    it('get returns null for an unknown id', async () => {
      expect(await store().deliveries.get('no-such-id')).toBeNull();
    });

    it('stores a delivery made again under the same id once, keeping the first', async () => {
      const delivery = aDelivery();
      expect(await store().deliveries.create(delivery)).toBe(true);
      expect(await store().deliveries.create(aDelivery({ id: delivery.id, url: 'https://other.example.com/' }))).toBe(false);
      expect(await store().deliveries.get(delivery.id)).toEqual(delivery);
      expect(await store().deliveries.listByJob(delivery.jobId)).toEqual([delivery]);
    });

    it('recordAttempt appends the attempt, sets state and nextAttemptAt, and returns the updated delivery', async () => {
      const delivery = aDelivery();
      await store().deliveries.create(delivery);
      const expected = { ...delivery, attempts: [deliveredAttempt(T + 10)], state: 'delivered', nextAttemptAt: T + 10 };
      expect(await store().deliveries.recordAttempt(delivery.id, deliveredAttempt(T + 10), 'delivered', T + 10)).toEqual(expected);
      expect(await store().deliveries.get(delivery.id)).toEqual(expected);
    });

    it('recordAttempt keeps a retried delivery pending and appends each attempt after the last', async () => {
      const delivery = aDelivery();
      await store().deliveries.create(delivery);
      await store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 1), 'pending', T + 1_000_000);
      const second = await store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 2), 'pending', T + 3_000_000);
      const expected = { ...delivery, attempts: [failedAttempt(T + 1), failedAttempt(T + 2)], state: 'pending', nextAttemptAt: T + 3_000_000 };
      expect(second).toEqual(expected);
      const third = await store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 3), 'failed', T + 3_000_000);
      expect(third).toEqual({ ...expected, attempts: [...expected.attempts, failedAttempt(T + 3)], state: 'failed' });
    });

    it.each<DeliveryState>(['delivered', 'failed'])('recordAttempt returns null and changes nothing once the delivery is %s', async (state) => {
      const delivery = aDelivery({ state, attempts: [failedAttempt(T + 1)] });
      await store().deliveries.create(delivery);
      expect(await store().deliveries.recordAttempt(delivery.id, deliveredAttempt(T + 2), 'delivered', T + 2)).toBeNull();
      expect(await store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 3), 'pending', T + 3)).toBeNull();
      expect(await store().deliveries.get(delivery.id)).toEqual(delivery);
    });

    it('recordAttempt returns null for an unknown id and creates nothing', async () => {
      expect(await store().deliveries.recordAttempt('no-such-id', deliveredAttempt(T), 'delivered', T)).toBeNull();
      expect(await store().deliveries.get('no-such-id')).toBeNull();
    });

    it('two attempts recorded at once on a pending delivery both stay: none is lost', async () => {
      const delivery = aDelivery();
      await store().deliveries.create(delivery);
      await Promise.all([
        store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 1), 'pending', T + 10),
        store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 2), 'pending', T + 20),
      ]);
      const stored = await store().deliveries.get(delivery.id);
      expect(stored?.state).toBe('pending');
      expect(stored?.attempts).toHaveLength(2);
      expect(stored?.attempts).toEqual(expect.arrayContaining([failedAttempt(T + 1), failedAttempt(T + 2)]));
    });

    it('of two attempts recorded at once that both end the delivery, exactly one applies', async () => {
      const delivery = aDelivery();
      await store().deliveries.create(delivery);
      const results = await Promise.all([
        store().deliveries.recordAttempt(delivery.id, deliveredAttempt(T + 1), 'delivered', T + 1),
        store().deliveries.recordAttempt(delivery.id, failedAttempt(T + 2), 'failed', T + 2),
      ]);
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store().deliveries.get(delivery.id)).toEqual(winners[0]);
      expect(winners[0]?.attempts).toHaveLength(1);
    });

    it("listByJob returns a job's deliveries ordered by URL, then sequence, and no other job's", async () => {
      const [b2, a1, b1, a3] = await createAll(
        aDelivery({ url: 'https://b.example.com/', sequence: T + 2, createdAt: T }),
        aDelivery({ url: 'https://a.example.com/', sequence: T + 1, createdAt: T + 9 }),
        aDelivery({ url: 'https://b.example.com/', sequence: T + 1, createdAt: T + 5 }),
        aDelivery({ url: 'https://a.example.com/', sequence: T + 30, state: 'delivered' }),
      );
      await createAll(aDelivery({ jobId: 'job-2', url: 'https://a.example.com/' }));
      expect(ids(await store().deliveries.listByJob('job-1'))).toEqual(ids([a1, a3, b1, b2]));
    });

    it('listByJob orders a URL before the longer URLs it begins', async () => {
      const [longer, shorter, other] = await createAll(
        aDelivery({ url: 'https://a.example.com/hook!', sequence: 1 }),
        aDelivery({ url: 'https://a.example.com/hook', sequence: 2 }),
        aDelivery({ url: 'https://a.example.com/hook/2', sequence: 0 }),
      );
      expect(ids(await store().deliveries.listByJob('job-1'))).toEqual(ids([shorter, longer, other]));
    });

    it('listByJob returns an empty list for a job with no deliveries', async () => {
      await createAll(aDelivery());
      expect(await store().deliveries.listByJob('job-2')).toEqual([]);
    });

    it('listPending returns only pending deliveries, oldest first by createdAt, then sequence', async () => {
      const [late, , early2, , early1, otherJob] = await createAll(
        aDelivery({ createdAt: T + 100, sequence: T + 100 }),
        aDelivery({ createdAt: T, sequence: T, state: 'delivered', attempts: [deliveredAttempt(T)] }),
        aDelivery({ createdAt: T + 1, sequence: T + 7 }),
        aDelivery({ createdAt: T, sequence: T + 1, state: 'failed' }),
        aDelivery({ createdAt: T + 1, sequence: T + 6 }),
        aDelivery({ jobId: 'job-2', createdAt: T + 50, sequence: T + 50 }),
      );
      expect(ids(await store().deliveries.listPending())).toEqual(ids([early1, early2, otherJob, late]));
      expect(await store().deliveries.listPending()).toContainEqual(late);
    });

    it('a delivery leaves listPending once delivered or failed, and stays while it is retried', async () => {
      const [retried, delivered, failed] = await createAll(aDelivery({ createdAt: T }), aDelivery({ createdAt: T + 1 }), aDelivery({ createdAt: T + 2 }));
      await store().deliveries.recordAttempt(retried.id, failedAttempt(T + 3), 'pending', T + 1_000_000);
      await store().deliveries.recordAttempt(delivered.id, deliveredAttempt(T + 3), 'delivered', T + 3);
      await store().deliveries.recordAttempt(failed.id, failedAttempt(T + 3), 'failed', T + 3);
      const pending = await store().deliveries.listPending();
      expect(ids(pending)).toEqual([retried.id]);
      expect(pending[0]?.attempts).toEqual([failedAttempt(T + 3)]);
      expect(pending[0]?.nextAttemptAt).toBe(T + 1_000_000);
    });

    it('listOverdue returns pending deliveries due before the bound, earliest due first, at most `limit`', async () => {
      const [late, , early, , middle] = await createAll(
        aDelivery({ nextAttemptAt: T + 30, createdAt: T }),
        aDelivery({ nextAttemptAt: T + 100, createdAt: T }),
        aDelivery({ nextAttemptAt: T + 10, createdAt: T + 5, jobId: 'job-2' }),
        aDelivery({ nextAttemptAt: T + 1, state: 'failed' }),
        aDelivery({ nextAttemptAt: T + 20, createdAt: T + 1 }),
      );
      expect(ids(await store().deliveries.listOverdue(T + 100, 10))).toEqual(ids([early, middle, late]));
      expect(ids(await store().deliveries.listOverdue(T + 100, 2))).toEqual(ids([early, middle]));
      expect(await store().deliveries.listOverdue(T + 10, 10)).toEqual([]);
      expect(await store().deliveries.listOverdue(T + 11, 10)).toEqual([early]);
    });

    it('listOverdue goes on after the delivery a page ended with, ties in due time ordered by id', async () => {
      const deliveries = await createAll(
        ...[T + 5, T + 5, T + 5, T + 7, T + 9].map((nextAttemptAt, index) => aDelivery({ id: `d-${index}`, nextAttemptAt, createdAt: T })),
      );
      const first = await store().deliveries.listOverdue(T + 100, 2);
      expect(ids(first)).toEqual(['d-0', 'd-1']);
      const second = await store().deliveries.listOverdue(T + 100, 2, { nextAttemptAt: T + 5, id: 'd-1' });
      expect(ids(second)).toEqual(['d-2', 'd-3']);
      const third = await store().deliveries.listOverdue(T + 100, 2, { nextAttemptAt: T + 7, id: 'd-3' });
      expect(ids(third)).toEqual(['d-4']);
      expect(await store().deliveries.listOverdue(T + 100, 2, { nextAttemptAt: T + 9, id: 'd-4' })).toEqual([]);
      expect(deliveries).toHaveLength(5);
    });

    it('listOverdue follows recorded attempts: a retry is due at its new time, an ended delivery is gone', async () => {
      const [retried, ended] = await createAll(aDelivery({ nextAttemptAt: T }), aDelivery({ nextAttemptAt: T }));
      await store().deliveries.recordAttempt(retried.id, failedAttempt(T + 1), 'pending', T + 500);
      await store().deliveries.recordAttempt(ended.id, deliveredAttempt(T + 1), 'delivered', T + 1);
      expect(await store().deliveries.listOverdue(T + 500, 10)).toEqual([]);
      expect(ids(await store().deliveries.listOverdue(T + 501, 10))).toEqual([retried.id]);
    });

    it('a delivery to a very long URL is stored, listed by job and listed as pending', async () => {
      const url = `https://hooks.example.com/${'é/'.repeat(1500)}?q=${'x'.repeat(1000)}`;
      const [long, short] = await createAll(aDelivery({ url, sequence: 1 }), aDelivery({ url: 'https://hooks.example.com/', sequence: 2 }));
      expect(await store().deliveries.get(long.id)).toEqual(long);
      expect(ids(await store().deliveries.listByJob('job-1'))).toEqual(ids([short, long]));
      expect(await store().deliveries.listPending()).toContainEqual(long);
    });
  });
}
