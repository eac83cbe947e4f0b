import { holdSeconds } from '../../domain/deliveryOrder.js';
import type { Micros } from '../../domain/time.js';
import type { WebhookDelivery } from '../../domain/webhookDelivery.js';
import type { Clock } from '../../ports/clock.js';
import type { DeliveryAttempts, DeliveryScheduler } from '../../ports/deliveryScheduler.js';
import { secondsUntilDue, type StepFunctionsScheduler } from './stepFunctionsScheduler.js';

/** How long the first attempt waits for the receiver's answer (SLUICE_WEBHOOK_TIMEOUT_S, if shorter, bounds it instead). */
export const FIRST_ATTEMPT_TIMEOUT_MS = 2000;

/** How long a job's time spent on first attempts is remembered: the moves of one job's end come well within it. */
const BUDGET_WINDOW: Micros = 60_000_000;

export interface InlineFirstAttemptOptions {
  /** Where retries, and deliveries held behind an earlier one, go. */
  runs: StepFunctionsScheduler;
  attempts: DeliveryAttempts;
  clock: Clock;
  /** The first attempt's bound on the receiver's answer; also what one job may spend on first attempts at a time. */
  timeoutMs: number;
  /** An attempt or a read that failed on this side (a run then takes the delivery), or a run that could not start (it stays pending, for the sweeper). */
  onError: (error: unknown, deliveryId: string) => void;
}

/**
 * The AWS scheduler: a delivery's first attempt is made here, by the code that made the job's
 * move (the delivery is already stored), and a Step Functions run starts only when one is
 * needed: when the attempt leaves the delivery pending (the run first waits for the retry), or
 * when an earlier delivery of the job to the same URL is still pending (the run first waits the
 * hold). Most deliveries end at their first attempt, so most cost no state transition.
 *
 * The caller waits for the attempt, so it is bounded: `timeoutMs` for the receiver's answer,
 * and a job whose first attempts already took `timeoutMs` (slow receivers, many webhooks) sends
 * its next deliveries to a run at once, so one move waits at most about twice that.
 */
export function createInlineFirstAttemptScheduler(options: InlineFirstAttemptOptions): DeliveryScheduler {
  const { runs, attempts, clock, timeoutMs, onError } = options;
  const spent = new Map<string, { since: Micros; micros: Micros }>();

  const spentBy = (jobId: string, now: Micros) => {
    for (const [id, entry] of spent) if (now - entry.since > BUDGET_WINDOW) spent.delete(id);
    let entry = spent.get(jobId);
    if (!entry) spent.set(jobId, (entry = { since: now, micros: 0 }));
    return entry;
  };

  /** The first attempt, then a run for what it left pending; an attempt that throws leaves the delivery to a run at once. */
  const attemptFirst = async (delivery: WebhookDelivery) => {
    const budget = spentBy(delivery.jobId, clock.now());
    if (budget.micros >= timeoutMs * 1000) return runs.start(delivery, 0);
    const began = clock.now();
    let after: WebhookDelivery | null;
    try {
      after = (await attempts.attempt(delivery.id, timeoutMs)) ?? (await attempts.current(delivery.id));
    } catch (error) {
      onError(error, delivery.id);
      return runs.start(delivery, 0);
    } finally {
      budget.micros += clock.now() - began;
    }
    return after?.state === 'pending' ? runs.start(after, secondsUntilDue(after, clock.now())) : false;
  };

  const firstAttemptOrRun = async (delivery: WebhookDelivery) => {
    const stored = await attempts.current(delivery.id);
    if (stored?.state !== 'pending') return;
    // Scheduled again after its first attempt: its run is the one named after its attempts (started once).
    if (stored.attempts.length > 0) return runs.start(stored, secondsUntilDue(stored, clock.now()));
    const ahead = await attempts.deliveryAhead(stored.id);
    if (ahead) return runs.start(stored, holdSeconds(ahead, clock.now()));
    return attemptFirst(stored);
  };

  return {
    async schedule(delivery) {
      try {
        await firstAttemptOrRun(delivery);
      } catch (error) {
        onError(error, delivery.id);
        // The stored delivery could not be read here: a run reads it again, holds it behind an
        // earlier one or attempts it, rather than leaving it to the sweeper's late pass.
        await runs.start(delivery, 0).catch((startError: unknown) => onError(startError, delivery.id));
      }
    },
    reschedule: (delivery) => runs.reschedule(delivery),
  };
}
