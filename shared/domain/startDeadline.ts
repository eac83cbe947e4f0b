import type { JobRecord } from './job.js';
import type { Micros } from './time.js';

/**
 * When a job must have started (`start_timeout` after its push), or null when it has no such
 * deadline. Only a job's first start is bound by it: a job that ran and went back to the queue
 * (a crash, a retry) did start in time.
 */
export function startDeadline(job: Pick<JobRecord, 'createdAt' | 'startTimeoutSeconds'>): Micros | null {
  const seconds = job.startTimeoutSeconds ?? null;
  return seconds === null ? null : job.createdAt + Math.round(seconds * 1e6);
}

/** The error of a job cancelled because it did not start in time. */
export function missedStartError(job: Pick<JobRecord, 'startTimeoutSeconds'>): string {
  return `The job did not start within its start_timeout of ${job.startTimeoutSeconds} s.`;
}
