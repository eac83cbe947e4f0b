import { z } from 'zod';
import { defineRoute } from '../route.js';
import { lastEventIdHeader } from '../schemas.js';

/**
 * A job's statuses, outputs and log lines as Server-Sent Events, then `done` with the job
 * (docs/api.md, "Streaming"). Locally it stays open until the job ends; on AWS it answers
 * within a bounded wait and the client reconnects with Last-Event-ID.
 */
export const streamJobEvents = defineRoute({
  name: 'streamJobEvents',
  method: 'GET',
  path: '/v2/jobs/{job_id}/events',
  summary: 'Follow a job: its statuses, outputs and log lines as Server-Sent Events, then `done`',
  response: {
    description: 'Events `status`, `output`, `log`, then `done` with the whole job; each with an `id` to resume from (`Last-Event-ID`).',
    contentType: 'text/event-stream',
  },
  params: z.object({ job_id: z.string().min(1) }),
  headers: lastEventIdHeader,
  handle: async ({ params, headers, principal, services }) => ({
    events: await services.streams.job(principal, params.job_id, headers['last-event-id']),
  }),
});
