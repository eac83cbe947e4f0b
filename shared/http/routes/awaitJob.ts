import { z } from 'zod';
import { defineRoute } from '../route.js';
import { outputOffsetQuery } from '../schemas.js';
import { jobView } from '../views.js';
import { jobWireSchema } from '../../domain/wire/job.js';

export const awaitJob = defineRoute({
  name: 'awaitJob',
  method: 'GET',
  path: '/v2/jobs/{job_id}/await',
  summary: 'Wait for a job to end, then get it',
  description:
    'Answers as soon as the job has ended, woken by its completion. After the await timeout (SLUICE_AWAIT_TIMEOUT_S, 10 minutes by default) it answers 408 `Request timeout.`: ask again. Its outputs are bounded as GET /v2/jobs/{job_id} bounds them: `next_output_offset`, when present, is the `offset` that reads on.',
  response: { schema: jobWireSchema },
  waits: true,
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object(outputOffsetQuery),
  handle: async ({ params, query, principal, services }) => ({
    body: jobView(await services.waits.await(principal, params.job_id, query.offset, services.awaitTimeoutMs)),
  }),
});
