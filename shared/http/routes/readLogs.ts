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
  response: { schema: logPageWireSchema },
  query: z.object({
    job_id: z.string().min(1).optional(),
    version_id: z.string().min(1).optional(),
    start_time: posixTimestamp,
    end_time: posixTimestamp,
    limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).default(MAX_LOG_PAGE),
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
