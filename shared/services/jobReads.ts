import { notFound } from '../domain/errors.js';
import type { FileSlot } from '../domain/fileOutputs.js';
import type { JobRecord, JobStatus } from '../domain/job.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Page, Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { JobView, JobViews } from './jobViews.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';
import type { VersionService } from './versionService.js';

export interface JobReadsDeps {
  store: Store;
  access: FunctionAccess;
  versions: VersionService;
  views: JobViews;
  artifacts: Artifacts;
}

/** Times a read is made again when the commit holding what it saw failed (a full disk), before the failure is answered. */
const REREADS = 2;

/**
 * Reading jobs: one, a list page, a file's download URL. A job is visible only to the organization
 * that pushed it. Locally a read sees the writes of the commit still gathering (one connection),
 * so it is answered once that commit holds: a client is never shown a move a crash could undo.
 */
export class JobReads {
  constructor(private readonly deps: JobReadsDeps) {}

  async get(principal: Principal, jobId: string, outputOffset = 0): Promise<JobView> {
    return this.committed(async () => this.deps.views.one(await readOwnJob(this.deps.store, principal, jobId), outputOffset));
  }

  /** A followed job's outputs from `outputOffset`, within one answer's budget; its owner was checked when the stream opened. */
  outputsFrom(jobId: string, outputOffset: number): Promise<Pick<JobView, 'outputs' | 'nextOutputOffset'>> {
    return this.committed(() => this.deps.views.outputsFrom(jobId, outputOffset));
  }

  async listForFunction(principal: Principal, ownerName: string, name: string, status: JobStatus | undefined, page: Page): Promise<JobView[]> {
    const fn = await this.deps.access.readable(principal, ownerName, name);
    return this.committed(async () =>
      this.listed(await this.deps.store.jobs.listByFunction(fn.id, { organizationId: principal.organizationId, status }, page)),
    );
  }

  async listForVersion(principal: Principal, ownerName: string, name: string, slug: string, page: Page): Promise<JobView[]> {
    const { version } = await this.deps.versions.get(principal, ownerName, name, slug);
    return this.committed(async () => this.listed(await this.deps.store.jobs.listByVersion(version.id, { organizationId: principal.organizationId }, page)));
  }

  async list(principal: Principal, status: JobStatus | undefined, page: Page): Promise<JobView[]> {
    return this.committed(async () => this.listed(await this.deps.store.jobs.listByOrganization({ organizationId: principal.organizationId, status }, page)));
  }

  /** `read`, answered once what it saw is durable; read again if that commit failed (what it saw was undone). */
  private async committed<T>(read: () => Promise<T>): Promise<T> {
    for (let rereads = 0; ; rereads++) {
      const value = await read();
      try {
        await this.deps.store.durable();
        return value;
      } catch (error) {
        if (rereads >= REREADS) throw error;
      }
    }
  }

  /** A short-lived URL the job's output file in `slot` downloads from (presigned S3, or the local service's own signed URL). */
  async outputFileUrl(principal: Principal, jobId: string, slot: FileSlot): Promise<string> {
    await readOwnJob(this.deps.store, principal, jobId);
    const url = await this.deps.artifacts.outputFileUrl(jobId, slot);
    if (url === null) throw notFound('File not found.');
    return url;
  }

  private listed(jobs: JobRecord[]): Promise<JobView[]> {
    return this.deps.views.listed(jobs);
  }
}
