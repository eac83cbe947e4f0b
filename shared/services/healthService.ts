import type { Store } from '../ports/store.js';

export interface Health {
  status: 'ok' | 'unavailable';
  /** `ok`, or why the store could not be read (the error's class, never its message: the route is public). */
  store: string;
  /** Locally: `ok`, or `full` while the data directory's disk has no room for writes. */
  disk?: 'ok' | 'full';
}

/** The organization id the probe reads: none has it, so the read finds nothing and reveals nothing. */
const PROBE_ID = 'healthz-probe';
/** Under this much room, a job's writes (its row, its log lines, an output) are refused soon: full. */
export const DISK_FULL_BELOW_BYTES = 16 * 1024 * 1024;

/**
 * Liveness and readiness in one: the process answers (live) and its store answers a read
 * (ready). The same read in both modes: a SQLite select locally, a DynamoDB GetItem on AWS.
 * Locally also the room left where the store writes (`freeBytes`): a full disk answers reads
 * but refuses every push (507), so it is not ready.
 */
export class HealthService {
  constructor(
    private readonly store: Store,
    /** The bytes free for the service's data; none on AWS, whose storage does not fill. */
    private readonly freeBytes?: () => Promise<number>,
  ) {}

  async check(): Promise<Health> {
    try {
      await this.store.organizations.getById(PROBE_ID);
    } catch (error) {
      return { status: 'unavailable', store: error instanceof Error ? error.name : 'unknown error' };
    }
    if (!this.freeBytes) return { status: 'ok', store: 'ok' };
    const full = (await this.freeBytes().catch(() => Number.POSITIVE_INFINITY)) < DISK_FULL_BELOW_BYTES;
    return { status: full ? 'unavailable' : 'ok', store: 'ok', disk: full ? 'full' : 'ok' };
  }
}
