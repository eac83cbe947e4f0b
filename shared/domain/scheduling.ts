// What a push may ask of the scheduler beyond Sieve's fields (Sluice extensions, docs/api.md
// "Scheduling"): a priority, a deadline to start, retries. Each has a bound so that one
// organization cannot ask for more than its share by asking for extremes.

/** Priorities are integers in this range; higher starts first within an organization's share. */
export const MIN_PRIORITY = -10;
export const MAX_PRIORITY = 10;
export const DEFAULT_PRIORITY = 0;

/** A job not started this long after its push ends cancelled (`start_timeout`, seconds): at most a week. */
export const MAX_START_TIMEOUT_S = 7 * 24 * 3600;

/** A job that raises runs again at most this many times (`retries`). */
export const MAX_RETRIES = 10;

/**
 * The wait before retry n (1, 2, ...): RETRY_INITIAL_DELAY_S, multiplied by RETRY_BACKOFF_FACTOR
 * each time, capped at RETRY_MAX_DELAY_S (Modal's defaults, which users of GPU platforms know).
 */
export const RETRY_INITIAL_DELAY_S = 1;
export const RETRY_BACKOFF_FACTOR = 2;
export const RETRY_MAX_DELAY_S = 60;

export function retryDelaySeconds(retry: number): number {
  return Math.min(RETRY_MAX_DELAY_S, RETRY_INITIAL_DELAY_S * RETRY_BACKOFF_FACTOR ** Math.max(0, retry - 1));
}

/** An organization's weight as the queues use it: one that is not a positive number counts as 1, never as a share of zero. */
export const effectiveWeight = (weight: number): number => (Number.isFinite(weight) && weight > 0 ? weight : 1);

/** What a queue needs to order a job: whose it is, and its priority (fair share, then priority, then push order). */
export interface QueueEntry {
  id: string;
  versionId: string;
  organizationId: string;
  priority?: number;
}
