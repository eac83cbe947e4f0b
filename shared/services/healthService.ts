import type { Store } from '../ports/store.js';

export interface Health {
  status: 'ok' | 'unavailable';
  /** `ok`, or why the store could not be read (the error's class, never its message: the route is public). */
  store: string;
}

/** The organization id the probe reads: none has it, so the read finds nothing and reveals nothing. */
const PROBE_ID = 'healthz-probe';

/**
 * Liveness and readiness in one: the process answers (live) and its store answers a read
 * (ready). The same read in both modes: a SQLite select locally, a DynamoDB GetItem on AWS.
 */
export class HealthService {
  constructor(private readonly store: Store) {}

  async check(): Promise<Health> {
    try {
      await this.store.organizations.getById(PROBE_ID);
      return { status: 'ok', store: 'ok' };
    } catch (error) {
      return { status: 'unavailable', store: error instanceof Error ? error.name : 'unknown error' };
    }
  }
}
