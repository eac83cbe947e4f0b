import { badRequest, notFound, RateLimitedError, ServiceError, ValidationError } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import { newShortId, newTimeOrderedId } from '../domain/ids.js';
import type { JobOutput, JobRecord, JobStatus, PushedJobWait, PushSource } from '../domain/job.js';
import { isFinalJobStatus } from '../domain/job.js';
import { FILE_MARKER_KEY, type FileSlot } from '../domain/fileOutputs.js';
import { isFileType } from '../domain/functionMetadata.js';
import type { VersionRecord } from '../domain/version.js';
import type { Webhook } from '../domain/webhook.js';
import type { Artifacts, OutputFileContent } from '../ports/artifacts.js';
import type { Clock } from '../ports/clock.js';
import type { Compute } from '../ports/compute.js';
import type { JobEvents } from '../ports/jobEvents.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { Page, Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { JobLifecycle } from './jobLifecycle.js';
import type { JobNotifier } from './jobNotifier.js';
import type { WebhookUrlPolicy } from './webhookUrlPolicy.js';
import { JobViews, type JobView } from './jobViews.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';
import { checkInputs, mergeEnvironment, namedInputs, namePositionalInputs, parseFunctionReference } from './pushRequest.js';
import type { VersionService } from './versionService.js';

/** The stricter of two time limits, null meaning none. */
const shorterLimit = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));

/** What a push refused for a full queue is told to wait: a second drains many jobs, and a client retrying sooner only adds load. */
const QUEUE_FULL_RETRY_AFTER_S = 1;

/** How long a parent job waits for a child it runs. */
const CHILD_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * How often a parent streaming a child's outputs reads them again when no event wakes it: the
 * AWS mode publishes no output events across processes (its JobEvents poll for the completion only).
 */
const CHILD_OUTPUTS_POLL_MS = 500;

export interface PushBody {
  /** By name, or by position (Sieve's array form). */
  inputs: Record<string, unknown> | unknown[];
  function?: string | null;
  id?: string | null;
  webhooks?: Webhook[] | null;
  env?: Record<string, string> | null;
  /** Inputs given by position (an SDK's `run(1, 2)`): named after the version's inputs, in order. */
  args?: unknown[];
  /** Seconds the job may run; it cannot extend the function's own `timeout`. */
  timeout?: number;
}

export type { JobView } from './jobViews.js';

export interface JobServiceDeps {
  store: Store;
  access: FunctionAccess;
  versions: VersionService;
  queue: JobQueue;
  events: JobEvents;
  lifecycle: JobLifecycle;
  compute: () => Compute;
  artifacts: Artifacts;
  notifier: JobNotifier;
  webhookPolicy: WebhookUrlPolicy;
  clock: Clock;
  /** Jobs a version's queue holds before a push from outside is refused (429). */
  maxQueuedPerVersion: number;
}

/** Pushing, reading, awaiting and cancelling jobs. A job is visible only to the organization that pushed it. */
export class JobService {
  private readonly views: JobViews;

  constructor(private readonly deps: JobServiceDeps) {
    this.views = new JobViews(deps);
  }

