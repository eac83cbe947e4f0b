import { z } from 'zod';
import { PUSH_SOURCES } from '../../domain/job.js';
import { pushResultWireSchema, serializePushResult } from '../../domain/wire/job.js';
import { capacityWarning } from '../../services/capacityWarning.js';
import { defineRoute } from '../route.js';

export const replayJob = defineRoute({
  name: 'replayJob',
  method: 'POST',
  path: '/v2/jobs/{job_id}/replay',
  summary: 'Replay a job: push it again with the same inputs',
  description:
    "Sluice extension. Pushes a new job with the original's inputs, environment, webhooks, priority, start_timeout and retries, as a push would (the same checks, 422 for inputs the version does not take), and answers like a push. The new job's `replay_of` names the original; the original's `replays` lists its last 20 replays. Only the organization that pushed the original may replay it (404 otherwise). A File input uploaded more than a day before (uploads are then deleted) is 422.",
  response: { schema: pushResultWireSchema },
  example: { version: 'latest' },
  params: z.object({ job_id: z.string().min(1) }),
  query: z.object({ source: z.enum(PUSH_SOURCES).default('api').describe('Where the replay came from, recorded with the new job.') }),
  body: z
    .strictObject({
      version: z
        .string()
        .min(1)
        .optional()
        .describe("`latest` (the function's newest version that can run), a version id, or a unique prefix of one; absent: the original's version."),
    })
    .optional(),
  handle: async ({ params, query, body, principal, services }) => {
    const { job, version } = await services.replays.replay(principal, params.job_id, body?.version, query.source);
    const warning = await capacityWarning(services.compute, version);
    return { body: { ...serializePushResult(job, version.streamOutput), ...(warning ? { warning } : {}) } };
  },
});
