/**
 * Hands queued jobs to the replicas of their version, oldest first. The store's job status is
 * the truth (a job is queued until a replica's conditional write moves it to processing); the
 * queue only says which job to try next, so a job taken from it that is no longer queued
 * (cancelled meanwhile) is simply skipped.
 */
export interface JobQueue {
  enqueue(versionId: string, jobId: string): Promise<void>;
  /** The next job id for this version, or null when none waits. */
  take(versionId: string): Promise<string | null>;
  /** How many jobs wait for this version. */
  depth(versionId: string): number;
}
