import { ValidationError } from '../domain/errors.js';
import { concurrencyChunks } from '../domain/concurrencyChunks.js';
import type { JobStatus } from '../domain/job.js';
import { formatTimestamp } from '../domain/time.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { Principal } from './principal.js';
import { parseFunctionReference } from './pushRequest.js';

/**
 * Sluice sets no organization-wide limit on running jobs (each version scales to its own
 * maximum_replicas), so the limit it reports is the largest integer a client's int32 holds:
 * `max_concurrency - num_current` never holds a Sieve client back.
 */
export const NO_CONCURRENCY_LIMIT = 2_147_483_647;

const MINUTE_MICROS = 60_000_000;
const DAY_MICROS = 24 * 60 * MINUTE_MICROS;
/** A stats range may span at most a week, as Sieve's. */
const MAX_RANGE_MICROS = 7 * DAY_MICROS;

export interface ConcurrencyStatsQuery {
  /** `owner/name`; all of the organization's jobs when absent. */
  function?: string | null;
  /** `YYYY-MM-DDTHH:MM`, UTC. */
  start?: string | null;
  end?: string | null;
  chunkMinutes: number;
  /** Only jobs that ended so; every job when empty. */
  status: JobStatus | '';
}

/** `YYYY-MM-DDTHH:MM` (seconds allowed, no zone: UTC) as microseconds; null when it is not one. */
function parseMinute(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return null;
  const millis = Date.parse(`${text}Z`);
  return Number.isNaN(millis) ? null : millis * 1000;
}

/** An organization's jobs now (concurrency info) and over time (concurrency stats). */
export class ConcurrencyService {
  constructor(
    private readonly store: Store,
    private readonly access: FunctionAccess,
    private readonly clock: Clock,
  ) {}

  async info(principal: Principal) {
    const { queued, processing } = await this.store.jobs.countActive(principal.organizationId);
    // No job ever waits for an organization-wide slot, so none is `limited`.
    return { max_concurrency: NO_CONCURRENCY_LIMIT, num_current: queued + processing, num_processing: processing, num_queued: queued, num_limited: 0 };
  }

  /** Chunks of the range, each with its jobs (by creation time), their median processing time and estimated concurrency. */
  async stats(principal: Principal, query: ConcurrencyStatsQuery) {
    const { start, end } = this.range(query);
    const functionId = query.function ? await this.functionIdOf(principal, query.function) : null;
    const jobs = (await this.store.jobs.listCreatedBetween(principal.organizationId, start, end)).filter(
      (job) => (functionId === null || job.functionId === functionId) && (query.status === '' || job.status === query.status),
    );
    return concurrencyChunks(jobs, start, end, query.chunkMinutes * MINUTE_MICROS).map((chunk) => ({
      chunk_start: formatTimestamp(chunk.start),
      chunk_end: formatTimestamp(chunk.end),
      num_jobs: chunk.jobs,
      median_processing_time_seconds: chunk.medianProcessingSeconds,
      average_concurrency: chunk.averageConcurrency,
    }));
  }

  /** [start, end + 1 minute): the end names its last minute. Defaults: the previous day, 00:00 to 23:59. */
  private range(query: ConcurrencyStatsQuery): { start: number; end: number } {
    const today = Math.floor(this.clock.now() / DAY_MICROS) * DAY_MICROS;
    const start = query.start ? parseMinute(query.start) : today - DAY_MICROS;
    const end = query.end ? parseMinute(query.end) : today - MINUTE_MICROS;
    const issues = [];
    if (start === null) issues.push({ loc: ['query', 'start'], msg: 'must be a UTC date and time: YYYY-MM-DDTHH:MM', type: 'value_error' });
    if (end === null) issues.push({ loc: ['query', 'end'], msg: 'must be a UTC date and time: YYYY-MM-DDTHH:MM', type: 'value_error' });
    if (start !== null && end !== null && (end < start || end - start > MAX_RANGE_MICROS)) {
      issues.push({ loc: ['query', 'end'], msg: 'must be after start and within one week of it', type: 'value_error' });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    return { start: start as number, end: (end as number) + MINUTE_MICROS };
  }

  private async functionIdOf(principal: Principal, reference: string): Promise<string> {
    const parsed = parseFunctionReference(reference);
    if (!parsed || parsed.versionSlug !== null) throw new ValidationError([{ loc: ['query', 'function'], msg: 'must be "owner/name"', type: 'value_error' }]);
    return (await this.access.readable(principal, parsed.ownerName, parsed.name)).id;
  }
}
