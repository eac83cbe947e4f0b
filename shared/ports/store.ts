import type { ApiKey } from '../domain/apiKey.js';
import type { BuildStatus } from '../domain/buildStatus.js';
import type { FunctionRecord } from '../domain/function.js';
import type { ChildJob, JobOutput, JobPatch, JobRecord, JobStatus } from '../domain/job.js';
import type { ListedOutput, OutputPreviewLimits } from '../domain/listPreview.js';
import type { BillingClass } from '../domain/machineTypes.js';
import type { UsageIncrement, UsageTotals } from '../domain/usage.js';
import type { DeliveryAttempt, DeliveryState, WebhookDelivery } from '../domain/webhookDelivery.js';
import type { LogEntry } from '../domain/log.js';
import type { Organization } from '../domain/organization.js';
import type { OrganizationLimits } from '../domain/organizationLimits.js';
import type { IdempotencyRecord } from '../domain/idempotency.js';
import type { ListKey } from '../domain/listOffsets.js';
import type { PageEndStore } from './pageEnds.js';
import type { ReplicaBounds, VersionPatch, VersionRecord } from '../domain/version.js';

/**
 * The persistence port. Every adapter (SQLite, DynamoDB) passes the same contract suite
 * in test/contract. Writes that race are conditional on a single item; the one write of two
 * items that must land together (a job's usage: its marker and the hour's sum) is a transaction.
 */
export interface Store {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  functions: FunctionStore;
  versions: VersionStore;
  logs: LogStore;
  jobs: JobStore;
  deliveries: DeliveryStore;
  usage: UsageStore;
  idempotencyKeys: IdempotencyKeyStore;
  pageEnds: PageEndStore;
  /**
   * Resolves once every write made so far is durable: at once where each write is durable when
   * it returns (DynamoDB); at the next commit where writes are committed in batches (SQLite).
   */
  durable(): Promise<void>;
  close(): Promise<void>;
}

export interface Page {
  limit: number;
  offset: number;
  /** Job lists: start after this job (where an earlier page ended) instead of counting `offset`. */
  after?: ListKey;
}

/** Pushes' Idempotency-Keys, per organization. */
export interface IdempotencyKeyStore {
  /**
   * Stores the record unless one for the same organization and key exists that has not expired
   * (its expiresAt is after this one's createdAt). Returns the record that holds the key now:
   * this one when it won, or the earlier one.
   */
  claim(record: IdempotencyRecord): Promise<IdempotencyRecord>;
  /** Forgets the key if it still names this job (its push failed, so a retry may use it again). */
  release(organizationId: string, key: string, jobId: string): Promise<void>;
}

export interface OrganizationStore {
  /** Creates it unless an organization of that name exists; returns the one stored. */
  createIfAbsent(organization: Organization): Promise<Organization>;
  /** The organization whole, its limits included. */
  getByName(name: string): Promise<Organization | null>;
  /**
   * Its id, name, creation and webhook secret: its limits and budgetWarnedMonth may be left out
   * (DynamoDB's by_id index does not carry them); getByName reads them.
   */
  getById(id: string): Promise<Organization | null>;
  /** Replaces the organization's webhook signing secret. */
  setWebhookSecret(id: string, secret: string): Promise<void>;
  /** Every organization, by name: the operator's list (there are few; read whole). */
  list(): Promise<Organization[]>;
  /** Replaces its limits; the organization as it is now, or null when there is no such organization. */
  setLimits(id: string, limits: OrganizationLimits): Promise<Organization | null>;
  /**
   * Records that the budget warning of `month` (`YYYY-MM`) was sent: true for the first call of a
   * month, even when calls race, false for every later one (and for an unknown id).
   */
  markBudgetWarned(id: string, month: string): Promise<boolean>;
}

export interface ApiKeyStore {
  create(key: ApiKey): Promise<void>;
  getByHash(hash: string): Promise<ApiKey | null>;
  /** All keys of an organization, or of every organization; oldest first. */
  list(organizationId?: string): Promise<ApiKey[]>;
  /** Marks it revoked; false when no unrevoked key has that id. */
  revoke(id: string, at: number): Promise<boolean>;
  /**
   * Revokes an active key of this organization only while another of its keys stays active,
   * even when revocations race, so an organization never revokes its way out: `last` when
   * nothing was revoked because it would have left none active, `absent` when the
   * organization has no active key with that id.
   */
  revokeKeepingOne(id: string, organizationId: string, at: number): Promise<KeepingOneRevocation>;
}

