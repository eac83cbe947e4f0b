import type { LogPage } from '../api/types.js';

/**
 * Where the next page of a job's log lines starts: after the last line this page returned.
 * Timestamps are nanoseconds, past 2^53, so they are added as integers from the page's
 * `last_time_returned` string; `next_start_time` went through JSON.parse as a float and may be
 * rounded, which would repeat or skip a line.
 */
export function nextLogStart(page: Pick<LogPage, 'last_time_returned'>, current: string): string {
  return page.last_time_returned === '' ? current : String(BigInt(page.last_time_returned) + 1n);
}
