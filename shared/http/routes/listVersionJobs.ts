import { z } from 'zod';
import { defineRoute } from '../route.js';
import { pageQuery, versionPath } from '../schemas.js';
import { jobPage } from '../views.js';
import { jobPageWireSchema } from '../../domain/wire/job.js';

/** The caller's jobs of this version, newest first. */
export const listVersionJobs = defineRoute({
  name: 'listVersionJobs',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}/versions/{version_slug}/jobs',
  summary: "List the caller's jobs of a version, newest first",
  response: { schema: jobPageWireSchema },
  params: versionPath,
  query: z.object(pageQuery),
  handle: async ({ params, query, principal, services }) => {
    const page = { limit: query.limit + 1, offset: query.offset };
    return { body: await jobPage(await services.jobs.listForVersion(principal, params.owner_name, params.function_name, params.version_slug, page), query) };
  },
});
