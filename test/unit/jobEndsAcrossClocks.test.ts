import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobRecord } from '../../shared/domain/job.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Compute } from '../../shared/ports/compute.js';
import type { Store } from '../../shared/ports/store.js';
import { JobCancels } from '../../shared/services/jobCancels.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';
import type { JobViews } from '../../shared/services/jobViews.js';
import { aJob } from '../support/fixtures.js';
import { lifecycleOver } from '../support/lifecycleHarness.js';

/**
 * On AWS a job's start and its end may be stamped by two machines (a worker task starts it, the
 * cancel route's Lambda ends it), whose clocks differ; the soak found cancelled jobs that ended
 * seconds before they started, which the usage report (never negative) then disagreed with.
 */
const STARTED = 1_800_000_000_000_000;
const behind = (micros: number): Clock => ({ now: () => STARTED - micros, nowNs: () => BigInt(STARTED - micros) * 1000n });

let store: Store;
beforeEach(() => {
  store = createSqliteStore(':memory:');
});
afterEach(async () => store.close());

const running = async (): Promise<JobRecord> => {
  const job = aJob({ status: 'processing', startedAt: STARTED, runId: 'run-0', webhooks: [] });
  await store.jobs.create(job);
  return job;
};

describe('a job stamped by machines whose clocks differ', () => {
  it('is cancelled no earlier than it started, by a canceller whose clock is behind the worker’s', async () => {
    const job = await running();
    const notifier = new JobNotifier(
      createMemoryJobEvents(),
      () => undefined,
      () => store.durable(),
    );
    const views = { one: (record: JobRecord) => record } as unknown as JobViews;
    const compute = { stopJob: () => undefined } as unknown as Compute;
    const cancels = new JobCancels({ store, compute, notifier, views, clock: behind(3_000_000) });

    await cancels.cancel({ organizationId: job.organizationId, organizationName: 'local' }, job.id);

    const stored = await store.jobs.get(job.id);
    expect(stored?.status).toBe('cancelled');
    expect(stored?.completedAt).toBe(STARTED);
  });

  it('finishes no earlier than it started, on a worker whose clock is behind the one that started it', async () => {
    const job = await running();
    const { lifecycle } = lifecycleOver(store, behind(2_000_000));

    await lifecycle.finish(job);

    expect(await store.jobs.get(job.id)).toMatchObject({ status: 'finished', startedAt: STARTED, completedAt: STARTED });
  });
});
