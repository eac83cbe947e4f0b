import { z } from 'zod';
import { serializeLogPage } from '../../domain/wire/logPage.js';
import { defineRoute } from '../route.js';
import { posixTimestamp, posixTimestamps } from '../schemas.js';
import { logPageWireSchema } from '../../domain/wire/logPage.js';

/** Lines per page: bounded, so a job that printed millions of lines is read in pages. */
export const MAX_LOG_PAGE = 1000;
const END_OF_TIME = 2n ** 63n - 1n;

export const readLogs = defineRoute({
  name: 'readLogs',
  method: 'GET',
  path: '/v2/logs',
  summary: "Read a job's or a version's log lines, oldest first",
  description:
    'One of `job_id` and `version_id`. At most `limit` lines per page; pass `last_time_returned` + 1 as the next `start_time` (timestamps are nanoseconds, integer strings: past 2^53, so add in integers, not floats). An empty page means nothing is left.',
  response: { schema: logPageWireSchema },
  query: z.object({
    job_id: z.string().min(1).optional().describe('A job’s lines (what its function printed).'),
    version_id: z.string().min(1).optional().describe('A version’s build and replica setup lines (owner only).'),
    start_time: posixTimestamp,
    end_time: posixTimestamp,
    limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).default(MAX_LOG_PAGE).describe('Lines per page at most.'),
  }),
  handle: async ({ query, principal, services }) => {
    const times = posixTimestamps(query, ['start_time', 'end_time']);
    const startNs = times.start_time ?? 0n;
    const entries = await services.logs.read(principal, {
      jobId: query.job_id,
      versionId: query.version_id,
      startNs,
      endNs: times.end_time ?? END_OF_TIME,
      limit: query.limit,
    });
    return { body: serializeLogPage(entries, startNs) };
  },
});
