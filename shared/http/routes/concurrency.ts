import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/job.js';
import { defineRoute } from '../route.js';
import { concurrencyInfoWireSchema, concurrencyStatsWireSchema } from '../../domain/wire/concurrency.js';

/** The organization's unfinished jobs now, and its limit (Sluice sets none: see docs/api.md). */
export const getConcurrency = defineRoute({
  name: 'getConcurrency',
  method: 'GET',
  path: '/v2/user/concurrency',
  summary: "The organization's unfinished jobs now",
  response: { schema: concurrencyInfoWireSchema },
  handle: async ({ principal, services }) => ({ body: await services.concurrency.info(principal) }),
});

const FINAL_STATUSES = JOB_STATUSES.filter((status) => status === 'finished' || status === 'cancelled' || status === 'error');

/** Historical concurrency, in chunks of `chunk_size` minutes between `start` and `end` (UTC, at most a week). */
export const getConcurrencyStats = defineRoute({
  name: 'getConcurrencyStats',
  method: 'GET',
  path: '/v2/usage/concurrency',
  summary: 'Jobs and estimated concurrency over time',
  response: { schema: concurrencyStatsWireSchema },
  query: z.object({
    function: z.string().optional(),
    start: z.string().optional(),
    end: z.string().optional(),
    chunk_size: z.coerce.number().int().min(30).default(60),
    status: z.enum(['', ...FINAL_STATUSES]).default('finished'),
  }),
  handle: async ({ query, principal, services }) => ({
    body: await services.concurrency.stats(principal, {
      function: query.function,
      start: query.start,
      end: query.end,
      chunkMinutes: query.chunk_size,
      status: query.status,
    }),
  }),
});
