import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileSlot } from '../domain/fileOutputs.js';
import type { JobRecord } from '../domain/job.js';
import { jobLogStream, versionLogStream } from '../domain/log.js';
import { wantedReplicas } from '../domain/replicaBounds.js';
import type { ReplicaBounds, VersionRecord } from '../domain/version.js';
import type { WorkerCounts } from '../domain/wire/common.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { LogLines, OpenLogLines } from '../ports/logLines.js';
import type { ReplicaEvent, Telemetry } from '../ports/telemetry.js';
import type { JobReports } from '../ports/jobReports.js';
import type { GpuInventory } from './gpuInventory.js';
import type { AwaitMessage, CallMessage, CallResult, OutputMessage } from './protocol.js';
import type { ReplicaCommand, RunOutcome } from './replica.js';
import { Replica } from './replica.js';
import { outputFromMessage } from './outputs.js';
import { InputFetchError, namesFileInputs } from './jobInputs.js';
import { CallFileError, openInside, passCallFiles } from './callFiles.js';

/** After this many setups fail in a row, the version's queued jobs end in error with the setup's error. */
const SETUP_FAILURES_BEFORE_GIVING_UP = 3;

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

interface Member {
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

/**
 * The replicas of one version: scaled between minimum_replicas and maximum_replicas on the
 * queue's depth, each taking the next job when idle, each stopped after an idle window.
 */
export class ReplicaPool {
  private readonly members = new Map<Replica, Member>();
  private readonly running = new Set<Promise<void>>();
  private awaitingResources = 0;
  private dispatching = false;
  private dispatchAgain = false;
  private setupFailures = 0;
  /** Idle accounting: when it was last brought up to date, and the seconds not yet recorded. */
  private idleAccruedAt = performance.now();
  private unrecordedIdleSeconds = 0;
  /** How it waits its turn for a GPU that other versions want too. */
  private readonly gpuClaimant = { wake: () => this.wake(), waiting: () => !this.context.isStopping() && this.members.size < this.wanted() };

  constructor(
    /** Its replica bounds change when the version is edited (setReplicaBounds). */
    public version: VersionRecord,
    private readonly context: PoolContext,
  ) {}

  /** The version's replica bounds were edited: scale between the new ones; idle replicas beyond the new maximum stop now. */
  setReplicaBounds(bounds: ReplicaBounds): void {
    this.version = {
      ...this.version,
      minimumReplicas: bounds.minimumReplicas,
      maximumReplicas: bounds.maximumReplicas,
      scaledownWindowSeconds: bounds.scaledownWindowSeconds,
      bufferReplicas: bounds.bufferReplicas,
    };
    let excess = this.members.size - this.cap();
    for (const { replica } of this.members.values()) {
      if (excess <= 0) break;
      if (replica.state !== 'idle') continue;
      replica.kill();
      excess -= 1;
    }
    this.wake();
  }

  /** Something changed (a job queued, a replica freed): scale and hand out jobs. */
  wake(): void {
    void this.dispatch().catch((error: unknown) => this.context.onError(error, `dispatch for version ${this.version.id}`));
  }

  /**
   * Idle time of minimum replicas is billed: since the last call, each idle replica, up to
   * minimum_replicas of them, accrued the time passed. Called at every change of state and
   * every minute; recorded once a whole second has gathered.
   */
  accrueIdle(): Promise<void> {
    const now = performance.now();
    const idle = [...this.members.keys()].filter((replica) => replica.state === 'idle').length;
    this.unrecordedIdleSeconds += (Math.min(idle, this.version.minimumReplicas) * (now - this.idleAccruedAt)) / 1000;
    this.idleAccruedAt = now;
    if (this.unrecordedIdleSeconds < 1) return Promise.resolve();
    const seconds = this.unrecordedIdleSeconds;
    this.unrecordedIdleSeconds = 0;
    return this.context.recordIdle(this.version, seconds).catch((error: unknown) => this.context.onError(error, `idle usage of version ${this.version.id}`));
  }

  counts(): WorkerCounts {
    const counts: WorkerCounts = { starting: 0, setup: 0, active: 0, idle: 0, awaiting_resources: this.awaitingResources };
    for (const { replica } of this.members.values()) if (replica.state !== 'stopped') counts[replica.state] += 1;
    return counts;
  }