  async push(principal: Principal, body: PushBody, source: PushSource, parentJobId: string | null = null, jobId = newTimeOrderedId()): Promise<{ job: JobRecord; version: VersionRecord }> {
    const { store, queue, clock } = this.deps;
    const { fn, version } = await this.resolveTarget(principal, body);
    // A job's own calls are not refused: its workflow would fail for a backlog it did not make.
    if (parentJobId === null) this.assertRoomInQueue(version);
    // By position: a call's `args` (an SDK's `run(1, 2)`), or `inputs` as an array (Sieve's document allows it).
    const given = body.args?.length ? namePositionalInputs(version, body.args, Array.isArray(body.inputs) ? {} : body.inputs) : body.inputs;
    const named = namedInputs(version, given);
    const issues = [...named.issues, ...checkInputs(version, named.inputs)];
    if (issues.length > 0) throw new ValidationError(issues);
    if (body.webhooks) await this.deps.webhookPolicy.assertAllowed(body.webhooks, ['body', 'webhooks']);
    const job: JobRecord = {
      id: jobId,
      functionId: fn.id,
      versionId: version.id,
      organizationId: principal.organizationId,
      ownerName: fn.ownerName,
      functionName: fn.name,
      status: 'queued',
      createdAt: clock.now(),
      startedAt: null,
      completedAt: null,
      error: '',
      visibility: fn.visibility,
      runId: newShortId(),
      inputs: named.inputs,
      env: mergeEnvironment(version, body.env ?? {}),
      // The function's own webhooks are its owner's: they never see another organization's jobs.
      webhooks: body.webhooks ?? (fn.organizationId === principal.organizationId ? fn.webhooks : []),
      source,
      parentJobId,
      restarts: [],
      attempts: 0,
      timeLimitSeconds: shorterLimit(version.timeoutSeconds ?? null, body.timeout ?? null),
    };
    // Queued before its commit, so that a short job runs while the commit gathers, and its end
    // often shares that commit: one wait a job instead of two. The push is answered only once the
    // job is durable; a crash in between loses a job nobody was told of (its client retries), whose
    // function may have begun.
    await store.jobs.create(job, { deferDurability: true });
    // A job for a version still building waits for it; releaseWaitingJobs enqueues it when the
    // build ends. Reading the status after the job exists closes the race with that release.
    const current = version.buildStatus === 'ready' ? version : await store.versions.get(version.id);
    if (current?.buildStatus === 'ready') await queue.enqueue(version.id, job.id);
    await store.durable();
    return { job, version };
  }

  /**
   * Backpressure: past the bound, a push is refused before anything is written, so a client
   * pushing faster than the replicas drain cannot grow the queue (and the service's memory)
   * without limit, nor starve the jobs already queued.
   */
  private assertRoomInQueue(version: VersionRecord): void {
    const waiting = this.deps.queue.depth(version.id);
    if (waiting < this.deps.maxQueuedPerVersion) return;
    throw new RateLimitedError(`${waiting} jobs already wait for version ${version.id}; the limit is ${this.deps.maxQueuedPerVersion}. Try again later.`, QUEUE_FULL_RETRY_AFTER_S);
  }

