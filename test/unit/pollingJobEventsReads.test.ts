import { describe, expect, it } from 'vitest';
import { createPollingJobEvents } from '../../shared/adapters/aws/pollingJobEvents.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import type { Store } from '../../shared/ports/store.js';
import { aJob } from '../support/fixtures.js';

/** The store, counting what a waiter reads of it: the status alone, or the whole job. */
function countingReads(store: Store) {
  const reads = { status: 0, whole: 0 };
  const jobs = Object.create(store.jobs) as Store['jobs'];
  jobs.get = (id) => {
    reads.whole += 1;
    return store.jobs.get(id);
  };
  jobs.statusOf = async (id) => {
    reads.status += 1;
    return (await store.jobs.get(id))?.status ?? null;
  };
  return { store: { ...store, jobs } as Store, reads };
}

describe('a waiter’s polls on AWS read only what changed', () => {
  it('reads the job’s status while it runs, and the whole job once, when it has ended', async () => {
    const backing = createSqliteStore(':memory:');
    const job = aJob({ status: 'processing' });
    await backing.jobs.create(job);
    const { store, reads } = countingReads(backing);
    const seen: JobEvent[] = [];
    const unsubscribe = createPollingJobEvents(store, 10).subscribe(job.id, (event) => seen.push(event));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads.status).toBeGreaterThan(2);
    expect(reads.whole).toBe(0);
    await backing.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    unsubscribe();
    expect(seen.map((event) => [event.type, event.job.status])).toEqual([['completed', 'finished']]);
    expect(reads.whole).toBe(1);
  });
});