  runningJobIds(): string[] {
    return [...this.members.keys()].flatMap((replica) => (replica.currentJobId === null ? [] : [replica.currentJobId]));
  }

  /** Stops the run of this job, if one of these replicas has it; true when it did. */
  stopJob(jobId: string): boolean {
    for (const { replica } of this.members.values()) {
      if (replica.currentJobId === jobId) {
        replica.kill();
        return true;
      }
    }
    return false;
  }

  /**
   * Stops every replica: idle ones at once, busy ones once their job ends or `graceMs` has
   * passed, whichever is first; jobs still running then go back to the queue as preempted.
   * No job is handed out meanwhile (the agent is stopping).
   */
  async shutdown(graceMs = 0): Promise<void> {
    for (const { replica } of this.members.values()) if (replica.state !== 'active') replica.kill();
    if (graceMs > 0 && this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...this.running]), graceOver]);
      clearTimeout(timer);
    }
    for (const { replica } of this.members.values()) replica.kill();
    await Promise.allSettled([...this.running]);
  }

  private async dispatch(): Promise<void> {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = true;
    try {
      do {
        this.dispatchAgain = false;
        if (this.context.isStopping()) return;
        this.scale();
        for (const { replica } of this.members.values()) {
          if (replica.state !== 'idle') continue;
          const job = await this.nextJob();
          if (!job) break;
          this.track(this.execute(replica, job));
        }
      } while (this.dispatchAgain);
    } finally {
      this.dispatching = false;
    }
  }

  private async nextJob(): Promise<JobRecord | null> {
    const { queue, lifecycle } = this.context;
    for (;;) {
      const taken = await queue.take(this.version.id);
      if (taken === null) return null;
      // Null when the job left `queued` meanwhile (cancelled, or already running elsewhere): skip it.
      const job = (taken.redelivered ? await lifecycle.recoverAbandoned(taken.jobId) : null) ?? (await lifecycle.start(taken.jobId));
      if (job) return job;
      // Cancelled while queued, most often: what follows the cancel is made if its maker died first.
      await lifecycle.settleEnded(taken.jobId);
      await queue.ack(this.version.id, taken.jobId);
    }
  }

  /** The most replicas the version may have: its maximum (or the default), never below its minimum. */
  private cap(): number {
    const { minimumReplicas, maximumReplicas } = this.bounds();
    return Math.max(maximumReplicas || this.context.defaultMaxReplicas, minimumReplicas);
  }

  /** The replicas its running and waiting jobs need, with its buffer while it has any, within its bounds. */
  private wanted(): number {
    const busy = [...this.members.keys()].filter((replica) => replica.state === 'active').length;
    return wantedReplicas(this.bounds(), busy + this.context.queue.depth(this.version.id), this.cap());
  }

  private scale(): void {
    const wanted = this.wanted();
    this.awaitingResources = 0;
    while (this.members.size < wanted) {
      const placement = this.context.gpus.place(this.version.computeType, this.version.split, this.gpuClaimant);
      if (placement.kind === 'unavailable') {
        this.awaitingResources = wanted - this.members.size;
        return;
      }
      this.startReplica(placement.gpuIndex, placement.release);
    }
  }

  /** The replicas to keep and allow: the version's, or the fixed number of a task. */
  private bounds(): ReplicaBounds {
    const fixed = this.context.fixedReplicas;
    return fixed === undefined ? this.version : { minimumReplicas: fixed, maximumReplicas: fixed };
  }

  private startReplica(gpuIndex: number | null, release: () => void): void {
    const { version, context } = this;
    const id = context.newReplicaId();
    const setupLog = context.openLog({
      stream: versionLogStream(version.id),
      organizationId: version.organizationId,
      functionId: version.functionId,
      jobId: '',
      runId: id,
      stage: 'setup',
    });
    const process = context.replicaProcess(version, gpuIndex, id);
    const replica = new Replica({
      id,
      command: process.command,
      args: process.args,
      cwd: process.cwd,
      env: process.env,
      onLine: (line) => this.logLine(replica, line),
      onExit: () => this.removeReplica(replica),
    });
    this.members.set(replica, { replica, process, release, log: setupLog, versionLog: setupLog });
    this.tell({ what: 'started', versionId: version.id, replicaId: id, gpuIndex });
    replica.ready.then(
      () => {
        this.setupFailures = 0;
        const member = this.members.get(replica);
        if (member) member.setUp = true;
        // Setup's lines are stored now, not one flush interval later: a client that reads the
        // version's logs after its first jobs (which can end within that interval) finds them.
        void setupLog.flush();
        this.tell({ what: 'ready', versionId: version.id, replicaId: id, gpuIndex });
        this.becameIdle(replica);
      },
      (error: Error) => {
        // Stopped during setup by a stopping service: not a failure, and the store may be closing.
        if (this.context.isStopping()) return;
        this.tell({ what: 'setup_failed', versionId: version.id, replicaId: id, error: error.message });
        void this.setupFailed(setupLog, error);
      },
    );
  }

  /** A line the replica printed, to its current log; a log that falls behind pauses the replica's output. */
  private logLine(replica: Replica, line: string): void {
    const log = this.members.get(replica)?.log;
    if (!log || log.write(line)) return;
    replica.pauseOutput(true);
    void log.flush().finally(() => replica.pauseOutput(false));
  }

  private async setupFailed(setupLog: LogLines, error: Error): Promise<void> {
    setupLog.write(`Setup failed: ${error.message}`);
    await setupLog.flush();
    this.setupFailures += 1;
    if (this.setupFailures < SETUP_FAILURES_BEFORE_GIVING_UP || this.context.isStopping()) return;
    this.setupFailures = 0;
    for (let taken = await this.context.queue.take(this.version.id); taken !== null; taken = await this.context.queue.take(this.version.id)) {
      await this.context.lifecycle.failQueued(taken.jobId, `The function's setup failed ${SETUP_FAILURES_BEFORE_GIVING_UP} times: ${error.message}`);
      await this.context.queue.ack(this.version.id, taken.jobId);
    }
  }

  private becameIdle(replica: Replica): void {
    void this.accrueIdle();
    const member = this.members.get(replica);
    if (!member || replica.state !== 'idle') return;
    this.stopWhenIdleFor(member, replica);
    this.wake();
  }

  /** After the scale-down window idle, a replica beyond what the version wants stops; one still wanted (a buffer) is looked at again a window later. */
  private stopWhenIdleFor(member: Member, replica: Replica): void {
    clearTimeout(member.idleTimer);
    const window = this.version.scaledownWindowSeconds;
    member.idleTimer = setTimeout(
      () => {
        if (replica.state !== 'idle') return;
        if (this.members.size > this.wanted()) replica.kill();
        else this.stopWhenIdleFor(member, replica);
      },
      window === null || window === undefined ? this.context.idleTimeoutMs : window * 1000,
    );
    member.idleTimer.unref();
  }

  private removeReplica(replica: Replica): void {
    void this.accrueIdle();
    const member = this.members.get(replica);
    if (!member) return;
    const exit = replica.exitStatus;
    this.tell({
      what: member.setUp && exit?.killedByAgent === false ? 'crashed' : 'exited',
      versionId: this.version.id,
      replicaId: replica.id,
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
    });
    clearTimeout(member.idleTimer);
    member.abortFetch?.abort();
    member.release();
    this.members.delete(replica);
    void member.process.dispose?.().catch((error: unknown) => this.context.onError(error, `cleaning up after replica ${replica.id}`));
    void rm(join(this.context.inputsDir, replica.id), { recursive: true, force: true });
    if (!this.context.isStopping()) {
      // Keep minimum_replicas warm, and replace a replica that died with work waiting. A
      // replica that failed setup comes back after a pause that grows with each failure.
      const pause = this.setupFailures * 1000;
      if (pause > 0) setTimeout(() => this.wake(), pause).unref();
      else this.wake();
    }
  }

  private tell(event: ReplicaEvent): void {
    this.context.telemetry?.record({ kind: 'replica', event });
  }

  private track(execution: Promise<void>): void {
    const tracked = execution
      .catch((error: unknown) => this.context.onError(error, `job on version ${this.version.id}`))
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  private async execute(replica: Replica, job: JobRecord): Promise<void> {
    const member = this.members.get(replica);
    if (!member || replica.state !== 'idle') {
      // The replica went away between taking the job and starting it: the job runs elsewhere.
      await this.context.lifecycle.interrupt(job, 'preemption', 'The replica stopped before the job could start.');
      return;
    }
    clearTimeout(member.idleTimer);
    void this.accrueIdle();
    const log = this.context.openLog({
      stream: jobLogStream(job.id),
      organizationId: job.organizationId,
      functionId: job.functionId,
      jobId: job.id,
      runId: job.runId ?? '',
      stage: 'run',
    });
    member.log = log;
    replica.reserve(job.id);
    const inputs = await this.fetchInputs(replica, member, job);
    if (inputs === null) return;
    let outputs: Promise<void> = Promise.resolve();
    const outputsTold: Promise<void>[] = [];
    let outputError: string | null = null;
    const limit = job.timeLimitSeconds ?? null;
    let timedOut = false;
    // Past its time limit the run is stopped by ending its replica (the pool starts another).
    const deadline =
      limit === null
        ? undefined
        : setTimeout(() => {
            if (replica.currentJobId !== job.id) return; // it ended just now
            timedOut = true;
            replica.kill();
          }, limit * 1000);
    const outcome = await replica.runJob(
      { jobId: job.id, runId: job.runId ?? '', inputs: inputs.values, env: job.env, maxOutputBytes: this.context.maxOutputBytes },
      {
        onOutput: (message: OutputMessage) => {
          outputs = outputs
            .then(async () => {
              const output = await outputFromMessage(
                this.version,
                job,
                message,
                { replicaFile: (...file) => this.storeFile(member.process, ...file), agentFile: this.context.storeFile },
                this.context.maxOutputBytes,
              );
              // Written, not yet durable: the replica goes on, and the run's end waits for `told`.
              const { told } = await this.context.lifecycle.recordOutput(job, output);
              outputsTold.push(told);
            })
            .catch((error: unknown) => {
              outputError ??= `An output could not be stored: ${(error as Error).message}`;
            });
          return outputs;
        },
        onCall: (call) => this.onCall(replica, member.process, job, call),
      },
    );
    clearTimeout(deadline);
    // The run's output is read to its end marker: what the replica prints from now on is not
    // this job's (a thread it left behind, say), and never the next job's.
    member.log = member.versionLog;
    await outputs;
    await inputs.remove();
    let result: RunOutcome = timedOut
      ? { kind: 'error', error: `The job exceeded its time limit of ${limit} s.` }
      : outputError && outcome.kind === 'done'
        ? { kind: 'error', error: outputError }
        : outcome;
    // A fresh process for the next job after a failure, so state it left behind does not leak;
    // after a FatalException always, as Sieve restarts even with restart_on_error=False.
    if (result.kind === 'error' && (this.version.restartOnError || result.fatal)) replica.kill();
    // The replica is free: it takes its next job while this one's outputs are committed and its
    // end recorded. Its outputs ride the group commit; one whose commit failed fails the job.
    if (replica.state === 'idle') this.becameIdle(replica);
    await log.flush();
    const unstored = (await Promise.allSettled(outputsTold)).find((told) => told.status === 'rejected');
    if (unstored && result.kind === 'done') result = { kind: 'error', error: `An output could not be stored: ${(unstored.reason as Error).message}` };
    // Only an exception the function raised is retried: not FatalException, a time limit, or an output that could not be stored.
    await this.settle(job, result, result === outcome && outcome.kind === 'error' && !outcome.fatal);
    await this.context.queue.ack(this.version.id, job.id);
  }

  /**
   * A call or an await from the running job. A call's Files the function made itself are stored
   * first, read through the replica's process where it confines what may be handed out (as file
   * outputs are), or one of the job's own File inputs, which the agent fetched; one that may not
   * be, or too many or too large, fails the call, storing nothing.
   */
  private async onCall(replica: Replica, process: ReplicaProcess, job: JobRecord, call: CallMessage | AwaitMessage): Promise<CallResult> {
    if (call.type !== 'call') return this.context.handleCall(job, call);
    const ownInputs = join(this.context.inputsDir, replica.id, job.id);
    let passed: CallMessage;
    try {
      passed = await passCallFiles(call, {
        open: async (path) =>
          process.openOutput ? ((await process.openOutput(path)) ?? (await openInside(path, ownInputs))) : { path, close: async () => undefined },
        store: (path, name, size) => this.context.storeCallFile(job, path, name, size),
        maxBytes: this.context.maxCallFileBytes,
      });
    } catch (error) {
      if (!(error instanceof CallFileError)) this.context.onError(error, `files of a call by job ${job.id}`);
      return {
        type: 'call_result',
        call_id: call.call_id,
        ok: false,
        error: error instanceof CallFileError ? error.message : 'the files it passes could not be stored',
      };
    }
    return this.context.handleCall(job, passed);
  }

  /** Stores a file output, read through the replica's process where it confines what may be handed out. */
  private async storeFile(process: ReplicaProcess, job: JobRecord, slot: FileSlot, path: string, name: string): Promise<unknown> {
    if (!process.openOutput) return this.context.storeFile(job, slot, path, name);
    const opened = await process.openOutput(path);
    if (!opened)
      throw new Error(`output ${slot} names ${path}, which is not a file the function may hand out (write outputs under its scratch folder, /tmp or $HOME)`);
    try {
      return await this.context.storeFile(job, slot, opened.path, name);
    } finally {
      await opened.close();
    }
  }

  /**
   * Fetches the job's File inputs on the replica's behalf (the replica reads local files only).
   * Null when the job cannot run: an input could not be fetched (the job ends in error saying
   * why) or the replica stopped meanwhile (the job was cancelled, or goes back to the queue).
   */
  private async fetchInputs(
    replica: Replica,
    member: Member,
    job: JobRecord,
  ): Promise<{ values: Record<string, unknown>; remove: () => Promise<void> } | null> {
    // Nothing to fetch, so no folder to stat and no AbortController: on no-op jobs those two were 6% of the service profile.
    if (!namesFileInputs(this.version, job)) return { values: job.inputs, remove: async () => undefined };
    const directory = join(this.context.inputsDir, replica.id, job.id);
    const remove = () => rm(directory, { recursive: true, force: true });
    const aborter = new AbortController();
    member.abortFetch = aborter;
    let values: Record<string, unknown> | null = null;
    let failure: string | null = null;
    try {
      values = await this.context.fetchInputs(this.version, job, directory, aborter.signal);
    } catch (error) {
      failure = error instanceof InputFetchError ? error.message : 'An input could not be fetched.';
      if (!(error instanceof InputFetchError) && !aborter.signal.aborted) this.context.onError(error, `inputs of job ${job.id}`);
    } finally {
      member.abortFetch = undefined;
    }
    if (values !== null && replica.state === 'active') return { values, remove };
    await remove();
    if (replica.state === 'active') {
      replica.release(job.id);
      await member.log.flush();
      member.log = member.versionLog;
      this.becameIdle(replica);
      await this.context.lifecycle.fail(job, failure ?? 'An input could not be fetched.');
    } else {
      // The replica stopped (a cancel, the service stopping, a crash): back to the queue, unless
      // the job left `processing` already (cancelled), which the conditional move leaves alone.
      const why = this.context.isStopping() ? 'The service stopped while the job ran.' : 'The replica stopped before the job could start.';
      await this.context.lifecycle.interrupt(job, 'preemption', why);
    }
    await this.context.queue.ack(this.version.id, job.id);
    return null;
  }

  private async settle(job: JobRecord, outcome: RunOutcome, retryable: boolean): Promise<void> {
    const { lifecycle } = this.context;
    switch (outcome.kind) {
      case 'done':
        await lifecycle.finish(job);
        return;
      case 'error':
        await lifecycle.fail(job, outcome.error, { retryable });
        return;
      case 'crashed':
        if (this.context.isStopping()) {
          await lifecycle.interrupt(job, 'preemption', 'The service stopped while the job ran.');
        } else if (!outcome.killedByAgent) {
          const oom = outcome.signal === 'SIGKILL';
          const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with status ${outcome.exitCode}`;
          await lifecycle.interrupt(job, oom ? 'OOM' : 'error', `The replica ${how}${oom ? ' (most likely out of memory)' : ''}.`);
        }
        // Killed by the agent otherwise: the job was cancelled, and its status says so already;
        // what follows the cancel is made here too if its maker (an API call) died first.
        else await lifecycle.settleEnded(job.id);
        return;
    }
  }
}
