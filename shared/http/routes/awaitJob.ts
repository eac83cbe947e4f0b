import { z } from 'zod';
import { defineRoute } from '../route.js';
import { jobView } from '../views.js';

/** Answers as soon as the job has ended, woken by the completion; 408 after the await timeout (10 minutes by default). */
export const awaitJob = defineRoute({
  name: 'awaitJob',
  method: 'GET',
  path: '/v2/jobs/{job_id}/await',
  waits: true,
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object({ offset: z.coerce.number().int().min(0).default(0) }),
  handle: async ({ params, query, principal, services }) => ({
    body: jobView(await services.jobs.await(principal, params.job_id, query.offset, services.awaitTimeoutMs)),
  }),
});
