import { z } from 'zod';
import { defineRoute } from '../route.js';

/** Sluice extension: the bytes of a file output (its `data.url` points here). */
export const getJobFile = defineRoute({
  name: 'getJobFile',
  method: 'GET',
  path: '/v2/jobs/{job_id}/files/{index}',
  params: z.object({ job_id: z.string().min(1), index: z.coerce.number().int().min(0) }),
  handle: async ({ params, principal, services }) => ({ file: await services.jobs.outputFile(principal, params.job_id, params.index) }),
});
