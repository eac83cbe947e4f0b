import { ServiceError } from '../domain/errors.js';
import type { JobRecord } from '../domain/job.js';
import { isFinalJobStatus } from '../domain/job.js';
import type { JobEvents } from '../ports/jobEvents.js';
import type { Store } from '../ports/store.js';
import type { JobView, JobViews } from './jobViews.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';

/** Waiting for a job: woken by its events (its end, its next output), never by reading the store in a loop. */
export class JobWaits {
  constructor(private readonly deps: { store: Store; events: JobEvents; views: JobViews }) {}

  /** The job once it has finished, errored or been cancelled; 408 after `timeoutMs`. */
  async await(principal: Principal, jobId: string, outputOffset: number, timeoutMs: number): Promise<JobView> {
    // Subscribed before the job is read, so a completion between the two is not missed.
    const completion = this.subscribeCompletion(jobId, timeoutMs);
    try {
      const job = await readOwnJob(this.deps.store, principal, jobId);
      if (isFinalJobStatus(job.status) && (await this.committed())) return this.deps.views.one(job, outputOffset);
      return this.deps.views.one(await completion.done, outputOffset);
    } finally {
      completion.cancel();
    }
  }

  /**
   * Whether what was just read holds: a read may see a move whose commit is still to come (the
   * group commit), and a commit can fail (a full disk), rolling the move back. Then the job has
   * not ended, and its completion is waited for as usual.
   */
  private committed(): Promise<boolean> {
    return this.deps.store.durable().then(
      () => true,
      () => false,
    );
  }

  /** The job once it has ended, woken by the completion itself (an event), not by polling. */
  async waitForCompletion(jobId: string, timeoutMs: number): Promise<JobRecord> {
    const completion = this.subscribeCompletion(jobId, timeoutMs);
    try {
      const job = await this.deps.store.jobs.get(jobId);
      return job && isFinalJobStatus(job.status) ? job : await completion.done;
    } finally {
      completion.cancel();
    }
  }

  /** `done` resolves at the job's next event, or after `pollMs`; `cancel` unsubscribes. */
  nextChange(jobId: string, pollMs: number): { done: Promise<void>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      const unsubscribe = this.deps.events.subscribe(jobId, () => resolve());
      cancel = () => {
        clearTimeout(timer);
        unsubscribe();
      };
    });
    return { done, cancel };
  }

  /** `done` resolves with the job when it completes, or rejects with 408 after `timeoutMs`; `cancel` unsubscribes. */
  private subscribeCompletion(jobId: string, timeoutMs: number): { done: Promise<JobRecord>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<JobRecord>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new ServiceError('timeout', 'Request timeout.'));
      }, timeoutMs);
      const unsubscribe = this.deps.events.subscribe(jobId, (event) => {
        if (event.type !== 'completed') return;
        cancel();
        resolve(event.job);
      });
      cancel = () => {
        clearTimeout(timer);
        unsubscribe();
      };
    });
    done.catch(() => undefined); // a caller that stopped waiting does not see the timeout
    return { done, cancel };
  }
}
