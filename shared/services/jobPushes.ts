import { badRequest, notFound, RateLimitedError, ValidationError } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import { newShortId, newTimeOrderedId } from '../domain/ids.js';
import type { JobRecord, PushSource } from '../domain/job.js';
import { DEFAULT_PRIORITY } from '../domain/scheduling.js';
import type { VersionRecord } from '../domain/version.js';
import type { Webhook } from '../domain/webhook.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { JobReports } from '../ports/jobReports.js';
import type { Store } from '../ports/store.js';
import type { Budgets } from './budgets.js';
import type { FunctionAccess } from './functionAccess.js';
import type { Principal } from './principal.js';
import { checkInputs, mergeEnvironment, namedInputs, namePositionalInputs, parseFunctionReference } from './pushRequest.js';
import type { VersionService } from './versionService.js';
import type { WebhookUrlPolicy } from './webhookUrlPolicy.js';

/** The stricter of two time limits, null meaning none. */
const shorterLimit = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));

/** What a push refused for a full queue is told to wait: a second drains many jobs, and a client retrying sooner only adds load. */
const QUEUE_FULL_RETRY_AFTER_S = 1;

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
  /** Sluice's scheduling fields (domain/scheduling.ts). */
  priority?: number;
  start_timeout?: number | null;
  retries?: number;
  /** Set by a replay (jobReplays.ts), never by a request: the job this one replays. */
  replayOf?: string;
}

export interface JobPushesDeps {
  store: Store;
  access: FunctionAccess;
  versions: VersionService;
  queue: JobQueue;
  lifecycle: JobReports;
  webhookPolicy: WebhookUrlPolicy;
  clock: Clock;
  /** Jobs a version's queue holds before a push from outside is refused (429). */
  maxQueuedPerVersion: number;
  /** The organization's monthly budget (402) and cap on active jobs (429). */
  budgets: Pick<Budgets, 'assertCanPush'>;
  /** Told of each job stored (the local mode watches start deadlines: StartDeadlines.watch). */
  onPushed?: (job: JobRecord) => void;
}

/** New jobs: a push resolves its function's version, checks its inputs, and queues it; jobs wait for a version still building. */
export class JobPushes {
  constructor(private readonly deps: JobPushesDeps) {}

  async push(
    principal: Principal,
    body: PushBody,
    source: PushSource,
    parentJobId: string | null = null,
    /** An Idempotency-Key's job id: a failed push is retried as this job. */
    keyedJobId?: string,
  ): Promise<{ job: JobRecord; version: VersionRecord }> {
    const keyed = keyedJobId !== undefined;
    const jobId = keyedJobId ?? newTimeOrderedId();
    const { store, queue, clock } = this.deps;
    const { fn, version } = await this.resolveTarget(principal, body);
    // A job's own calls are not refused: its workflow would fail for a backlog it did not make.
    if (parentJobId === null) this.assertRoomInQueue(version);
    await this.deps.budgets.assertCanPush(principal, parentJobId !== null);
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
      priority: body.priority ?? DEFAULT_PRIORITY,
      startTimeoutSeconds: body.start_timeout ?? null,
      maxRetries: body.retries ?? version.retries ?? 0,
      replayOf: body.replayOf ?? null,
    };
    // Queued before its commit, so that a short job runs while the commit gathers, and its end
    // often shares that commit: one wait a job instead of two. The push is answered only once the
    // job is durable; a crash in between loses a job nobody was told of (its client retries), whose
    // function may have begun.
    await store.jobs.create(job, { deferDurability: true });
    this.deps.onPushed?.(job);
    // A job for a version still building waits for it; releaseWaitingJobs enqueues it when the
    // build ends. Reading the status after the job exists closes the race with that release.
    const current = version.buildStatus === 'ready' ? version : await store.versions.get(version.id);
    try {
      if (current?.buildStatus === 'ready') await queue.enqueue(job);
    } catch (error) {
      // Stored, never sent (SQS refused it past the SDK's retries): a push without a key is not
      // retried as this job, so it ends now rather than wait queued for a message that never
      // comes. A keyed push leaves it queued: its retry sends it (sendAgainIfUnstarted).
      if (!keyed) await this.deps.lifecycle.failQueued(job.id, `The job could not be queued: ${(error as Error).message}`).catch(() => null);
      throw error;
    }
    await store.durable();
    return { job, version };
  }

  /**
   * A job a retried push answers: if it never left the queue, its message is sent again, for the
   * push that made it may have died (a Lambda timed out while SQS refused it) after storing the
   * job and before sending it. A second message of a job already sent is skipped by the
   * conditional start.
   */
  async sendAgainIfUnstarted(job: JobRecord, version: VersionRecord): Promise<void> {
    if (job.status === 'queued' && job.attempts === 0 && version.buildStatus === 'ready') await this.deps.queue.enqueue(job);
  }

  /**
   * Backpressure: past the bound, a push is refused before anything is written, so a client
   * pushing faster than the replicas drain cannot grow the queue (and the service's memory)
   * without limit, nor starve the jobs already queued.
   */
  private assertRoomInQueue(version: VersionRecord): void {
    const waiting = this.deps.queue.depth(version.id);
    if (waiting < this.deps.maxQueuedPerVersion) return;
    throw new RateLimitedError(
      `${waiting} jobs already wait for version ${version.id}; the limit is ${this.deps.maxQueuedPerVersion}. Try again later.`,
      QUEUE_FULL_RETRY_AFTER_S,
    );
  }

  /**
   * When a build ends: its waiting jobs run, or end in error with the build's reason. Also when
   * a ready version ends in error (its tasks cannot start): its queued jobs end in error.
   */
  async releaseWaitingJobs(version: VersionRecord): Promise<void> {
    const failure = version.readyAt === null ? 'build failed' : 'tasks cannot run';
    for (const job of await this.deps.store.jobs.listQueuedByVersion(version.id)) {
      if (version.buildStatus === 'ready') await this.deps.queue.enqueue(job);
      else await this.deps.lifecycle.failQueued(job.id, `The version's ${failure}: ${version.buildError ?? 'unknown reason'}`);
    }
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
