import { z } from 'zod';
import { timeoutSchema } from '../../domain/functionMetadata.js';
import { idempotencyKeySchema } from '../../domain/idempotency.js';
import { PUSH_SOURCES } from '../../domain/job.js';
import { DEFAULT_PRIORITY, MAX_PRIORITY, MAX_RETRIES, MAX_START_TIMEOUT_S, MIN_PRIORITY } from '../../domain/scheduling.js';
import { webhookListSchema } from '../../domain/webhook.js';
import { serializePushResult } from '../../domain/wire/job.js';
import { capacityWarning } from '../../services/capacityWarning.js';
import { defineRoute } from '../route.js';
import { pushResultWireSchema } from '../../domain/wire/job.js';

export const pushJob = defineRoute({
  name: 'pushJob',
  method: 'POST',
  path: '/v2/push',
  summary: 'Push a job: run a function on inputs',
  response: { schema: pushResultWireSchema },
  example: { function: 'my-org/echo', inputs: { text: 'hello' } },
  query: z.object({ source: z.enum(PUSH_SOURCES).default('api').describe('Where the push came from (Sieve’s parameter), recorded with the job.') }),
  body: z.object({
    inputs: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).describe('By name, or (as Sieve allows) by position.'),
    function: z.string().nullable().optional().describe('`owner/name`, or `owner/name:version`; give this or `id`.'),
    id: z.string().nullable().optional().describe('A version id (that version) or a function id (its newest ready version); give this or `function`.'),
    webhooks: webhookListSchema.nullable().optional().describe('Replace the function’s webhooks for this job.'),
    /** Sluice extension. */
    timeout: timeoutSchema.optional().describe('Seconds the job may run (the function’s own timeout still applies).'),
    priority: z
      .int()
      .min(MIN_PRIORITY)
      .max(MAX_PRIORITY)
      .optional()
      .describe(`Sluice extension: higher starts first within the organization's share (${MIN_PRIORITY} to ${MAX_PRIORITY}, default ${DEFAULT_PRIORITY}).`),
    start_timeout: z
      .number()
      .positive()
      .max(MAX_START_TIMEOUT_S)
      .nullable()
      .optional()
      .describe('Sluice extension: seconds after the push by which the job must start; if it has not, it ends `cancelled` and costs nothing.'),
    retries: z
      .int()
      .min(0)
      .max(MAX_RETRIES)
      .optional()
      .describe('Sluice extension: times a job that raises runs again, with exponential backoff (FatalException is never retried).'),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name'), z.string())
      .nullable()
      .optional()
      .describe('Environment variables for this job, over the version’s defaults.'),
  }),
  /** The same key within 24 hours answers the same job (docs/api.md, "Idempotency-Key"). */
  headers: z.object({ 'idempotency-key': idempotencyKeySchema.optional() }),
  handle: async ({ query, body, headers, principal, services }) => {
    const { job, version } = await services.pushes.push(principal, body, query.source, headers['idempotency-key']);
    const warning = await capacityWarning(services.compute, version);
    return { body: { ...serializePushResult(job, version.streamOutput), ...(warning ? { warning } : {}) } };
  },
});
