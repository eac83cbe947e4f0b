import { z } from 'zod';
import { timeoutSchema } from '../../domain/functionMetadata.js';
import { PUSH_SOURCES } from '../../domain/job.js';
import { webhookListSchema } from '../../domain/webhook.js';
import { serializePushResult } from '../../domain/wire/job.js';
import { capacityWarning } from '../../services/capacityWarning.js';
import { defineRoute } from '../route.js';

export const pushJob = defineRoute({
  name: 'pushJob',
  method: 'POST',
  path: '/v2/push',
  query: z.object({ source: z.enum(PUSH_SOURCES).default('api') }),
  body: z.object({
    /** By name, or (as Sieve allows) by position. */
    inputs: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
    function: z.string().nullable().optional(),
    id: z.string().nullable().optional(),
    webhooks: webhookListSchema.nullable().optional(),
    /** Sluice extension: seconds the job may run (the function's own `timeout` still applies). */
    timeout: timeoutSchema.optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name'), z.string()).nullable().optional(),
  }),
  handle: async ({ query, body, principal, services }) => {
    const { job, version } = await services.jobs.push(principal, body, query.source);
    const warning = await capacityWarning(services.compute(), version.computeType);
    return { body: { ...serializePushResult(job, version.streamOutput), ...(warning ? { warning } : {}) } };
  },
});
