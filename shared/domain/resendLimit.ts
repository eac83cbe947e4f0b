import type { Micros } from './time.js';
import type { WebhookDelivery } from './webhookDelivery.js';

/** A job's events may be resent at most this many times within RESEND_WINDOW_MICROS. */
export const MAX_RESENDS_PER_WINDOW = 3;
export const RESEND_WINDOW_MICROS = 60_000_000;

/**
 * Whole seconds until the job's events may be resent again; 0 when they may be now. Each resend
 * marks its deliveries with its time (`resentAt`), so the resends within the window are the
 * distinct marks among the job's deliveries: the limit holds in both modes, with no state but the store.
 */
export function resendWaitSeconds(deliveries: WebhookDelivery[], now: Micros): number {
  const windowStart = now - RESEND_WINDOW_MICROS;
  const recent = [
    ...new Set(deliveries.flatMap((delivery) => (delivery.resentAt !== undefined && delivery.resentAt > windowStart ? [delivery.resentAt] : []))),
  ].sort((a, b) => a - b);
  if (recent.length < MAX_RESENDS_PER_WINDOW) return 0;
  // Allowed again once the oldest resend that counts leaves the window.
  const oldest = recent[recent.length - MAX_RESENDS_PER_WINDOW] as number;
  return Math.max(1, Math.ceil((oldest + RESEND_WINDOW_MICROS - now) / 1_000_000));
}
