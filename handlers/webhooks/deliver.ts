import { secondsUntilDue } from '../../shared/adapters/aws/stepFunctionsScheduler.js';
import { holdSeconds } from '../../shared/domain/deliveryOrder.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import type { WebhookDeliverer } from '../../shared/services/webhookDeliverer.js';
import { awsApp } from '../lambdaApp.js';

export interface DeliverInput {
  deliveryId: string;
  /**
   * Set by the state machine's Catch when the Deliver step failed (the Lambda's error, after
   * its retries): this invocation records that failure as an attempt instead of sending.
   */
  failure?: { Error?: string; Cause?: string };
}

export interface DeliverOutput {
  state: 'pending' | 'delivered' | 'failed';
  /** When pending: how long the state machine waits before the next step. */
  waitSeconds: number;
  /** 1 when this step made (or recorded) an attempt, else 0: the state machine counts attempts. */
  attempted: 0 | 1;
  /** 1 when this step was held behind an earlier delivery of the job to the URL, else 0. */
  held: 0 | 1;
}

/** A Lambda error as Step Functions passes it: Cause is the JSON of `{ errorType, errorMessage }`. */
function describeFailure(failure: NonNullable<DeliverInput['failure']>): string {
  try {
    const cause = JSON.parse(failure.Cause ?? '') as { errorMessage?: string };
    if (cause.errorMessage) return `The delivery step failed: ${cause.errorMessage}`;
  } catch {
    // Not JSON: the error's name says enough.
  }
  return `The delivery step failed: ${failure.Error ?? 'unknown error'}`;
}

const answer = (after: WebhookDelivery | null, now: number): DeliverOutput => {
  if (!after) return { state: 'failed', waitSeconds: 0, attempted: 1, held: 0 };
  return { state: after.state, waitSeconds: after.state === 'pending' ? secondsUntilDue(after, now) : 0, attempted: 1, held: 0 };
};

/**
 * One step of a webhook delivery, for the Step Functions loop (Deliver -> Count -> Choice ->
 * Wait -> Deliver), which a delivery enters only after its first attempt (made inline, by
 * shared/adapters/aws/inlineFirstAttempt.ts) left it pending, or while it was held: one signed
 * attempt; or, while an earlier delivery of the same job to the same URL is still pending, no
 * attempt but a wait (so a receiver gets start, outputs and complete in order); or, after a
 * failed Deliver step, that failure recorded as an attempt.
 */
export async function deliverStep(
  deliverer: Pick<WebhookDeliverer, 'attempt' | 'current' | 'deliveryAhead' | 'recordFailure'>,
  input: DeliverInput,
  /**
   * The deliverer's own clock (microseconds), which stamped the next attempt's time: the wait is
   * read on it, not on Date.now(), which a jumped wall clock moves while the other goes on.
   */
  now: () => number,
): Promise<DeliverOutput> {
  const { deliveryId } = input;
  if (input.failure) {
    const after = (await deliverer.recordFailure(deliveryId, describeFailure(input.failure))) ?? (await deliverer.current(deliveryId));
    return answer(after, now());
  }
  const ahead = await deliverer.deliveryAhead(deliveryId);
  if (ahead) return { state: 'pending', waitSeconds: holdSeconds(ahead, now()), attempted: 0, held: 1 };
  const after = (await deliverer.attempt(deliveryId)) ?? (await deliverer.current(deliveryId));
  return answer(after, now());
}

export function handler(input: DeliverInput): Promise<DeliverOutput> {
  const app = awsApp();
  return deliverStep(app.services.webhookDeliverer, input, () => app.clock.now());
}
