import type { WebhookDelivery } from '../domain/webhookDelivery.js';

/** What `reschedule` found: the delivery's run still under way, started now, or ended without finishing it. */
export type RescheduleOutcome = 'running' | 'started' | 'ended';

/** Makes one attempt of a delivery and answers it as it stands after (null: gone); services' WebhookDeliverer implements it. */
export interface DeliveryAttempts {
  attempt(deliveryId: string): Promise<WebhookDelivery | null>;
}

/**
 * Runs deliveries to completion, retrying on its timer: durable in-process timers locally, a
 * Step Functions Wait/Choice loop on AWS. Deliveries of a job to one URL go in sequence order.
 */
export interface DeliveryScheduler {
  /**
   * Starts the delivery's run and resolves once it has started (a run already under way counts),
   * so nothing is left in flight when a Lambda returns. A run that cannot start is reported,
   * never thrown: the delivery stays pending in the store, where the sweeper finds it.
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
