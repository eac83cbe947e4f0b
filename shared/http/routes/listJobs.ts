import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/job.js';
import { defineRoute } from '../route.js';
import { pageQuery } from '../schemas.js';
import { jobPage } from '../views.js';
import { jobPageWireSchema } from '../../domain/wire/job.js';

/** An empty status means every status, as the interface says. */
export const jobStatusQuery = { status: z.union([z.enum(JOB_STATUSES), z.literal('').transform(() => undefined)]).optional() };

export const listJobs = defineRoute({
  name: 'listJobs',
  method: 'GET',
  path: '/v2/jobs',
  summary: "List the organization's jobs, newest first",
  response: { schema: jobPageWireSchema },
  query: z.object({ ...pageQuery, ...jobStatusQuery }),
  handle: async ({ query, principal, services }) => ({
    body: jobPage(await services.jobs.list(principal, query.status, { limit: query.limit + 1, offset: query.offset }), query),
  }),
});
