import type { WireLogPage } from '../../shared/domain/wire/logPage.js';
import type { ClientSettings } from '../client.js';
import { callApi } from '../client.js';

export interface LogLine {
  message: string;
  /** Nanoseconds since the epoch, an integer string. */
  timestamp: string;
  labels?: WireLogPage['data'][number]['labels'];
}

/**
 * Reads every log line of `query` (`job_id=...` or `version_id=...`) from `from` (nanoseconds)
 * on, page by page; returns where the next read starts.
 */
export async function readLogsFrom(settings: ClientSettings, query: string, from: string, onLine: (line: LogLine) => void): Promise<string> {
  let start = from;
  for (;;) {
    const page = await callApi<WireLogPage>(settings, 'GET', `/v2/logs?${query}&start_time=${start}`);
    for (const group of page.data) for (const line of group.logs) onLine({ ...line, labels: group.labels });
    if (page.data.length === 0) return start;
    // next_start_time passes 2^53 and JSON.parse rounds it; last_time_returned is exact.
    start = String(BigInt(page.last_time_returned) + 1n);
  }
}
