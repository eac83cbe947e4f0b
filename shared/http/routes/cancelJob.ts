import { z } from 'zod';
import { defineRoute } from '../route.js';
import { statusMessageWireSchema } from '../../domain/wire/common.js';

/** Answers Sieve's StatusResponse, `{"message": ...}`; the job itself is read with GET /v2/jobs/{id}. */
export const cancelJob = defineRoute({
  name: 'cancelJob',
  method: 'DELETE',
  path: '/v2/jobs/{job_id}',
  summary: 'Cancel a queued or running job',
  response: { schema: statusMessageWireSchema },
  params: z.object({ job_id: z.string().min(1) }),
  handle: async ({ params, principal, services }) => {
    const { job } = await services.jobs.cancel(principal, params.job_id);
    return { body: { message: `Job ${job.id} cancelled.` } };
  },
});
