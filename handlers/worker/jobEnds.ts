import { setTimeout as wait } from 'node:timers/promises';
import type { JobRecord } from '../../shared/domain/job.js';
import type { JobReports } from '../../shared/ports/jobReports.js';

/** Waits before each further try of a job's end that could not be written: about a minute in all, its message held meanwhile. */
export const END_RETRY_WAITS_MS = [5_000, 15_000, 40_000];

/**
 * The worker's job moves, a job's end (finish, fail, interrupt) that could not be written (the
 * store failing past the SDK's own retries) tried again after each of `waitsMs`; then the job's
 * message is let go (`letGo`) before the error goes on: it comes back to a take as redelivered,
 * and the job is recovered and run again, rather than left `processing` for good.
 */
export function jobEndsRetried(lifecycle: JobReports, letGo: (job: JobRecord) => void, waitsMs: readonly number[] = END_RETRY_WAITS_MS): JobReports {
  const ending =
    <Rest extends unknown[]>(move: (job: JobRecord, ...rest: Rest) => Promise<JobRecord | null>) =>
    async (job: JobRecord, ...rest: Rest): Promise<JobRecord | null> => {
      for (const waitMs of waitsMs) {
        try {
          return await move(job, ...rest);
        } catch {
          await wait(waitMs);
        }
      }
      try {
        return await move(job, ...rest);
      } catch (error) {
        letGo(job);
        throw error;
      }
    };
  return {
    start: (jobId) => lifecycle.start(jobId),
    recoverAbandoned: (jobId) => lifecycle.recoverAbandoned(jobId),
    recordOutput: (job, output) => lifecycle.recordOutput(job, output),
    failQueued: (jobId, error) => lifecycle.failQueued(jobId, error),
    settleEnded: (jobId) => lifecycle.settleEnded(jobId),
    finish: ending((job) => lifecycle.finish(job)),
    fail: ending((job, error: string, options?: { retryable?: boolean }) => lifecycle.fail(job, error, options)),
    interrupt: ending((job, type: Parameters<JobReports['interrupt']>[1], reason: string, enqueue?: boolean) =>
      lifecycle.interrupt(job, type, reason, enqueue),
    ),
  };
}
