import type { FileSlot } from '../domain/fileOutputs.js';
import type { JobRecord } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { JobReports } from '../ports/jobReports.js';
import type { LogLines, OpenLogLines } from '../ports/logLines.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { GpuInventory } from './gpuInventory.js';
import type { AwaitMessage, CallMessage, CallResult } from './protocol.js';
import type { Replica, ReplicaCommand } from './replica.js';

/** What a version's replica pool, and the jobs its replicas run, are given by the agent. */
export interface PoolContext {
  queue: JobQueue;
  lifecycle: JobReports;
  /** Where the replicas' setup and jobs' lines go. */
  openLog: OpenLogLines;
  clock: Clock;
  gpus: GpuInventory;
  idleTimeoutMs: number;
  /** Replicas a version may have when it names no maximum_replicas. */
  defaultMaxReplicas: number;
  /** The largest output kept inline (its JSON); a larger one is stored as a file output. */
  maxOutputBytes: number;
  /**
   * A fixed number of replicas, whatever the queue: an ECS task runs its version's `split`
   * replicas from start to stop, and ECS scales the tasks. Absent locally, where the pool scales.
   */
  fixedReplicas?: number;
  newReplicaId(): string;
  /** How a replica of this version starts (the local mode confines it in a sandbox). */
  replicaProcess(version: VersionRecord, gpuIndex: number | null, replicaId: string): ReplicaProcess;
  storeFile(job: JobRecord, slot: FileSlot, path: string, name: string): Promise<unknown>;
  /** Stores a file a job passes to another function (the first `size` bytes at `path`) where the called job fetches it: `{upload_id, name}`, an upload of the job's organization. */
  storeCallFile(job: JobRecord, path: string, name: string, size: number): Promise<{ upload_id: string; name: string }>;
  /** The most bytes the files one call passes may hold together (SLUICE_MAX_UPLOAD_MB). */
  maxCallFileBytes: number;
  /** Fetches the job's File inputs into `directory`; the inputs the replica gets, Files as local paths. Rejects with an InputFetchError to show. */
  fetchInputs(version: VersionRecord, job: JobRecord, directory: string, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Where each replica's jobs' inputs are fetched to: `<inputsDir>/<replica id>/<job id>/`, which the replica must be able to read. */
  inputsDir: string;
  handleCall(job: JobRecord, call: CallMessage | AwaitMessage): Promise<CallResult>;
  /** Adds idle time of minimum replicas to the owner's usage. */
  recordIdle(version: VersionRecord, seconds: number): Promise<void>;
  isStopping(): boolean;
  onError(error: unknown, context: string): void;
  /** Each replica's start, setup and end (the service log, metrics). */
  telemetry?: Telemetry;
}

/** A replica's command, and what its host does with the files it names and once it exits. */
export interface ReplicaProcess extends ReplicaCommand {
  /**
   * A file the replica hands out as an output, opened for reading: `path` reads it; null when
   * the replica may not hand it out (outside what it may see). Absent: the path is read as named.
   */
  openOutput?(path: string): Promise<{ path: string; close(): Promise<void> } | null>;
  /** Called once the process has exited (its scratch space goes). */
  dispose?(): Promise<void>;
}

/** A replica of the pool, with what the pool keeps of it. */
export interface PoolMember {
  replica: Replica;
  process: ReplicaProcess;
  release: () => void;
  idleTimer?: NodeJS.Timeout;
  /** Where the replica's output goes: the running job's log, else the version's log. */
  log: LogLines;
  /** The version's log, for output outside any job (setup, and between jobs). */
  versionLog: LogLines;
  /** Stops fetching the inputs of the job the replica is reserved for, when the replica goes. */
  abortFetch?: AbortController;
  /** Its setup succeeded: an exit of its own from then on is a crash (before, a failed setup, told as such). */
  setUp?: boolean;
}
