import { z } from 'zod';
import type { UsageRange } from '../../services/usageService.js';
import { defineRoute } from '../route.js';
import { functionPath, posixTimestamp, posixTimestamps, versionPath } from '../schemas.js';
import { creditsWireSchema, jobCostWireSchema, usagePerFunctionWireSchema, usageReportWireSchema } from '../../domain/wire/usage.js';

const rangeQuery = z.object({ start_timestamp: posixTimestamp, end_timestamp: posixTimestamp });
const range = (query: z.infer<typeof rangeQuery>): UsageRange => {
  const times = posixTimestamps(query, ['start_timestamp', 'end_timestamp']);
  return { startNs: times.start_timestamp, endNs: times.end_timestamp };
};

export const getUsage = defineRoute({
  name: 'getUsage',
  method: 'GET',
  path: '/v2/usage',
  summary: "The organization's usage and cost in a range",
  description:
    'Compute seconds and dollars by machine type, and their totals. `start_timestamp` and `end_timestamp` default to the current calendar month (UTC).',
  response: { schema: usageReportWireSchema },
  query: rangeQuery,
  handle: async ({ query, principal, services }) => ({ body: await services.usage.report(principal, range(query)) }),
});

export const getFunctionUsage = defineRoute({
  name: 'getFunctionUsage',
  method: 'GET',
  path: '/v2/usage/function/{owner_name}/{function_name}',
  summary: "The organization's usage of one function",
  response: { schema: usageReportWireSchema },
  params: functionPath,
  query: rangeQuery,
  handle: async ({ params, query, principal, services }) => ({
    body: await services.usage.functionReport(principal, params.owner_name, params.function_name, range(query)),
  }),
});

/** Keyed `owner/name`: the functions the caller used in the range. */
export const getUsagePerFunction = defineRoute({
  name: 'getUsagePerFunction',
  method: 'GET',
  path: '/v2/usage/function',
  summary: "The organization's usage by function",
  response: { schema: usagePerFunctionWireSchema },
  query: rangeQuery,
  handle: async ({ query, principal, services }) => ({ body: await services.usage.perFunctionReport(principal, range(query)) }),
});

export const getVersionUsage = defineRoute({
  name: 'getVersionUsage',
  method: 'GET',
  path: '/v2/usage/function/{owner_name}/{function_name}/versions/{version_slug}',
  summary: "The organization's usage of one version",
  response: { schema: usageReportWireSchema },
  params: versionPath,
  query: rangeQuery,
  handle: async ({ params, query, principal, services }) => ({
    body: await services.usage.versionReport(principal, params.owner_name, params.function_name, params.version_slug, range(query)),
  }),
});

/** A job's cost; `aggregated` (the default) adds every job it pushed, all the way down. */
export const getJobUsage = defineRoute({
  name: 'getJobUsage',
  method: 'GET',
  path: '/v2/usage/job/{job_id}',
  summary: "A job's cost, with the jobs it pushed",
  response: { schema: jobCostWireSchema },
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object({ aggregated: z.stringbool().default(true).describe('Add the cost of every job it pushed, all the way down.') }),
  handle: async ({ params, query, principal, services }) => ({ body: await services.usage.jobCost(principal, params.job_id, query.aggregated) }),
});

/** Sieve's credits: what is left of the operator's monthly budget, if any (docs/api.md, "Budgets and quotas"). */
export const getCredits = defineRoute({
  name: 'getCredits',
  method: 'GET',
  path: '/v2/usage/credits',
  summary: "What is left of the organization's monthly budget, and the month's cost",
  description:
    '`credits_remaining` is the dollars left of the monthly budget the operator set this calendar month (UTC); null, with `unlimited`, when there is none.',
  response: { schema: creditsWireSchema },
  handle: async ({ principal, services }) => ({ body: await services.usage.credits(principal) }),
});
