/** What must be left of a Lambda invocation for its answer: a route's 503 leaves well before API Gateway's 30 s. */
export const ANSWER_MARGIN_MS = 3_000;

/**
 * When the running Lambda invocation must stop retrying AWS calls (epoch ms): its remaining time
 * less ANSWER_MARGIN_MS. A Lambda container runs one invocation at a time, so one is held per
 * process; none outside an invocation (a worker task), where calls retry as long as they need.
 */
export class InvocationDeadline {
  private until: number | undefined;

  /** Epoch milliseconds, or undefined outside an invocation. */
  get(): number | undefined {
    return this.until;
  }

  /** Runs `invocation` with the deadline its context gives. */
  async during<T>(context: { getRemainingTimeInMillis(): number }, invocation: () => Promise<T>): Promise<T> {
    this.until = Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
    try {
      return await invocation();
    } finally {
      this.until = undefined;
    }
  }
}

/** The process's one: set by the Lambda entry points (handlers/), read by its AWS clients' retries. */
export const invocationDeadline = new InvocationDeadline();
