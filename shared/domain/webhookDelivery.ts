import { createHash } from 'node:crypto';
import type { Micros } from './time.js';
import type { WebhookEventType } from './webhook.js';

/** One HTTP attempt of a delivery. */
export interface DeliveryAttempt {
  at: Micros;
  /** The receiver's HTTP status; null when there was no answer. */
  status: number | null;
  /** Why it did not count as delivered; null when it did. */
  error: string | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * One event for one webhook URL. Deliveries of a job to a URL go out one at a time in
 * `sequence` order, so a receiver sees job.start, then its outputs, then job.complete.
 */
export interface WebhookDelivery {
  /** Also the `webhook-id` header: a receiver drops a repeat by it. */
  id: string;
  jobId: string;
  organizationId: string;
  url: string;
  eventType: WebhookEventType;
  /**
   * The JSON body, with its File outputs' URLs as their key-checked routes: each attempt sends it
   * with them signed at that attempt (webhookFileUrls.ts), and signs what it sends.
   */
  payload: string;
  /** job.new_output: the index of the output it carries (its Files are signed by it). */
  outputIndex?: number;
  /** Order among this job's deliveries to this URL. */
  sequence: number;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** When the next attempt is due (pending only). */
  nextAttemptAt: Micros;
  createdAt: Micros;
  /** When a resend made it (every delivery of one resend has the same); absent for a job's own events. */
  resentAt?: Micros;
}

/** Ten attempts in all: the first, then nine retries with exponential backoff. */
export const MAX_DELIVERY_ATTEMPTS = 10;

/** The wait before retry n (1-based): base, 2 x base, 4 x base, ... */
export function retryDelayMs(retry: number, baseMs: number): number {
  return baseMs * 2 ** (retry - 1);
}

/**
 * The id of one event's delivery to one webhook, the same each time the event is made: a worker
 * that died after a job's move leaves what followed it to be made again (JobNotifier.settle),
 * and a delivery made twice must be stored once and reach its receiver under one webhook-id.
 * UUID-shaped (RFC 9562's version 8: the bits are a SHA-256 of the parts).
 */
export function eventDeliveryId(...parts: (string | number)[]): string {
  const hex = createHash('sha256').update(parts.join('\n')).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
