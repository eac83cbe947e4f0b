/**
 * Where a running job's claim outlives its SQS message: SQS lets a message stay invisible at
 * most 12 hours from its receipt, so a longer job keeps a lease in the store instead, renewed
 * by its worker's heartbeat; whoever receives the job's message again reads it to tell a job
 * still running from one whose worker died.
 */
export interface JobLeases {
  /** The job is held until then (epoch milliseconds). */
  renew(jobId: string, untilMs: number): Promise<void>;
  /** When the job's lease ends (epoch milliseconds), or null if it never had one. */
  expiresAt(jobId: string): Promise<number | null>;
}
