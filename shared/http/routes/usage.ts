import { z } from 'zod';
import { defineRoute } from '../route.js';
import { posixTimestamp, versionPath } from '../schemas.js';

const rangeQuery = z.object({ start_timestamp: posixTimestamp.optional(), end_timestamp: posixTimestamp.optional() });
const range = (query: z.infer<typeof rangeQuery>) => ({ startNs: query.start_timestamp, endNs: query.end_timestamp });

export const getUsage = defineRoute({
  name: 'getUsage',
  method: 'GET',
  path: '/v2/usage',
  query: rangeQuery,
  handle: async ({ query, principal, services }) => ({ body: await services.usage.report(principal, range(query)) }),
});

export const getVersionUsage = defineRoute({
  name: 'getVersionUsage',
  method: 'GET',
  path: '/v2/usage/function/{owner_name}/{function_name}/versions/{version_slug}',
  params: versionPath,
  query: rangeQuery,
  handle: async ({ params, query, principal, services }) => ({
    body: await services.usage.versionReport(principal, params.owner_name, params.function_name, params.version_slug, range(query)),
  }),
});

/** Sluice extension: one job's compute time and cost. */
export const getJobUsage = defineRoute({
  name: 'getJobUsage',
  method: 'GET',
  path: '/v2/usage/job/{job_id}',
  params: z.object({ job_id: z.string().min(1) }),
  handle: async ({ params, principal, services }) => ({ body: await services.usage.jobUsage(principal, params.job_id) }),
});
