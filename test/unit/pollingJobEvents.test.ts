import { describe, expect, it } from 'vitest';
import { createPollingJobEvents } from '../../shared/adapters/aws/pollingJobEvents.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import { aJob } from '../support/fixtures.js';

describe('JobEvents by polling (the AWS mode’s await)', () => {
  it('tells a waiter once its job has ended, found by reading the store', async () => {
    const store = createSqliteStore(':memory:');
    const job = aJob({ status: 'processing' });
    await store.jobs.create(job);
    const events = createPollingJobEvents(store, 10);
    const seen: JobEvent[] = [];
    events.subscribe(job.id, (event) => seen.push(event));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.map((event) => [event.type, event.job.status])).toEqual([['completed', 'finished']]);
  });

  it('stops reading once unsubscribed', async () => {
    const store = createSqliteStore(':memory:');
    const job = aJob({ status: 'processing' });
    await store.jobs.create(job);
    const seen: JobEvent[] = [];
    const unsubscribe = createPollingJobEvents(store, 10).subscribe(job.id, (event) => seen.push(event));
    unsubscribe();
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
  });
});
