import { randomUUID } from 'node:crypto';

/** Ids of functions, versions and jobs: random UUIDs, so any prefix is as unique as it is long. */
export function newId(): string {
  return randomUUID();
}

/**
 * Ids of jobs: UUIDs whose first 48 bits are the creation time in milliseconds (RFC 9562's
 * version 7), the rest random. Jobs are written in time order, so each index keyed by job id
 * takes new ones on its last page: a batch of jobs dirties one page there, not one per job.
 */
export function newTimeOrderedId(now = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/**
 * A short id (12 base64url characters; 68 random bits, a UUID's version digit being fixed) for runs and replicas, where a UUID would
 * be noise in logs. Cut from a random UUID: Node draws those from a cached entropy pool, far
 * cheaper per call than fresh random bytes.
 */
export function newShortId(): string {
  return Buffer.from(randomUUID().replaceAll('-', ''), 'hex').subarray(0, 9).toString('base64url');
}
