import type { Visibility } from './function.js';
import type { Micros } from './time.js';
import type { Webhook } from './webhook.js';

export const JOB_STATUSES = ['queued', 'processing', 'error', 'finished', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['finished', 'error', 'cancelled'];
export const isFinalJobStatus = (status: JobStatus) => FINAL_JOB_STATUSES.includes(status);

/**
 * When a job that ends now ends: now, or its start where the clock stamping the end is behind
 * the one that stamped the start (on AWS, a worker task's and a Lambda's: two machines). A job
 * never ends before it started, so its usage span is never negative.
 */
export const endTime = (now: Micros, startedAt: Micros | null): Micros => (startedAt !== null && startedAt > now ? startedAt : now);

/** When an await of a job its parent pushed answers: at once, at its next outputs (or its end), or at its end. */
export const PUSHED_JOB_WAITS = ['now', 'output', 'end'] as const;
export type PushedJobWait = (typeof PUSHED_JOB_WAITS)[number];

/** A job runs at most this many times when its replica dies under it. */
export const MAX_JOB_ATTEMPTS = 3;

export const PUSH_SOURCES = ['api', 'dashboard', 'search'] as const;
export type PushSource = (typeof PUSH_SOURCES)[number];

/** Why an attempt ended without a result: the replica failed, ran out of memory, or was taken away. */
export type RestartType = 'error' | 'OOM' | 'preemption';

export interface RestartEntry {
  timestamp: Micros;
  reason: string;
  type: RestartType;
  run_id: string;
  /** Set when the attempt raised and the job was run again for it (`retries`): 1 for the first retry. */
  retry?: number;
}

/**
 * A job: one call of one version with its inputs. Status moves
 * queued -> processing -> finished | error | cancelled (and processing -> queued when its
 * replica dies, recorded in `restarts`); every move is conditional on the current status.
 */
export interface JobRecord {
  id: string;
  functionId: string;
  versionId: string;
  /** The organization that pushed it; only it can read the job. */
  organizationId: string;
  ownerName: string;
  functionName: string;
  status: JobStatus;
  createdAt: Micros;
  startedAt: Micros | null;
  completedAt: Micros | null;
  /** "" when there is none. */
  error: string;
  visibility: Visibility;
  /** The current (or last) attempt's run id. */
  runId: string | null;
  inputs: Record<string, unknown>;
  /** Environment variables for this job, over the version's defaults. */
  env: Record<string, string>;
  webhooks: Webhook[];
  source: PushSource;
  parentJobId: string | null;
  restarts: RestartEntry[];
  /** How many times it has been started. */
  attempts: number;
  /**
   * Seconds each run may take before the job ends in error: the shorter of the function's
   * `timeout` and the push's. Null (or absent, on older jobs) for no limit.
   */
  timeLimitSeconds?: number | null;
  /** Higher starts first within the organization's share (scheduling.ts); absent on older jobs: 0. */
  priority?: number;
  /** Seconds after its push by which the job must have started, else it ends cancelled; null for none. */
  startTimeoutSeconds?: number | null;
  /** How many times a job that raises is run again (not for FatalException); absent: 0. */
  maxRetries?: number;
  /** The job this one replays (POST /v2/jobs/{id}/replay), or null. */
  replayOf?: string | null;
  /** The latest jobs that replay this one, oldest first: the last few only (JobStore.addReplay). */
  replays?: string[];
}

/** A job pushed from inside another, as its parent's `children` shows it. */
export type ChildJob = Pick<JobRecord, 'id' | 'status' | 'createdAt' | 'ownerName' | 'functionName'>;

export type JobPatch = Partial<Pick<JobRecord, 'status' | 'startedAt' | 'completedAt' | 'error' | 'runId' | 'restarts'>> & {
  /** The move starts an attempt: the store adds one to `attempts` in the same write (no read before it). */
  countAttempt?: boolean;
};

/** One output of a job: a returned value, or one yielded value of a generator. */
export interface JobOutput {
  jobId: string;
  /** 0, 1, 2... in the order the function produced them. */
  index: number;
  runId: string;
  type: string;
  name: string;
  data: unknown;
}
