import type { Micros } from './time.js';
import type { WebhookDelivery } from './webhookDelivery.js';

/**
 * The delivery that must end (delivered or failed) before this one is sent: the earliest
 * pending delivery of the same job to the same URL with a lower sequence (an equal sequence
 * goes by id). Null when none is ahead, so a receiver sees job.start, then each output, then
 * job.complete, even where each delivery runs on its own (a Step Functions execution each).
 */
export function deliveryAhead(delivery: WebhookDelivery, jobDeliveries: readonly WebhookDelivery[]): WebhookDelivery | null {
  const isAhead = (other: WebhookDelivery) =>
    other.url === delivery.url &&
    other.state === 'pending' &&
    (other.sequence < delivery.sequence || (other.sequence === delivery.sequence && other.id < delivery.id));
  const ahead = jobDeliveries.filter(isAhead).sort((a, b) => a.sequence - b.sequence || (a.id < b.id ? -1 : 1));
  return ahead[0] ?? null;
}

/** A held delivery looks again at most this often... */
const HOLD_MIN_SECONDS = 1;
/** ...and at least this often while the one ahead waits for its own retry. */
const HOLD_MAX_SECONDS = 60;
/** Overdue this long, the one ahead has lost its run (the sweeper restarts it): look rarely. */
const LOST_AFTER_SECONDS = 60;
const LOST_HOLD_SECONDS = 30;

/**
 * How long a held delivery waits before it looks again: until just after the delivery ahead is
 * next due (its retry), between 1 s and a minute; when that one is overdue, its attempt is
 * under way (look again in a second), or, past a minute, its run was lost and the sweeper will
 * restart it (look every 30 s).
 */
export function holdSeconds(ahead: WebhookDelivery, now: Micros): number {
  const dueIn = Math.ceil((ahead.nextAttemptAt - now) / 1e6);
  if (dueIn >= 0) return Math.min(HOLD_MAX_SECONDS, Math.max(HOLD_MIN_SECONDS, dueIn + 1));
  return -dueIn > LOST_AFTER_SECONDS ? LOST_HOLD_SECONDS : HOLD_MIN_SECONDS;
}

/**
 * The most times one delivery's run may be held. A run that used them all ends; the sweeper
 * finds the delivery overdue and starts it again (see docs/webhooks.md).
 */
export const MAX_DELIVERY_HOLDS = 1000;