  /**
   * A job calling another function (a workflow): the child is pushed on behalf of the
   * parent's organization and records its parent. With `wait`, resolves with the child's
   * outputs once it has finished; a child that ends otherwise is an error. `stream`: the child's
   * version streams, so its outputs are read as they come (awaitPushed): answered at once.
   */
  async pushFromJob(parent: JobRecord, reference: string, inputs: Record<string, unknown>, wait: boolean, args: unknown[] = []): Promise<{ jobId: string; outputs: unknown[]; stream: boolean }> {
    const organization = await this.deps.store.organizations.getById(parent.organizationId);
    if (!organization) throw notFound('The calling job’s organization no longer exists.');
    const principal = { organizationId: organization.id, organizationName: organization.name };
    const { job, version } = await this.push(principal, { function: reference, inputs, args }, 'api', parent.id);
    const stream = version.streamOutput;
    if (!wait || stream) return { jobId: job.id, outputs: [], stream };
    const done = await this.waitForCompletion(job.id, CHILD_WAIT_MS);
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
    const { store, clock } = this.deps;
    let job = await store.jobs.get(jobId);
    if (!job || job.parentJobId !== parent.id) throw notFound(`Job ${jobId} was not pushed by this job.`);
    if (until === 'end') job = await this.waitForCompletion(jobId, CHILD_WAIT_MS);
    const deadline = clock.now() + CHILD_WAIT_MS * 1000; // microseconds
    while (until === 'output') {
      // Woken by the job's next event (an output, its end) or the poll, whichever comes first.
      const change = this.nextChange(jobId, CHILD_OUTPUTS_POLL_MS);
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
   * Outputs' values as a calling function gets them: File URLs signed, so they download without a
   * key, and a File output marked as one, so the SDK hands the caller a File, as Sieve's does.
   */
  private async signedData(jobId: string, outputs: JobOutput[]): Promise<unknown[]> {
    return (await this.withSignedFileUrls(jobId, outputs)).map((output) =>
      isFileType(output.type) && typeof output.data === 'object' && output.data !== null ? { [FILE_MARKER_KEY]: output.type, ...output.data } : output.data,
    );
  }

  /**
   * When a build ends: its waiting jobs run, or end in error with the build's reason. Also when
   * a ready version ends in error (its tasks cannot start): its queued jobs end in error.
   */
  async releaseWaitingJobs(version: VersionRecord): Promise<void> {
    const failure = version.readyAt === null ? 'build failed' : 'tasks cannot run';
    for (const job of await this.deps.store.jobs.listQueuedByVersion(version.id)) {
      if (version.buildStatus === 'ready') await this.deps.queue.enqueue(version.id, job.id);
      else await this.deps.lifecycle.failQueued(job.id, `The version's ${failure}: ${version.buildError ?? 'unknown reason'}`);
    }
  }

  async get(principal: Principal, jobId: string, outputOffset = 0): Promise<JobView> {
    return this.view(await this.ownJob(principal, jobId), outputOffset);
  }

  /** A followed job's outputs from `outputOffset`, within one answer's budget; its owner was checked when the stream opened. */
  outputsFrom(jobId: string, outputOffset: number): Promise<Pick<JobView, 'outputs' | 'nextOutputOffset'>> {
    return this.views.outputsFrom(jobId, outputOffset);
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

  /** The job once it has finished, errored or been cancelled; 408 after `timeoutMs`. */
  async await(principal: Principal, jobId: string, outputOffset: number, timeoutMs: number): Promise<JobView> {
    // Subscribed before the job is read, so a completion between the two is not missed.
    const completion = this.subscribeCompletion(jobId, timeoutMs);
    try {
      const job = await this.ownJob(principal, jobId);
      if (isFinalJobStatus(job.status)) return this.view(job, outputOffset);
      return this.view(await completion.done, outputOffset);
    } finally {
      completion.cancel();
    }
  }

  /** The job once it has ended, woken by the completion itself (an event), not by polling. */
  async waitForCompletion(jobId: string, timeoutMs: number): Promise<JobRecord> {
    const completion = this.subscribeCompletion(jobId, timeoutMs);
    try {
      const job = await this.deps.store.jobs.get(jobId);
      return job && isFinalJobStatus(job.status) ? job : await completion.done;
    } finally {
      completion.cancel();
    }
  }

  /** `done` resolves with the job when it completes, or rejects with 408 after `timeoutMs`; `cancel` unsubscribes. */
  private subscribeCompletion(jobId: string, timeoutMs: number): { done: Promise<JobRecord>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<JobRecord>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new ServiceError('timeout', 'Request timeout.'));
      }, timeoutMs);
      const unsubscribe = this.deps.events.subscribe(jobId, (event) => {
        if (event.type !== 'completed') return;
        cancel();
        resolve(event.job);
      });
      cancel = () => {
        clearTimeout(timer);
        unsubscribe();
      };
    });
    done.catch(() => undefined); // a caller that stopped waiting does not see the timeout
    return { done, cancel };
  }

  /** `done` resolves at the job's next event, or after `pollMs`; `cancel` unsubscribes. */
  private nextChange(jobId: string, pollMs: number): { done: Promise<void>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      const unsubscribe = this.deps.events.subscribe(jobId, () => resolve());
      cancel = () => {
        clearTimeout(timer);
        unsubscribe();
      };
    });
    return { done, cancel };
  }

  /** A short-lived URL the job's output file in `slot` downloads from (presigned S3, or the local service's own signed URL). */
  async outputFileUrl(principal: Principal, jobId: string, slot: FileSlot): Promise<string> {
    await this.ownJob(principal, jobId);
    const url = await this.deps.artifacts.outputFileUrl(jobId, slot);
    if (url === null) throw notFound('File not found.');
    return url;
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

  /** Cancels a queued job at once, or a processing one by stopping its run. */
  async cancel(principal: Principal, jobId: string): Promise<JobView> {
    const job = await this.ownJob(principal, jobId);
    if (isFinalJobStatus(job.status)) throw badRequest('Job is not processing.');
    const cancelled = await this.deps.store.jobs.transition(job.id, ['queued', 'processing'], { status: 'cancelled', completedAt: this.deps.clock.now() });
    if (!cancelled) return this.cancel(principal, jobId); // it moved meanwhile: look again
    if (job.status === 'processing' || cancelled.startedAt !== null) this.deps.compute().stopJob(job.id);
    await this.deps.notifier.notify({ type: 'completed', job: cancelled });
    return this.view(cancelled, 0);
  }

  private ownJob(principal: Principal, jobId: string): Promise<JobRecord> {
    return readOwnJob(this.deps.store, principal, jobId);
  }

  private view(job: JobRecord, outputOffset: number): Promise<JobView> {
    return this.views.one(job, outputOffset);
  }

  private listed(jobs: JobRecord[]): Promise<JobView[]> {
    return this.views.listed(jobs);
  }

  private withSignedFileUrls(jobId: string, outputs: JobOutput[]): Promise<JobOutput[]> {
    return this.views.withSignedFileUrls(jobId, outputs);
  }

  /** `function` (owner/name[:version]) or `id` (a function id or a version id): exactly one. */
  private async resolveTarget(principal: Principal, body: PushBody): Promise<{ fn: FunctionRecord; version: VersionRecord }> {
    const { store, access, versions } = this.deps;
    const hasFunction = body.function !== undefined && body.function !== null;
    const hasId = body.id !== undefined && body.id !== null;
    if (hasFunction === hasId) {
      const msg = hasFunction ? 'Give either function or id, not both.' : 'One of function or id is required.';
      throw new ValidationError([
        { loc: ['body', 'function'], msg, type: 'value_error' },
        { loc: ['body', 'id'], msg, type: 'value_error' },
      ]);
    }
    let fn: FunctionRecord;
    let version: VersionRecord;
    if (hasFunction) {
      const reference = parseFunctionReference(body.function as string);
      // Sieve's answer to a reference it cannot read; what it should look like follows.
      if (!reference) throw badRequest('Invalid function specified. It must be "owner/name" or "owner/name:version".');
      fn = await access.readable(principal, reference.ownerName, reference.name);
      version = reference.versionSlug ? await versions.resolveSlug(fn, reference.versionSlug) : await this.runnableVersion(fn);
    } else {
      const byVersion = await store.versions.get(body.id as string);
      const found = byVersion ? await store.functions.getById(byVersion.functionId) : await store.functions.getById(body.id as string);
      if (!found || !access.canRead(principal, found)) throw notFound('Function not found.');
      fn = found;
      version = byVersion ?? (await this.runnableVersion(fn));
    }
    if (version.buildStatus === 'error') {
      throw badRequest(`Version ${version.id} of ${fn.ownerName}/${fn.name} failed to build and cannot run: ${version.buildError ?? 'unknown reason'}`);
    }
    return { fn, version };
  }

  /** The newest ready version; else the newest one still building (the job waits for it). */
  private async runnableVersion(fn: FunctionRecord): Promise<VersionRecord> {
    const ready = await this.deps.store.versions.latestReady(fn.id);
    if (ready) return ready;
    const [newest] = await this.deps.store.versions.listByFunction(fn.id, { limit: 1, offset: 0 });
    if (newest && newest.buildStatus !== 'error') return newest;
    throw badRequest(`${fn.ownerName}/${fn.name} has no version that can run: its builds failed. Deploy it again.`);
  }
}
