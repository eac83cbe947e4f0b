import { z } from 'zod';
import { apiKeyListWireSchema, createdApiKeyWireSchema, revokedApiKeyWireSchema, serializeApiKey } from '../../domain/wire/apiKey.js';
import { defineRoute } from '../route.js';

/** Sluice extension: the calling organization's API keys, oldest first (never a secret). */
export const listApiKeys = defineRoute({
  name: 'listApiKeys',
  method: 'GET',
  path: '/v2/keys',
  response: { schema: apiKeyListWireSchema },
  handle: async ({ principal, services }) => {
    const keys = await services.organizationKeys.list(principal);
    return { body: { data: keys.map((key) => serializeApiKey(key, principal.keyId)) } };
  },
});

/** Sluice extension: a new key for the calling organization; its secret is in this answer only. */
export const createApiKey = defineRoute({
  name: 'createApiKey',
  method: 'POST',
  path: '/v2/keys',
  response: { status: 201, schema: createdApiKeyWireSchema },
  handle: async ({ principal, services }) => {
    const { key, secret } = await services.organizationKeys.create(principal);
    return { status: 201, body: { ...serializeApiKey(key, principal.keyId), secret } };
  },
});

/** Sluice extension: revokes one of the calling organization's keys, never its last active one (409). */
export const revokeApiKey = defineRoute({
  name: 'revokeApiKey',
  method: 'DELETE',
  path: '/v2/keys/{key_id}',
  params: z.object({ key_id: z.string().min(1) }),
  response: { schema: revokedApiKeyWireSchema },
  handle: async ({ params, principal, services }) => {
    const key = await services.organizationKeys.revoke(principal, params.key_id);
    const view = serializeApiKey(key, principal.keyId);
    const message = view.current
      ? `Revoked API key ${key.id}: it is the key this request used, so it is refused from now on; use another key.`
      : `Revoked API key ${key.id}.`;
    return { body: { ...view, message } };
  },
});
