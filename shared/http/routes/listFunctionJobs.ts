import { z } from 'zod';
import { defineRoute } from '../route.js';
import { functionPath, pageQuery } from '../schemas.js';
import { jobPage } from '../views.js';
import { jobStatusQuery } from './listJobs.js';
import { jobPageWireSchema } from '../../domain/wire/job.js';

/** The caller's jobs of this function, newest first. */
export const listFunctionJobs = defineRoute({
  name: 'listFunctionJobs',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}/jobs',
  summary: "List the caller's jobs of a function, newest first",
  response: { schema: jobPageWireSchema },
  params: functionPath,
  query: z.object({ ...pageQuery, ...jobStatusQuery }),
  handle: async ({ params, query, principal, services }) => {
    const page = { limit: query.limit + 1, offset: query.offset };
    return { body: await jobPage(await services.jobs.listForFunction(principal, params.owner_name, params.function_name, query.status, page), query) };
  },
});
