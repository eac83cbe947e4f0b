import { z } from 'zod';
import { defineRoute } from '../route.js';

/**
 * Sluice extension: a file output (its `data.url` points here). A 307 to a short-lived URL
 * that serves the bytes, streamed: presigned S3 on AWS (Lambda cannot answer more than 6 MB),
 * the service's own signed `/files/...` URL locally.
 */
export const getJobFile = defineRoute({
  name: 'getJobFile',
  method: 'GET',
  path: '/v2/jobs/{job_id}/files/{index}',
  params: z.object({ job_id: z.string().min(1), index: z.coerce.number().int().min(0) }),
  handle: async ({ params, principal, services }) => {
    return { redirect: await services.jobs.outputFileUrl(principal, params.job_id, params.index) };
  },
});
