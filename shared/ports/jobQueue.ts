import type { QueueEntry } from '../domain/scheduling.js';

/** A job taken from the queue. */
export interface TakenJob {
  jobId: string;
  /**
   * Taken before and never acknowledged: whoever took it may have died with it (on AWS, an
   * SQS message whose visibility lease lapsed). Its status may still say processing.
   */
  redelivered: boolean;
}

/**
 * Hands queued jobs to the replicas of their version, oldest first. The store's job status is
 * the truth (a job is queued until a replica's conditional write moves it to processing); the
 * queue only says which job to try next, so a job taken from it that is no longer queued
 * (cancelled meanwhile) is simply skipped.
 */
export interface JobQueue {
  /**
   * Queues a job of `entry.versionId`, ordered by its organization's share and its priority.
   * `delaySeconds`: it becomes takeable only that long from now (a retry's backoff).
   */
  enqueue(entry: QueueEntry, options?: { delaySeconds?: number }): Promise<void>;
  /** The next job for this version, or null when none waits. */
  take(versionId: string): Promise<TakenJob | null>;
  /** Done with a taken job (it ended, or went back to the queue as a new entry). */
  ack(versionId: string, jobId: string): Promise<void>;
  /** How many jobs wait for this version (0 where the queue cannot say cheaply). */
  depth(versionId: string): number;
  /**
   * Whether the version's queue holds no message at all (waiting, taken or delayed). Only where a
   * message can be lost (SQS: a push that died between storing its job and sending it); the
   * sweeper sends again the old queued jobs of a queue that holds none.
   */
  holdsNothing?(versionId: string): Promise<boolean>;
}
