import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Micros } from './time.js';

/** How long a push's Idempotency-Key names its job: a day, as Stripe keeps keys. */
export const IDEMPOTENCY_WINDOW_US = 24 * 60 * 60 * 1_000_000;

/** Stripe's rule: up to 255 characters; printable ASCII, since it travels in a header. */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(255, 'must be at most 255 characters')
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

/** A push's Idempotency-Key, remembered for a day: the same key (and body) gets the same job. */
export interface IdempotencyRecord {
  organizationId: string;
  key: string;
  /** What the first request asked (requestFingerprint), so a different body with the key is refused. */
  requestHash: string;
  jobId: string;
  createdAt: Micros;
  expiresAt: Micros;
}

/** A digest of what a push asks, independent of the order of object keys. */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
