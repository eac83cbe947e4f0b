import { randomBytes, randomUUID } from 'node:crypto';

/** Ids of functions, versions and jobs: random UUIDs, so any prefix is as unique as it is long. */
export function newId(): string {
  return randomUUID();
}

/** A short id for runs and keys where a UUID would be noise in logs. */
export function newShortId(bytes = 9): string {
  return randomBytes(bytes).toString('base64url');
}
