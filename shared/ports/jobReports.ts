import type { JobOutput, JobRecord, RestartType } from '../domain/job.js';

/**
 * How the worker agent reports the moves a job makes while its replica runs it; services'
 * JobLifecycle implements it. A move that loses (the job moved meanwhile, e.g. it was
 * cancelled) answers null and changes nothing.
 */
export interface JobReports {
  /** queued -> processing. */
  start(jobId: string): Promise<JobRecord | null>;
  /** A job handed out again because its last taker never acknowledged it: that attempt ends, the job starts again. */
  recoverAbandoned(jobId: string): Promise<JobRecord | null>;
  /**
   * Writes one output of the running attempt, resolving once it is written; `told` resolves once
   * it is durable and told (waiters, webhooks), and rejects if its commit failed.
   */
  recordOutput(job: JobRecord, output: Omit<JobOutput, 'jobId' | 'runId'>): Promise<{ told: Promise<void> }>;
  finish(job: JobRecord): Promise<JobRecord | null>;
  /** `retryable`: the function raised (not FatalException), so the job may run again if it has retries left. */
  fail(job: JobRecord, error: string, options?: { retryable?: boolean }): Promise<JobRecord | null>;
  /** The attempt ended without a result: queued again (enqueued unless told not to), or error after its last attempt. */
  interrupt(job: JobRecord, type: RestartType, reason: string, enqueue?: boolean): Promise<JobRecord | null>;
  /**
   * A job ended by someone else while this worker ran it (a cancel): what follows its end is
   * made again where missing, as the canceller may have died before making it.
   */
  settleEnded(jobId: string): Promise<void>;
  /** Ends a job that never started: its version's setup or build failed. */
  failQueued(jobId: string, error: string): Promise<JobRecord | null>;
}
