import { notFound } from '../domain/errors.js';
import type { LogEntry } from '../domain/log.js';
import { versionLogStream } from '../domain/log.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

export interface LogRequest {
  /** A version's build and setup lines (a Sluice extension of GET /v2/logs). */
  versionId?: string;
  startNs: bigint;
  endNs: bigint;
  limit: number;
}

export class LogService {
  constructor(private readonly store: Store) {}

  /** Lines oldest first. Without a stream, every line of the caller's organization. */
  async read(principal: Principal, request: LogRequest): Promise<LogEntry[]> {
    const stream = request.versionId === undefined ? undefined : await this.versionStream(principal, request.versionId);
    return this.store.logs.query({ stream, organizationId: principal.organizationId, startNs: request.startNs, endNs: request.endNs, limit: request.limit });
  }

  /** Build and setup lines are the owner's alone: they can show more than a caller should see. */
  private async versionStream(principal: Principal, versionId: string): Promise<string> {
    const version = await this.store.versions.get(versionId);
    if (!version || version.organizationId !== principal.organizationId) throw notFound('Version not found.');
    return versionLogStream(version.id);
  }
}
