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

/** Reading jobs: one, a list page, a file's download URL. A job is visible only to the organization that pushed it. */
export class JobReads {
  constructor(private readonly deps: JobReadsDeps) {}

  async get(principal: Principal, jobId: string, outputOffset = 0): Promise<JobView> {
    return this.deps.views.one(await readOwnJob(this.deps.store, principal, jobId), outputOffset);
  }

  /** A followed job's outputs from `outputOffset`, within one answer's budget; its owner was checked when the stream opened. */
  outputsFrom(jobId: string, outputOffset: number): Promise<Pick<JobView, 'outputs' | 'nextOutputOffset'>> {
    return this.deps.views.outputsFrom(jobId, outputOffset);
  }

  async listForFunction(principal: Principal, ownerName: string, name: string, status: JobStatus | undefined, page: Page): Promise<JobView[]> {
    const fn = await this.deps.access.readable(principal, ownerName, name);
    return this.listed(await this.deps.store.jobs.listByFunction(fn.id, { organizationId: principal.organizationId, status }, page));
  }

  async listForVersion(principal: Principal, ownerName: string, name: string, slug: string, page: Page): Promise<JobView[]> {
    const { version } = await this.deps.versions.get(principal, ownerName, name, slug);
    return this.listed(await this.deps.store.jobs.listByVersion(version.id, { organizationId: principal.organizationId }, page));
  }

  async list(principal: Principal, status: JobStatus | undefined, page: Page): Promise<JobView[]> {
    return this.listed(await this.deps.store.jobs.listByOrganization({ organizationId: principal.organizationId, status }, page));
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
