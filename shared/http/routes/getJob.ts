import { z } from 'zod';
import { defineRoute } from '../route.js';
import { outputOffsetQuery } from '../schemas.js';
import { jobView } from '../views.js';
import { jobWireSchema } from '../../domain/wire/job.js';

export const getJob = defineRoute({
  name: 'getJob',
  method: 'GET',
  path: '/v2/jobs/{job_id}',
  summary: 'Get a job: its status, inputs, outputs and error',
  response: { schema: jobWireSchema },
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object(outputOffsetQuery),
  handle: async ({ params, query, principal, services }) => ({ body: jobView(await services.jobs.get(principal, params.job_id, query.offset)) }),
});
