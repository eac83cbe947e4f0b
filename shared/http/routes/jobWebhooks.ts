import { z } from 'zod';
import { defineRoute } from '../route.js';
import { serializeDelivery, webhookDeliveriesWireSchema } from '../../domain/wire/webhookDelivery.js';

const jobPath = z.object({ job_id: z.string().min(1) });

/** Sluice extension: a job's webhook deliveries, each attempt with its time, status and error. */
export const listJobWebhooks = defineRoute({
  name: 'listJobWebhooks',
  method: 'GET',
  path: '/v2/jobs/{job_id}/webhooks',
  summary: "A job's webhook deliveries and their attempts",
  response: { schema: webhookDeliveriesWireSchema },
  params: jobPath,
  handle: async ({ params, principal, services }) => ({ body: { data: (await services.webhooks.list(principal, params.job_id)).map(serializeDelivery) } }),
});

/** Sluice extension: sends a job's events to its webhooks again, as the job stands now. */
export const resendJobWebhooks = defineRoute({
  name: 'resendJobWebhooks',
  method: 'POST',
  path: '/v2/jobs/{job_id}/webhooks/resend',
  summary: "Send a job's webhook events again",
  response: { schema: webhookDeliveriesWireSchema },
  params: jobPath,
  handle: async ({ params, principal, services }) => ({ body: { data: (await services.webhooks.resend(principal, params.job_id)).map(serializeDelivery) } }),
});
