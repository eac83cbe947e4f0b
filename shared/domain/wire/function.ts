import { z } from 'zod';
import type { FunctionRecord } from '../function.js';
import { webhookWireSchema } from './common.js';
import type { WireVersion } from './version.js';
import { versionWireSchema } from './version.js';

export const truncatedFunctionWireSchema = z.strictObject({ name: z.string(), owner_name: z.string() });

export const functionWireSchema = truncatedFunctionWireSchema.extend({
  visibility: z.enum(['public', 'private']).nullable(),
  title: z.string().nullable(),
  code_url: z.string().nullable(),
  description: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
  cover_image_url: z.string().nullable(),
  examples: z.array(z.string()).nullable(),
  readme: z.string().nullable(),
  latest_version: versionWireSchema,
  function_type: z.enum(['function', 'workflow']).nullable(),
  webhooks: z.array(webhookWireSchema).nullable(),
  restart_on_error: z.boolean().nullable(),
});
/** `?truncate=true` answers only the name and owner. */
export const functionOrTruncatedWireSchema = z.union([functionWireSchema, truncatedFunctionWireSchema]);
export type WireFunction = z.infer<typeof functionWireSchema>;
export type WireTruncatedFunction = z.infer<typeof truncatedFunctionWireSchema>;

export function serializeTruncatedFunction(fn: FunctionRecord): WireTruncatedFunction {
  return { name: fn.name, owner_name: fn.ownerName };
}

export function serializeFunction(fn: FunctionRecord, latestVersion: WireVersion): WireFunction {
  return {
    name: fn.name,
    owner_name: fn.ownerName,
    visibility: fn.visibility,
    title: fn.title,
    code_url: fn.codeUrl,
    description: fn.description,
    tags: fn.tags,
    cover_image_url: fn.coverImageUrl,
    examples: fn.examples,
    readme: fn.readme,
    latest_version: latestVersion,
    function_type: fn.functionType,
    webhooks: fn.webhooks,
    restart_on_error: fn.restartOnError,
  };
}
