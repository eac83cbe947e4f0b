import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared/domain/job.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import type { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { StartDeadlines } from '../../shared/services/startDeadlines.js';
import { Sweeper } from '../../shared/services/sweeper.js';
import type { WebhookDeliverer } from '../../shared/services/webhookDeliverer.js';
import type { Builder } from '../../shared/ports/builder.js';
import type { DeliveryScheduler } from '../../shared/ports/deliveryScheduler.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { LifecycleHarness } from '../support/lifecycleHarness.js';
import { lifecycleOver } from '../support/lifecycleHarness.js';

const PUSHED = 1_800_000_000_000_000;
const SECOND = 1_000_000;
let now = PUSHED;
const clock: Clock = { now: () => now, nowNs: () => BigInt(now) * 1000n };

let store: Store;
let lifecycle: JobLifecycle;
let heard: JobEvent[];
let pushed: LifecycleHarness['pushed'];

beforeEach(() => {
  now = PUSHED;
  ({ store, lifecycle, heard, pushed } = lifecycleOver(createSqliteStore(':memory:'), clock));
});
afterEach(async () => {
  await store.close();
});

const MISSED = 'The job did not start within its start_timeout of 30 s.';

describe('start deadlines', () => {
  it('cancels a job taken after its start_timeout instead of starting it: never started, so no usage, and waiters hear of it', async () => {
    const job = await pushed({ startTimeoutSeconds: 30 });
    now = PUSHED + 31 * SECOND;
    expect(await lifecycle.start(job.id)).toBeNull();
    expect(await store.jobs.get(job.id)).toMatchObject({ status: 'cancelled', error: MISSED, startedAt: null, completedAt: now });
    expect(heard.map((event) => [event.type, event.job.status])).toEqual([['completed', 'cancelled']]);
  });

  it('starts a job taken within its start_timeout, and one without a start_timeout however late', async () => {
    const timely = await pushed({ startTimeoutSeconds: 30 });
    const patient = await pushed({});
    now = PUSHED + 30 * SECOND;
    expect((await lifecycle.start(timely.id))?.status).toBe('processing');
    now = PUSHED + 1000 * SECOND;
    expect((await lifecycle.start(patient.id))?.status).toBe('processing');
  });

  it('does not hold a job to its start_timeout once it has started: a retry or a crash restart runs however late', async () => {
    const job = await pushed({ startTimeoutSeconds: 30, maxRetries: 1 });
    const running = (await lifecycle.start(job.id)) as JobRecord;
    await lifecycle.fail(running, 'ValueError: once', { retryable: true });
    now = PUSHED + 60 * SECOND;
    expect((await lifecycle.start(job.id))?.status).toBe('processing');
    expect(await new StartDeadlines(store, lifecycle, clock).expire()).toEqual([]);
  });

  it('cancels, in a pass, the queued jobs nobody started by their deadline, and only those', async () => {
    const late = await pushed({ startTimeoutSeconds: 30 });
    const early = await pushed({ startTimeoutSeconds: 120 });
    const patient = await pushed({});
    const requeued = await pushed({ startTimeoutSeconds: 30 });
    await lifecycle.interrupt((await lifecycle.start(requeued.id)) as JobRecord, 'preemption', 'The service stopped while the job ran.');
    now = PUSHED + 31 * SECOND;

    expect(await new StartDeadlines(store, lifecycle, clock).expire()).toEqual([late.id]);
    expect(await store.jobs.get(late.id)).toMatchObject({ status: 'cancelled', error: MISSED, startedAt: null });
    for (const job of [early, patient, requeued]) expect((await store.jobs.get(job.id))?.status).toBe('queued');
    expect(heard.filter((event) => event.type === 'completed').map((event) => event.job.id)).toEqual([late.id]);
  });

  it('cancels each watched job once its deadline has come, reading no queued job it was not told of (the local mode: a long queue without deadlines costs nothing)', async () => {
    const deadlines = new StartDeadlines(store, lifecycle, clock);
    const late = await pushed({ startTimeoutSeconds: 30 });
    const later = await pushed({ startTimeoutSeconds: 60 });
    const started = await pushed({ startTimeoutSeconds: 30 });
    const unwatched = await pushed({ startTimeoutSeconds: 30 });
    for (const job of [late, later, started]) deadlines.watch(job);
    await lifecycle.start(started.id);
    const reads: string[] = [];
    const get = store.jobs.get.bind(store.jobs);
    store.jobs.get = (id) => (reads.push(id), get(id));
    store.jobs.listQueuedBefore = () => Promise.reject(new Error('the watched pass scans no list'));

    now = PUSHED + 31 * SECOND;
    expect(await deadlines.expireWatched()).toEqual([late.id]);
    expect(reads.sort()).toEqual([late.id, started.id].sort());
    expect((await store.jobs.get(later.id))?.status).toBe('queued');
    expect((await store.jobs.get(unwatched.id))?.status).toBe('queued');
    now = PUSHED + 61 * SECOND;
    expect(await deadlines.expireWatched()).toEqual([later.id]);
    expect(await deadlines.expireWatched()).toEqual([]);
  });

  it("is part of the sweeper's pass (the AWS mode's only one), reported by job", async () => {
    const late = await pushed({ startTimeoutSeconds: 30 });
    now = PUSHED + 90 * SECOND;
    const unused = {} as never;
    const sweeper = new Sweeper(store, unused as Builder, unused as DeliveryScheduler, unused as WebhookDeliverer, lifecycle, clock);
    expect(await sweeper.sweep()).toMatchObject({ jobsPastStartDeadline: [late.id], failures: [] });
    expect((await store.jobs.get(late.id))?.status).toBe('cancelled');
  });
});