export type KeepingOneRevocation = 'revoked' | 'last' | 'absent';

export interface FunctionStore {
  /** False when a function of that owner and name exists already. */
  create(fn: FunctionRecord): Promise<boolean>;
  get(ownerName: string, name: string): Promise<FunctionRecord | null>;
  getById(id: string): Promise<FunctionRecord | null>;
  /** Replaces the stored record. */
  put(fn: FunctionRecord): Promise<void>;
  /** An organization's functions, by name. */
  listByOwner(ownerName: string, page: Page): Promise<FunctionRecord[]>;
}

export interface VersionStore {
  create(version: VersionRecord): Promise<void>;
  get(id: string): Promise<VersionRecord | null>;
  /** A function's versions whose id starts with the prefix (at most `limit`, to detect ambiguity). */
  findByPrefix(functionId: string, prefix: string, limit: number): Promise<VersionRecord[]>;
  /** A function's versions, newest first. */
  listByFunction(functionId: string, page: Page): Promise<VersionRecord[]>;
  /** The newest version in `ready`, if any. */
  latestReady(functionId: string): Promise<VersionRecord | null>;
  /**
   * Applies the patch only while the build status is one of `from`: the guard that keeps two
   * builders from both moving a version. Returns the updated record, or null if the guard failed.
   */
  transition(id: string, from: readonly BuildStatus[], patch: VersionPatch): Promise<VersionRecord | null>;
  /**
   * Sets a version's replica bounds, whatever its build status (an edit, without a redeploy).
   * Returns the updated record, or null when there is no such version.
   */
  setReplicaBounds(id: string, bounds: ReplicaBounds): Promise<VersionRecord | null>;
  /**
   * Versions in any of the statuses, oldest first, read by index: builds to resume after a
   * restart; with `createdBefore`, only versions created before it (the sweeper's stuck builds).
   */
  listByBuildStatus(statuses: readonly BuildStatus[], createdBefore?: number): Promise<VersionRecord[]>;
}

export interface LogQuery {
  /** One stream (`job:<id>`, `version:<id>`), or all of an organization's lines when absent. */
  stream?: string;
  organizationId: string;
  startNs: bigint;
  endNs: bigint;
  limit: number;
}

export interface LogStore {
  append(entries: LogEntry[]): Promise<void>;
  /** Lines with startNs <= time <= endNs, oldest first, at most `limit`. */
  query(query: LogQuery): Promise<LogEntry[]>;
}

export interface JobFilter {
  /** Only jobs this organization pushed. */
  organizationId: string;
  /** Only jobs in this status; all when absent. */
  status?: JobStatus;
}

export interface JobStore {
  create(job: JobRecord, options?: WriteOptions): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /**
   * A job's status alone (null: no such job): what a waiter polls for, reading the whole job
   * only once its status changed. DynamoDB reads one attribute; SQLite its remembered record.
   */
  statusOf(id: string): Promise<JobStatus | null>;
  /**
   * Applies the patch only while the status is one of `from`, so two actors (a replica
   * finishing, a user cancelling) can never both win. Returns the updated job, or null.
   */
  transition(id: string, from: readonly JobStatus[], patch: JobPatch, options?: WriteOptions): Promise<JobRecord | null>;
  /**
   * Adds `replayId` to the job's `replays`, keeping the last `keep`: atomic, so replays made at
   * once all count, whatever the job's status. Nothing happens when the job does not exist.
   */
  addReplay(id: string, replayId: string, keep: number): Promise<void>;
  /**
   * Newest first (createdAt desc, then id desc). Lists are pages: a listed job's `inputs` are
   * their list preview (inputsPreview: large values null), the inputs themselves are not read.
   */
  listByFunction(functionId: string, filter: JobFilter, page: Page): Promise<JobRecord[]>;
  /** A version's jobs are never filtered by status (the interface has no such filter). */
  listByVersion(versionId: string, filter: Pick<JobFilter, 'organizationId'>, page: Page): Promise<JobRecord[]>;
  listByOrganization(filter: JobFilter, page: Page): Promise<JobRecord[]>;
  /** How many of the organization's jobs are queued and processing now, read by index. */
  countActive(organizationId: string): Promise<ActiveJobCounts>;
  /** The organization's jobs created in [from, to) (microseconds), oldest first, read by index. */
  listCreatedBetween(organizationId: string, from: number, to: number): Promise<JobRecord[]>;
  /** Jobs pushed from inside this job, oldest first, as lists read them (inputs are their preview). */
  listChildren(parentJobId: string): Promise<JobRecord[]>;
  /**
   * Jobs pushed from inside this job as its `children` shows them, oldest first, at most `limit`
   * (all when absent): only their ids, statuses, times and functions are read.
   */
  listChildSummaries(parentJobId: string, limit?: number): Promise<ChildJob[]>;
  /** Every job in these statuses, oldest first: to requeue work after a restart. */
  listByStatus(statuses: readonly JobStatus[]): Promise<JobRecord[]>;
  /** A version's queued jobs, oldest first, read by index: the jobs that waited for its build. */
  listQueuedByVersion(versionId: string): Promise<JobRecord[]>;
  /** Queued jobs created before `createdBefore`, oldest first, at most `limit`, read by index (the sweeper's). */
  listQueuedBefore(createdBefore: number, limit: number): Promise<JobRecord[]>;
  /** Stores one output; an output with the same job and index is stored once. */
  appendOutput(output: JobOutput, options?: WriteOptions): Promise<void>;
  /**
   * A job's outputs by index, skipping the first `offset`. With `maxBytes`, only enough for one
   * answer (answerBudget.ts): those within `maxBytes` of stored data, the one that passes it, and
   * one more, so that the caller sees whether more follow; the rest are not read.
   */
  listOutputs(jobId: string, offset: number, maxBytes?: number): Promise<JobOutput[]>;
  /**
   * A job's first outputs as a list page shows them (listPreview.ts): the data of those that
   * inlinedBySize leaves out is never read, only its stored size.
   */
  listOutputPreviews(jobId: string, limits: OutputPreviewLimits): Promise<ListedOutput[]>;
}

