import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import type { Store } from '../../shared/ports/store.js';
import { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';
import { aJob } from '../support/fixtures.js';

/**
 * A worker task killed after a job's end was written and before what follows it (its usage) was:
 * the job's queue message comes back to another task, which finds the job ended. The aws:local
 * soak's clean-clone run billed one organization 0.039 s less than its jobs ran: one such job.
 */
const NOW = 1_800_000_000_000_000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };

let store: Store;
let heardByUsage: JobEvent[];
let heardByWebhooks: JobEvent[];
let lifecycle: JobLifecycle;
beforeEach(() => {
  store = createSqliteStore(':memory:');
  heardByUsage = [];
  heardByWebhooks = [];
  const notifier = new JobNotifier(
    createMemoryJobEvents(),
    () => undefined,
    () => store.durable(),
  );
  // Usage is recorded once per job whatever the calls (its marker): it says how to make it again.
  notifier.observe(() => undefined, { settle: (event) => void heardByUsage.push(event) });
  // An observer that says nothing of it is not made again.
  notifier.observe((event) => void heardByWebhooks.push(event));
  lifecycle = new JobLifecycle(store, new MemoryJobQueue(), notifier, clock);
});
afterEach(async () => store.close());

describe('a job whose worker died after writing its end', () => {
  it('has what follows its end made again, by the observers that say how, by the worker that gets its message back', async () => {
    const ended = aJob({ status: 'finished', startedAt: NOW - 2_000_000, completedAt: NOW - 1_000_000, runId: 'run-0', webhooks: [] });
    await store.jobs.create(ended);

    expect(await lifecycle.recoverAbandoned(ended.id)).toBeNull();

    expect(heardByUsage).toEqual([{ type: 'completed', job: ended }]);
    expect(heardByWebhooks).toEqual([]);
    expect(await store.jobs.get(ended.id)).toEqual(ended);
  });
});
