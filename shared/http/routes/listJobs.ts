import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/job.js';
import { defineRoute } from '../route.js';
import { pageQuery } from '../schemas.js';
import { jobPage } from '../views.js';
import { jobPageWireSchema } from '../../domain/wire/job.js';

/** An empty status means every status, as the interface says; a wrong one is answered with the valid ones. */
export const jobStatusQuery = {
  status: z
    .union([z.enum(JOB_STATUSES), z.literal('').transform(() => undefined)], {
      error: `Unknown status: use one of ${JOB_STATUSES.join(', ')} (or none for every status)`,
    })
    .optional()
    .describe('Only jobs in this status; empty or absent for all.'),
};

export const listJobs = defineRoute({
  name: 'listJobs',
  method: 'GET',
  path: '/v2/jobs',
  summary: "List the organization's jobs, newest first",
  description:
    "A page of jobs; `next_offset` is the next page's offset, or -1 on the last page. Jobs in a list carry bounded inputs and outputs: a large one is shown with `data` null (GET /v2/jobs/{job_id} has it whole).",
  response: { schema: jobPageWireSchema },
  query: z.object({ ...pageQuery, ...jobStatusQuery }),
  handle: async ({ query, principal, services }) => ({
    body: await jobPage(await services.jobs.list(principal, query.status, { limit: query.limit + 1, offset: query.offset }), query),
  }),
});
