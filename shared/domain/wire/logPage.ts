import { z } from 'zod';
import type { LogEntry } from '../log.js';

export const logLabelsSchema = z.strictObject({
  stage: z.string(),
  run_id: z.string(),
  job_id: z.string(),
  organization_id: z.string(),
  function_id: z.string(),
});

export const logPageWireSchema = z.strictObject({
  data: z.array(z.strictObject({ logs: z.array(z.strictObject({ message: z.string(), timestamp: z.string() })), labels: logLabelsSchema })),
  next_start_time: z.union([z.int(), z.bigint()]),
  last_time_returned: z.string(),
});
export type WireLogPage = z.infer<typeof logPageWireSchema>;

/**
 * Groups consecutive lines that share labels, as the interface's LogsData does.
 * Timestamps are nanoseconds since the epoch, printed as integer strings.
 * `nextStartTime` is where the next page starts: one nanosecond past the last line returned,
 * or the requested start when the page is empty.
 */
export function serializeLogPage(entries: LogEntry[], requestedStartNs: bigint): WireLogPage {
  const data: WireLogPage['data'] = [];
  for (const entry of entries) {
    const labels = {
      stage: entry.stage,
      run_id: entry.runId,
      job_id: entry.jobId,
      organization_id: entry.organizationId,
      function_id: entry.functionId,
    };
    const last = data.at(-1);
    const line = { message: entry.message, timestamp: entry.timeNs.toString() };
    if (last && sameLabels(last.labels, labels)) last.logs.push(line);
    else data.push({ logs: [line], labels });
  }
  const lastTime = entries.at(-1)?.timeNs;
  return {
    data,
    next_start_time: lastTime === undefined ? requestedStartNs : lastTime + 1n,
    last_time_returned: lastTime === undefined ? '' : lastTime.toString(),
  };
}

function sameLabels(a: z.infer<typeof logLabelsSchema>, b: z.infer<typeof logLabelsSchema>): boolean {
  return a.stage === b.stage && a.run_id === b.run_id && a.job_id === b.job_id && a.organization_id === b.organization_id && a.function_id === b.function_id;
}
