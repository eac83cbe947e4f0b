import type { WebhookDelivery } from '../domain/webhookDelivery.js';

/** What `reschedule` found: the delivery's run still under way, started now, or ended without finishing it. */
export type RescheduleOutcome = 'running' | 'started' | 'ended';

/** What a scheduler does with a delivery's attempts; services' WebhookDeliverer implements it. */
export interface DeliveryAttempts {
  /**
   * Makes one attempt and answers the delivery as it stands after (null: no longer pending).
   * `timeoutMs` bounds this attempt's wait for an answer below the sender's own timeout.
   */
  attempt(deliveryId: string, timeoutMs?: number): Promise<WebhookDelivery | null>;
  /** The delivery as it stands (null: gone). */
  current(deliveryId: string): Promise<WebhookDelivery | null>;
  /** The earlier delivery of the same job to the same URL this one must wait for; null when none, or when it is no longer pending. */
  deliveryAhead(deliveryId: string): Promise<WebhookDelivery | null>;
}

/**
 * Runs deliveries to completion, retrying on its timer: durable in-process timers locally; on
 * AWS the first attempt inline, in `schedule`, and a Step Functions Wait/Choice loop for the
 * retries. Deliveries of a job to one URL go in sequence order.
 */
export interface DeliveryScheduler {
  /**
   * Called once the delivery is stored. Starts the delivery's run and resolves once it has
   * started (a run already under way counts), so nothing is left in flight when a Lambda
   * returns; on AWS it first makes the delivery's first attempt (bounded in time), and starts a
   * run only for what that leaves pending. A run that cannot start is reported, never thrown:
   * the delivery stays pending in the store, where the sweeper finds it.
   */
  schedule(delivery: WebhookDelivery): Promise<void>;
  /**
   * For the sweeper, on a delivery still pending long after its attempt was due: starts its run
   * unless one is under way. 'ended' means a run for the delivery as it stands (same attempts)
   * ended without finishing it; the caller records that as an attempt, then reschedules it.
   * Rejects when the run cannot be started.
   */
  reschedule(delivery: WebhookDelivery): Promise<RescheduleOutcome>;
}
