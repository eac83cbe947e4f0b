import { notFound } from '../domain/errors.js';
import { COUNTED_OFFSET_LIMIT, offsetNotHandedOut, PAGE_END_KEPT_S, WALK_PAGE_END_S } from '../domain/listOffsets.js';
import type { FileSlot } from '../domain/fileOutputs.js';
import type { JobRecord, JobStatus } from '../domain/job.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Page, Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { JobView, JobViews } from './jobViews.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';
import type { VersionService } from './versionService.js';

/** A page of a job list, and where it ended once its route knows how many of its jobs it shows. */
export interface ListedPage {
  views: JobView[];
  /** The page shows its first `shown` jobs and hands out offset + shown as next_offset: remember where it ends. */
  ended(shown: number): Promise<void>;
}

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

  async listForFunction(principal: Principal, ownerName: string, name: string, status: JobStatus | undefined, page: Page): Promise<ListedPage> {
    const fn = await this.deps.access.readable(principal, ownerName, name);
    const filter = { organizationId: principal.organizationId, status };
    return this.page(`${filter.organizationId}:function-jobs:${fn.id}:${status ?? ''}`, page, (at) => this.deps.store.jobs.listByFunction(fn.id, filter, at));
  }

  async listForVersion(principal: Principal, ownerName: string, name: string, slug: string, page: Page): Promise<ListedPage> {
    const { version } = await this.deps.versions.get(principal, ownerName, name, slug);
    const filter = { organizationId: principal.organizationId };
    return this.page(`${filter.organizationId}:version-jobs:${version.id}`, page, (at) => this.deps.store.jobs.listByVersion(version.id, filter, at));
  }

  async list(principal: Principal, status: JobStatus | undefined, page: Page): Promise<ListedPage> {
    const filter = { organizationId: principal.organizationId, status };
    return this.page(`${filter.organizationId}:jobs:${status ?? ''}`, page, (at) => this.deps.store.jobs.listByOrganization(filter, at));
  }

  /**
   * A page of the list named `list`: after the job where a page of it ended at this offset
   * (store.pageEnds), else counted up to COUNTED_OFFSET_LIMIT, else refused with the way there.
   */
  private async page(list: string, { limit, offset }: Page, read: (page: Page) => Promise<JobRecord[]>): Promise<ListedPage> {
    const { pageEnds } = this.deps.store;
    const deep = offset > COUNTED_OFFSET_LIMIT;
    const after = offset > 0 ? await pageEnds.find(list, offset, deep ? PAGE_END_KEPT_S : WALK_PAGE_END_S) : undefined;
    if (!after && deep) throw offsetNotHandedOut(offset, await pageEnds.nearest(list, offset));
    const { jobs, views } = await this.committed(async () => {
      const jobs = await read(after ? { limit, offset: 0, after } : { limit, offset });
      return { jobs, views: await this.listed(jobs) };
    });
    return {
      views,
      async ended(shown) {
        const last = jobs[shown - 1];
        // A hint for the next page: not kept, that page is counted (or refused, past the limit), never wrong.
        if (last) await pageEnds.remember(list, offset + shown, { createdAt: last.createdAt, id: last.id }).catch(() => undefined);
      },
    };
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
