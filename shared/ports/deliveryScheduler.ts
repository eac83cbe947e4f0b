import type { WebhookDelivery } from '../domain/webhookDelivery.js';

/**
 * Runs deliveries to completion, retrying on its timer: durable in-process timers locally, a
 * Step Functions Wait/Choice loop on AWS. Deliveries of a job to one URL go in sequence order.
 */
export interface DeliveryScheduler {
  schedule(delivery: WebhookDelivery): void;
}
