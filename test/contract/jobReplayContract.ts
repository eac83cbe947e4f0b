import { describe, expect, it } from 'vitest';
import { aJob } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

/** A job's replays (POST /v2/jobs/{id}/replay): the links the original keeps to the jobs that replay it. */
export function describeJobReplayContract(store: CurrentStore): void {
  describe('job replays', () => {
    it('addReplay lists replays on the job, oldest first, whatever its status, and its moves keep them', async () => {
      const job = aJob();
      await store().jobs.create(job);
      await store().jobs.addReplay(job.id, 'replay-1', 20);
      await store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 5, countAttempt: true }, { deferDurability: true });
      await store().jobs.addReplay(job.id, 'replay-2', 20);
      await store().jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 });
      await store().jobs.addReplay(job.id, 'replay-3', 20);
      expect(await store().jobs.get(job.id)).toEqual({
        ...job,
        status: 'finished',
        startedAt: 5,
        completedAt: 9,
        attempts: 1,
        replays: ['replay-1', 'replay-2', 'replay-3'],
      });
    });

    it('addReplay keeps only the last `keep` replays', async () => {
      const job = aJob({ status: 'error', completedAt: 3 });
      await store().jobs.create(job);
      for (const n of [1, 2, 3, 4, 5]) await store().jobs.addReplay(job.id, `replay-${n}`, 3);
      expect((await store().jobs.get(job.id))?.replays).toEqual(['replay-3', 'replay-4', 'replay-5']);
    });

    it('addReplay calls made at once all count', async () => {
      const job = aJob({ status: 'finished', completedAt: 3 });
      await store().jobs.create(job);
      const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
      await Promise.all(ids.map((id) => store().jobs.addReplay(job.id, id, 20)));
      expect([...((await store().jobs.get(job.id))?.replays ?? [])].sort()).toEqual(ids);
    });

    it('addReplay on an unknown job changes nothing', async () => {
      await store().jobs.addReplay('no-such-job', 'replay-1', 20);
      expect(await store().jobs.get('no-such-job')).toBeNull();
    });
  });
}
