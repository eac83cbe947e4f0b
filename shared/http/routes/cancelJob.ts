import { z } from 'zod';
import { defineRoute } from '../route.js';
import { statusMessageWireSchema } from '../../domain/wire/common.js';

export const cancelJob = defineRoute({
  name: 'cancelJob',
  method: 'DELETE',
  path: '/v2/jobs/{job_id}',
  summary: 'Cancel a queued or running job',
  description:
    "A queued job is cancelled at once; a running one has its replica stopped. Answers Sieve's StatusResponse; read the job for its state. A job that has ended: 400 `Job is not processing.`",
  response: { schema: statusMessageWireSchema },
  params: z.object({ job_id: z.string().min(1) }),
  handle: async ({ params, principal, services }) => {
    const { job } = await services.cancels.cancel(principal, params.job_id);
    return { body: { message: `Job ${job.id} cancelled.` } };
  },
});
