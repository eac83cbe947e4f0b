import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobRecord } from '../domain/job.js';
import { versionLogStream } from '../domain/log.js';
import { wantedReplicas } from '../domain/replicaBounds.js';
import type { ReplicaBounds, VersionRecord } from '../domain/version.js';
import type { WorkerCounts } from '../domain/wire/common.js';
import type { LogLines } from '../ports/logLines.js';
import type { ReplicaEvent } from '../ports/telemetry.js';
import { runJob, type RunningPool } from './jobRun.js';
import type { PoolContext, PoolMember } from './poolContext.js';
import { Replica } from './replica.js';

export type { PoolContext, ReplicaProcess } from './poolContext.js';

/** After this many setups fail in a row, the version's queued jobs end in error with the setup's error. */
const SETUP_FAILURES_BEFORE_GIVING_UP = 3;

/**
 * The replicas of one version: scaled between minimum_replicas and maximum_replicas on the
 * queue's depth, each taking the next job when idle, each stopped after an idle window.
 */
export class ReplicaPool {
  private readonly members = new Map<Replica, PoolMember>();
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

  /** What its jobs' runs (jobRun.ts) see of it. */
  private readonly runs: RunningPool;

  constructor(
    /** Its replica bounds change when the version is edited (setReplicaBounds). */
    public version: VersionRecord,
    private readonly context: PoolContext,
  ) {
    this.runs = {
      context,
      version: () => this.version,
      freed: (replica) => this.becameIdle(replica),
      accrueIdle: () => this.accrueIdle(),
    };
  }

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
          this.track(runJob(this.runs, replica, this.members.get(replica), job));
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
  private stopWhenIdleFor(member: PoolMember, replica: Replica): void {
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
}
