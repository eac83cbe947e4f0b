import { z } from 'zod';
import type { WebhookDelivery } from '../../domain/webhookDelivery.js';
import { formatTimestamp } from '../../domain/time.js';
import { defineRoute } from '../route.js';

const jobPath = z.object({ job_id: z.string().min(1) });

function deliveryView(delivery: WebhookDelivery) {
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

/** Sluice extension: a job's webhook deliveries, each attempt with its time, status and error. */
export const listJobWebhooks = defineRoute({
  name: 'listJobWebhooks',
  method: 'GET',
  path: '/v2/jobs/{job_id}/webhooks',
  params: jobPath,
  handle: async ({ params, principal, services }) => ({ body: { data: (await services.webhooks.list(principal, params.job_id)).map(deliveryView) } }),
});

/** Sluice extension: sends a job's events to its webhooks again, as the job stands now. */
export const resendJobWebhooks = defineRoute({
  name: 'resendJobWebhooks',
  method: 'POST',
  path: '/v2/jobs/{job_id}/webhooks/resend',
  params: jobPath,
  handle: async ({ params, principal, services }) => ({ body: { data: (await services.webhooks.resend(principal, params.job_id)).map(deliveryView) } }),
});
