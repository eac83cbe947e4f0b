import { describe, expect, it } from 'vitest';
import { aJob } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

/** A job's record and its moves: create, get, statusOf, transition (the guard every move relies on). */
export function describeJobContract(store: CurrentStore): void {
  describe('jobs', () => {
    it('get returns the job as created: nested inputs, env, webhooks and null fields included', async () => {
      const job = aJob();
      await store().jobs.create(job);
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('get round-trips a restarted child job with its times, run id, error and restarts', async () => {
      const job = aJob({
        status: 'error',
        startedAt: 2,
        completedAt: 3,
        error: 'Traceback:\n  boom',
        visibility: 'public',
        runId: 'run-2',
        inputs: {},
        env: {},
        webhooks: [],
        source: 'dashboard',
        parentJobId: 'parent-1',
        restarts: [{ timestamp: 1, reason: 'replica died', type: 'OOM', run_id: 'run-1' }],
        attempts: 2,
      });
      await store().jobs.create(job);
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('get returns null for an unknown id', async () => {
      expect(await store().jobs.get('no-such-id')).toBeNull();
    });

    it('statusOf reads a job’s current status, and null for an unknown id', async () => {
      const job = aJob({ status: 'processing' });
      await store().jobs.create(job);
      await store().jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
      expect(await store().jobs.statusOf(job.id)).toBe('finished');
      expect(await store().jobs.statusOf('no-such-id')).toBeNull();
    });

    it('create refuses a second job with the same id', async () => {
      const job = aJob();
      await store().jobs.create(job);
      await expect(store().jobs.create(aJob({ id: job.id, functionId: 'function-2' }))).rejects.toThrow();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition applies the patch when the status is one of `from`, and returns the updated job', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const expected = { ...job, status: 'processing', startedAt: 10, runId: 'run-1', attempts: 1 };
      expect(
        await store().jobs.transition(job.id, ['queued', 'processing'], { status: 'processing', startedAt: 10, runId: 'run-1', countAttempt: true }),
      ).toEqual(expected);
      expect(await store().jobs.get(job.id)).toEqual(expected);
    });

    it('transition returns null and changes nothing when the status is not one of `from`', async () => {
      const job = aJob({ status: 'cancelled', completedAt: 5 });
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, ['queued', 'processing'], { status: 'finished', completedAt: 9 })).toBeNull();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition returns null for an unknown id and creates nothing', async () => {
      expect(await store().jobs.transition('no-such-id', ['queued'], { status: 'processing' })).toBeNull();
      expect(await store().jobs.get('no-such-id')).toBeNull();
    });

    it('transition with no `from` statuses never applies', async () => {
      const job = aJob();
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, [], { status: 'processing' })).toBeNull();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition writes nulls and restarts, and leaves fields outside the patch (or undefined in it) as they were', async () => {
      const job = aJob({ status: 'processing', startedAt: 10, runId: 'run-1', attempts: 1 });
      await store().jobs.create(job);
      const restarts = [{ timestamp: 20, reason: 'replica lost', type: 'preemption' as const, run_id: 'run-1' }];
      const updated = await store().jobs.transition(job.id, ['processing'], {
        status: 'queued',
        startedAt: null,
        runId: 'run-2',
        restarts,
        completedAt: undefined,
      });
      const expected = { ...job, status: 'queued', startedAt: null, runId: 'run-2', restarts };
      expect(updated).toEqual(expected);
      expect(await store().jobs.get(job.id)).toEqual(expected);
    });

    it('a move that counts an attempt adds one to the attempts the store holds, without a read before it', async () => {
      const job = aJob({ attempts: 2 });
      await store().jobs.create(job);
      const started = await store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10, countAttempt: true });
      expect(started?.attempts).toBe(3);
      expect((await store().jobs.get(job.id))?.attempts).toBe(3);
    });

    it('a move with deferred durability is decided at once, and is durable once durable() resolves', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const [moved, lost] = [
        await store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10 }, { deferDurability: true }),
        await store().jobs.transition(job.id, ['queued'], { status: 'cancelled', completedAt: 10 }, { deferDurability: true }),
      ];
      expect(moved?.status).toBe('processing');
      expect(lost).toBeNull();
      await store().durable();
      expect((await store().jobs.get(job.id))?.status).toBe('processing');
    });

    it('transition with an empty patch only checks the guard', async () => {
      const job = aJob({ status: 'processing' });
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, ['processing'], {})).toEqual(job);
      expect(await store().jobs.transition(job.id, ['queued'], {})).toBeNull();
    });

    it('of two racing transitions from queued, exactly one wins', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const results = await Promise.all([
        store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10, countAttempt: true }),
        store().jobs.transition(job.id, ['queued'], { status: 'cancelled', completedAt: 10 }),
      ]);
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store().jobs.get(job.id)).toEqual(winners[0]);
    });
  });
}