export interface WriteOptions {
  /**
   * Resolve once the write is decided, before it is durable: it becomes durable with the store's
   * next commit (Store.durable waits for it), and a crash before then leaves the job as it was.
   * For a move whose loss a restart repairs (a start: the job is queued again and rerun), and for
   * a push, which waits for Store.durable itself before it is acknowledged.
   */
  deferDurability?: boolean;
}

export interface ActiveJobCounts {
  queued: number;
  processing: number;
}

/** Where a page of overdue deliveries ended: its last delivery's due time and id. */
export interface OverdueCursor {
  nextAttemptAt: number;
  id: string;
}

export interface DeliveryStore {
  /**
   * Stores a new delivery; false (storing nothing) when one with its id exists: an event made
   * again after a crash (eventDeliveryId) is stored once.
   */
  create(delivery: WebhookDelivery, options?: WriteOptions): Promise<boolean>;
  get(id: string): Promise<WebhookDelivery | null>;
  /**
   * Records an attempt and the state it leaves, only while the delivery is still pending
   * (null otherwise, leaving it unchanged).
   */
  recordAttempt(id: string, attempt: DeliveryAttempt, state: DeliveryState, nextAttemptAt: number): Promise<WebhookDelivery | null>;
  /** A job's deliveries, by URL then sequence. */
  listByJob(jobId: string): Promise<WebhookDelivery[]>;
  /** Every pending delivery, oldest first: to resume after a restart. */
  listPending(): Promise<WebhookDelivery[]>;
  /**
   * Pending deliveries whose next attempt was due before `dueBefore`, earliest due first, at most
   * `limit`, after the delivery `after` names (the sweeper's, page by page).
   */
  listOverdue(dueBefore: number, limit: number, after?: OverdueCursor): Promise<WebhookDelivery[]>;
}

export interface UsageQuery {
  organizationId: string;
  /** Only this version's usage; all of the organization's when absent. */
  versionId?: string;
  /** Hours with fromHour <= hour < toHour (seconds since the epoch, whole hours). */
  fromHour: number;
  toHour: number;
}

export interface UsageStore {
  /**
   * Adds a finished job's compute time, once: a second call for the same job id changes
   * nothing and answers false. (Any once-only marker works as the id: idle slots use it too.)
   */
  recordJob(jobId: string, increment: UsageIncrement, options?: WriteOptions): Promise<boolean>;
  /** Adds time that belongs to no job (minimum replicas kept warm while idle). */
  add(increment: UsageIncrement): Promise<void>;
  /** Sums by billing class over the hours asked for. */
  totals(query: UsageQuery): Promise<Map<BillingClass, UsageTotals>>;
  /** Sums by function id, then billing class, over the hours asked for (of the version, when one is named). */
  totalsByFunction(query: UsageQuery): Promise<Map<string, Map<BillingClass, UsageTotals>>>;
}
