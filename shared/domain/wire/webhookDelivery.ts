import { z } from 'zod';
import type { WebhookDelivery } from '../webhookDelivery.js';
import { formatTimestamp } from '../time.js';
import { timestampSchema } from './common.js';

export const webhookDeliveryWireSchema = z.strictObject({
  id: z.string(),
  type: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  created_at: timestampSchema,
  next_attempt_at: timestampSchema.nullable(),
  attempts: z.array(z.strictObject({ at: timestampSchema, status: z.int().nullable(), error: z.string().nullable() })),
});

export const webhookDeliveriesWireSchema = z.strictObject({ data: z.array(webhookDeliveryWireSchema) });

/** The organization's webhook signing secret (Standard Webhooks, `whsec_...`). */
export const webhookSecretWireSchema = z.strictObject({ secret: z.string() });

/** A delivery with each attempt's time, status and error. */
export function serializeDelivery(delivery: WebhookDelivery): z.infer<typeof webhookDeliveryWireSchema> {
  return {
    id: delivery.id,
    type: delivery.eventType,
    url: delivery.url,
    state: delivery.state,
    created_at: formatTimestamp(delivery.createdAt),
    next_attempt_at: delivery.state === 'pending' ? formatTimestamp(delivery.nextAttemptAt) : null,
    attempts: delivery.attempts.map((attempt) => ({ at: formatTimestamp(attempt.at), status: attempt.status, error: attempt.error })),
  };
}
