import { z } from 'zod';
import { defineRoute } from '../route.js';
import { parseFileSlot } from '../../domain/fileOutputs.js';

// A redirect rather than the bytes: Lambda cannot answer more than 6 MB.
export const getJobFile = defineRoute({
  name: 'getJobFile',
  method: 'GET',
  path: '/v2/jobs/{job_id}/files/{index}',
  summary: 'Download a file output (a redirect to a signed URL)',
  description:
    "`index` is the output's index, or `index.part` for a File nested in that output. Answers 307 to a short-lived signed URL that serves the bytes without a key (follow redirects: `curl -L`).",
  response: { status: 307, description: 'A redirect to a signed, expiring URL that serves the bytes without a key.' },
  // The output's index, or `index.part` for a File nested in that output.
  params: z.object({
    job_id: z.string().min(1),
    index: z
      .string()
      .transform(
        (text, context) =>
          parseFileSlot(text) ?? (context.addIssue({ code: 'custom', message: 'Input should be an output index, or index.part for a nested file' }), z.NEVER),
      ),
  }),
  handle: async ({ params, principal, services }) => {
    return { redirect: await services.jobs.outputFileUrl(principal, params.job_id, params.index) };
  },
});
