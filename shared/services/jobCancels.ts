import { badRequest } from '../domain/errors.js';
import { endTime, isFinalJobStatus } from '../domain/job.js';
import type { Clock } from '../ports/clock.js';
import type { Compute } from '../ports/compute.js';
import type { Store } from '../ports/store.js';
import type { JobNotifier } from './jobNotifier.js';
import type { JobView, JobViews } from './jobViews.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';

export interface JobCancelsDeps {
  store: Store;
  compute: Compute;
  notifier: JobNotifier;
  views: JobViews;
  clock: Clock;
}

/** Cancelling a job: a queued one at once, a processing one by stopping its run. */
export class JobCancels {
  constructor(private readonly deps: JobCancelsDeps) {}

  async cancel(principal: Principal, jobId: string): Promise<JobView> {
    const job = await readOwnJob(this.deps.store, principal, jobId);
    if (isFinalJobStatus(job.status)) throw badRequest('Job is not processing.');
    // Deferred: the cancel, its usage and its deliveries share one commit (JobNotifier waits for it).
    const cancelled = await this.deps.store.jobs.transition(
      job.id,
      ['queued', 'processing'],
      { status: 'cancelled', completedAt: endTime(this.deps.clock.now(), job.startedAt) },
      { deferDurability: true },
    );
    if (!cancelled) return this.cancel(principal, jobId); // it moved meanwhile: look again
    await this.deps.notifier.notify({ type: 'completed', job: cancelled });
    // Stopped once the cancel is durable: a cancel a full disk rolled back leaves the run going.
    if (job.status === 'processing' || cancelled.startedAt !== null) this.deps.compute.stopJob(job.id);
    return this.deps.views.one(cancelled, 0);
  }
}
