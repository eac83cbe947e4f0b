import type { JobRecord } from './job.js';
import type { Micros } from './time.js';
import type { VersionRecord } from './version.js';

const DAY_SECONDS = 24 * 60 * 60;

/** How long a job's queue message lives (SQS's longest retention, set on every version's queue). */
export const QUEUE_MESSAGE_RETENTION_SECONDS = 14 * DAY_SECONDS;

/**
 * A queued job is ended once its message has waited this long: a day before SQS would drop
 * the message, so the store never keeps a job queued whose message is gone.
 */
export const QUEUED_JOB_LIMIT_SECONDS = QUEUE_MESSAGE_RETENTION_SECONDS - DAY_SECONDS;

/**
 * When the job's current queue message was sent: at the push, when its version became ready
 * (a job that waited for the build), or at its last restart (a requeue sends a new message).
 */
export function queuedSince(job: JobRecord, version: VersionRecord): Micros {
  return Math.max(job.createdAt, version.readyAt ?? 0, ...job.restarts.map((restart) => restart.timestamp));
}

export const QUEUE_MESSAGE_EXPIRED =
  'The job waited 13 days in its queue without a worker taking it; SQS drops a queued message after 14 days, so the job was ended. Push it again.';
