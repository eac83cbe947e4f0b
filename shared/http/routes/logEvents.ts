import { z } from 'zod';
import { defineRoute } from '../route.js';
import { lastEventIdHeader, posixTimestamp, posixTimestamps } from '../schemas.js';

/** Log lines as Server-Sent Events, followed (docs/api.md, "Streaming"): the query of GET /v2/logs, without an end. */
export const streamLogEvents = defineRoute({
  name: 'streamLogEvents',
  method: 'GET',
  path: '/v2/logs/events',
  summary: 'Follow a job’s or a version’s log lines as Server-Sent Events',
  response: { description: '`log` events as they are written; the stream does not end by itself.', contentType: 'text/event-stream' },
  query: z.object({
    job_id: z.string().min(1).optional(),
    version_id: z.string().min(1).optional(),
    start_time: posixTimestamp,
  }),
  headers: lastEventIdHeader,
  handle: async ({ query, headers, principal, services }) => {
    const startNs = posixTimestamps(query, ['start_time']).start_time ?? 0n;
    return { events: await services.streams.logs(principal, { jobId: query.job_id, versionId: query.version_id, startNs }, headers['last-event-id']) };
  },
});
