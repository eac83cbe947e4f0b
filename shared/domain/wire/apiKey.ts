import { z } from 'zod';
import type { ApiKey } from '../apiKey.js';
import { formatNullableTimestamp, formatTimestamp } from '../time.js';
import { timestampSchema } from './common.js';

/** A key as its organization sees it: never its secret or its hash. */
export const apiKeyWireSchema = z.strictObject({
  id: z.string(),
  /** The key's first characters, to tell keys apart. */
  prefix: z.string(),
  created_at: timestampSchema,
  revoked_at: timestampSchema.nullable(),
  /** Whether it is the key this request came with. */
  current: z.boolean(),
});
export type WireApiKey = z.infer<typeof apiKeyWireSchema>;

/** GET /v2/keys: the organization's keys, oldest first. */
export const apiKeyListWireSchema = z.strictObject({ data: z.array(apiKeyWireSchema) });
/** POST /v2/keys: the new key, with its secret (in this answer only). */
export const createdApiKeyWireSchema = apiKeyWireSchema.extend({ secret: z.string() });
/** DELETE /v2/keys/{key_id}: the revoked key and what the revocation means for the caller. */
export const revokedApiKeyWireSchema = apiKeyWireSchema.extend({ message: z.string() });

export function serializeApiKey(key: ApiKey, currentKeyId: string | undefined): WireApiKey {
  return {
    id: key.id,
    prefix: key.prefix,
    created_at: formatTimestamp(key.createdAt),
    revoked_at: formatNullableTimestamp(key.revokedAt),
    current: key.id === currentKeyId,
  };
}
