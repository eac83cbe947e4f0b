import { notFound } from '../domain/errors.js';
import type { LogEntry } from '../domain/log.js';
import { jobLogStream, versionLogStream } from '../domain/log.js';
import type { Store } from '../ports/store.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';

export interface LogRequest {
  /** A job's lines, from every attempt. */
  jobId?: string;
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
    const stream = await this.streamOf(principal, request);
    return this.store.logs.query({ stream, organizationId: principal.organizationId, startNs: request.startNs, endNs: request.endNs, limit: request.limit });
  }

  /** The stream a request reads (404 for another organization's job or version); undefined: all the organization's lines. */
  async streamOf(principal: Principal, request: Pick<LogRequest, 'jobId' | 'versionId'>): Promise<string | undefined> {
    if (request.jobId !== undefined) return this.jobStream(principal, request.jobId);
    if (request.versionId !== undefined) return this.versionStream(principal, request.versionId);
    return undefined;
  }

  private async jobStream(principal: Principal, jobId: string): Promise<string> {
    return jobLogStream((await readOwnJob(this.store, principal, jobId)).id);
  }

  /** Build and setup lines are the owner's alone: they can show more than a caller should see. */
  private async versionStream(principal: Principal, versionId: string): Promise<string> {
    const version = await this.store.versions.get(versionId);
    if (!version || version.organizationId !== principal.organizationId) throw notFound('Version not found.');
    return versionLogStream(version.id);
  }
}
