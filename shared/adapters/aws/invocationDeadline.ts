import { performance } from 'node:perf_hooks';

/** What must be left of a Lambda invocation for its answer: a route's 503 leaves well before API Gateway's 30 s. */
export const ANSWER_MARGIN_MS = 3_000;

/**
 * When the running Lambda invocation must stop retrying AWS calls: its remaining time less
 * ANSWER_MARGIN_MS, on this process's monotonic clock (`performance.now()` milliseconds). A
 * Lambda container runs one invocation at a time, so one is held per process; none outside an
 * invocation (a worker task), where calls retry as long as they need.
 *
 * The remaining time is Lambda's deadline less this sandbox's wall clock, read once at the
 * start: a wall clock that steps later changes nothing. One already ahead of the clock that set
 * the deadline reads almost no time left, which a fresh invocation never has (it starts with the
 * function's whole timeout): then no deadline is kept, and calls retry as outside an invocation.
 */
export class InvocationDeadline {
  private until: number | undefined;

  /** `performance.now()` milliseconds, or undefined outside an invocation. */
  get(): number | undefined {
    return this.until;
  }

  /** Runs `invocation` with the deadline its context gives. */
  async during<T>(context: { getRemainingTimeInMillis(): number }, invocation: () => Promise<T>): Promise<T> {
    const remaining = context.getRemainingTimeInMillis();
    this.until = remaining > ANSWER_MARGIN_MS ? performance.now() + remaining - ANSWER_MARGIN_MS : undefined;
    try {
      return await invocation();
    } finally {
      this.until = undefined;
    }
  }
}

/** The process's one: set by the Lambda entry points (handlers/), read by its AWS clients' retries. */
export const invocationDeadline = new InvocationDeadline();
