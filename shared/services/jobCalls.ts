import { notFound, ServiceError } from '../domain/errors.js';
import { FILE_MARKER_KEY, type FileSlot } from '../domain/fileOutputs.js';
import { isFileType } from '../domain/functionMetadata.js';
import type { JobOutput, JobRecord, PushedJobWait } from '../domain/job.js';
import { isFinalJobStatus } from '../domain/job.js';
import type { Artifacts, OutputFileContent } from '../ports/artifacts.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { JobPushes } from './jobPushes.js';
import type { JobViews } from './jobViews.js';
import type { JobWaits } from './jobWaits.js';

/** How long a parent job waits for a child it runs. */
const CHILD_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * How often a parent streaming a child's outputs reads them again when no event wakes it: the
 * AWS mode publishes no output events across processes (its JobEvents poll for the completion only).
 */
const CHILD_OUTPUTS_POLL_MS = 500;

export interface JobCallsDeps {
  store: Store;
  pushes: JobPushes;
  waits: JobWaits;
  views: JobViews;
  artifacts: Artifacts;
  clock: Clock;
}

/**
 * What a running job asks of the service through its replica (a workflow): calling another
 * function, waiting for a child it pushed, reading an earlier job's output file as an input.
 */
export class JobCalls {
  constructor(private readonly deps: JobCallsDeps) {}

  /**
   * A job calling another function (a workflow): the child is pushed on behalf of the
   * parent's organization and records its parent. With `wait`, resolves with the child's
   * outputs once it has finished; a child that ends otherwise is an error. `stream`: the child's
   * version streams, so its outputs are read as they come (awaitPushed): answered at once.
   */
  async pushFromJob(
    parent: JobRecord,
    reference: string,
    inputs: Record<string, unknown>,
    wait: boolean,
    args: unknown[] = [],
  ): Promise<{ jobId: string; outputs: unknown[]; stream: boolean }> {
    const organization = await this.deps.store.organizations.getById(parent.organizationId);
    if (!organization) throw notFound('The calling job’s organization no longer exists.');
    const principal = { organizationId: organization.id, organizationName: organization.name };
    const { job, version } = await this.deps.pushes.push(principal, { function: reference, inputs, args }, 'api', parent.id);
    const stream = version.streamOutput;
    if (!wait || stream) return { jobId: job.id, outputs: [], stream };
    const done = await this.deps.waits.waitForCompletion(job.id, CHILD_WAIT_MS);
    if (done.status !== 'finished') throw new ServiceError('bad_request', `${reference} ended ${done.status}${done.error ? `: ${done.error}` : ''}`);
    // Signed, as every other reader gets them: the calling function can download them without a key.
    return { jobId: job.id, outputs: await this.signedData(job.id, await this.deps.store.jobs.listOutputs(job.id, 0)), stream };
  }

  /**
   * A job the parent pushed, for the parent's `push(...).result()`, `.outputs` and `.status`: the
   * job once `until` holds (see PushedJobWait), with its outputs from `offset` (none for `now`).
   * Only the parent's own children can be awaited.
   */
  async awaitPushed(parent: JobRecord, jobId: string, offset: number, until: PushedJobWait): Promise<{ job: JobRecord; outputs: unknown[] }> {
    const { store, clock, waits } = this.deps;
    let job = await store.jobs.get(jobId);
    if (!job || job.parentJobId !== parent.id) throw notFound(`Job ${jobId} was not pushed by this job.`);
    if (until === 'end') job = await waits.waitForCompletion(jobId, CHILD_WAIT_MS);
    const deadline = clock.now() + CHILD_WAIT_MS * 1000; // microseconds
    while (until === 'output') {
      // Woken by the job's next event (an output, its end) or the poll, whichever comes first.
      const change = waits.nextChange(jobId, CHILD_OUTPUTS_POLL_MS);
      try {
        job = (await store.jobs.get(jobId)) ?? job;
        const outputs = await store.jobs.listOutputs(jobId, offset);
        if (outputs.length > 0 || isFinalJobStatus(job.status)) return { job, outputs: await this.signedData(jobId, outputs) };
        if (clock.now() > deadline) throw new ServiceError('timeout', 'Request timeout.');
        await change.done;
      } finally {
        change.cancel();
      }
    }
    const outputs = until === 'end' ? await store.jobs.listOutputs(jobId, offset) : [];
    return { job, outputs: await this.signedData(jobId, outputs) };
  }

  /**
   * An output file of an earlier job, read for a job of the same organization that names it as
   * an input (by its `data.url`); null when it is another organization's, or does not exist.
   */
  async outputFileForJob(reader: JobRecord, jobId: string, slot: FileSlot): Promise<OutputFileContent | null> {
    const owner = await this.deps.store.jobs.get(jobId);
    if (!owner || owner.organizationId !== reader.organizationId) return null;
    return this.deps.artifacts.openOutputFile(jobId, slot);
  }

  /**
   * Outputs' values as a calling function gets them: File URLs signed, so they download without a
   * key, and a File output marked as one, so the SDK hands the caller a File, as Sieve's does.
   */
  private async signedData(jobId: string, outputs: JobOutput[]): Promise<unknown[]> {
    return (await this.deps.views.withSignedFileUrls(jobId, outputs)).map((output) =>
      isFileType(output.type) && typeof output.data === 'object' && output.data !== null ? { [FILE_MARKER_KEY]: output.type, ...output.data } : output.data,
    );
  }
}
