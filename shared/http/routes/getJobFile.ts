import { z } from 'zod';
import { defineRoute } from '../route.js';

/**
 * Sluice extension: a file output (its `data.url` points here). On AWS, a 307 to a presigned
 * S3 URL (Lambda cannot answer more than 6 MB); locally, the bytes.
 */
export const getJobFile = defineRoute({
  name: 'getJobFile',
  method: 'GET',
  path: '/v2/jobs/{job_id}/files/{index}',
  params: z.object({ job_id: z.string().min(1), index: z.coerce.number().int().min(0) }),
  handle: async ({ params, principal, services }) => {
    const file = await services.jobs.outputFile(principal, params.job_id, params.index);
    return 'url' in file ? { redirect: file.url } : { file };
  },
});
