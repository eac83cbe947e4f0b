import { defineRoute } from '../route.js';
import { webhookSecretWireSchema } from '../../domain/wire/webhookDelivery.js';

/** Sluice extension: the organization's webhook signing secret (Standard Webhooks, `whsec_...`). */
export const getWebhookSecret = defineRoute({
  name: 'getWebhookSecret',
  method: 'GET',
  path: '/v2/webhooks/secret',
  summary: "The organization's webhook signing secret",
  response: { schema: webhookSecretWireSchema },
  handle: async ({ principal, services }) => ({ body: { secret: await services.webhookSecrets.secretOf(principal.organizationId) } }),
});

/** Sluice extension: replaces the signing secret; deliveries from now on are signed with the new one. */
export const rotateWebhookSecret = defineRoute({
  name: 'rotateWebhookSecret',
  method: 'POST',
  path: '/v2/webhooks/secret/rotate',
  summary: 'Replace the webhook signing secret',
  response: { schema: webhookSecretWireSchema },
  handle: async ({ principal, services }) => ({ body: { secret: await services.webhookSecrets.rotate(principal.organizationId) } }),
});
