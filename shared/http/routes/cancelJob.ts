import { z } from 'zod';
import { defineRoute } from '../route.js';
import { jobView } from '../views.js';

export const cancelJob = defineRoute({
  name: 'cancelJob',
  method: 'DELETE',
  path: '/v2/jobs/{job_id}',
  params: z.object({ job_id: z.string().min(1) }),
  handle: async ({ params, principal, services }) => ({ body: jobView(await services.jobs.cancel(principal, params.job_id)) }),
});
