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
  description:
    'Outputs from `offset`, in order, while the answer stays within its byte budget (4 MB of values; at least one output). A job with more says `outputs_truncated: true` and `next_output_offset`: ask again with `offset` set to it for the next ones (Sluice fields, present only then).',
  response: { schema: jobWireSchema },
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object(outputOffsetQuery),
  handle: async ({ params, query, principal, services }) => ({ body: jobView(await services.jobs.get(principal, params.job_id, query.offset)) }),
});
