import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import type { JobRecord } from '../../shared/domain/job.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import type { JobQueue } from '../../shared/ports/jobQueue.js';
import type { Store } from '../../shared/ports/store.js';
import { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';
import { aJob } from './fixtures.js';

export interface LifecycleHarness {
  store: Store;
  lifecycle: JobLifecycle;
  /** Every event waiters were told of, in order. */
  heard: JobEvent[];
  /** Stores a queued job (run id `run-0`, no webhooks) and returns it. */
  pushed(overrides: Partial<JobRecord>): Promise<JobRecord>;
}

/** A JobLifecycle over a store, as the services build it. */
export function lifecycleOver(store: Store, clock: Clock, queue: JobQueue = new MemoryJobQueue()): LifecycleHarness {
  const heard: JobEvent[] = [];
  const events = createMemoryJobEvents();
  const publish = events.publish.bind(events);
  events.publish = (event) => {
    heard.push(event);
    publish(event);
  };
  const notifier = new JobNotifier(
    events,
    () => undefined,
    () => store.durable(),
  );
  return {
    store,
    lifecycle: new JobLifecycle(store, queue, notifier, clock),
    heard,
    async pushed(overrides) {
      const job = aJob({ createdAt: clock.now(), runId: 'run-0', webhooks: [], ...overrides });
      await store.jobs.create(job);
      return job;
    },
  };
}
