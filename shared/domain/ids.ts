import { randomUUID } from 'node:crypto';

/** Ids of functions, versions and jobs: random UUIDs, so any prefix is as unique as it is long. */
export function newId(): string {
  return randomUUID();
}

/**
 * A short id (12 base64url characters; 68 random bits, a UUID's version digit being fixed) for runs and replicas, where a UUID would
 * be noise in logs. Cut from a random UUID: Node draws those from a cached entropy pool, far
 * cheaper per call than fresh random bytes.
 */
export function newShortId(): string {
  return Buffer.from(randomUUID().replaceAll('-', ''), 'hex').subarray(0, 9).toString('base64url');
}
