import type { MachineAvailability } from '../domain/machineAvailability.js';
import type { VersionRecord } from '../domain/version.js';
import type { WorkerCounts } from '../domain/wire/common.js';
import { NO_WORKERS } from '../domain/wire/common.js';
import type { Compute } from '../ports/compute.js';
import type { Store } from '../ports/store.js';
import type { JobReports } from '../ports/jobReports.js';
import type { PoolContext } from './replicaPool.js';
import { ReplicaPool } from './replicaPool.js';

export type AgentContext = Omit<PoolContext, 'isStopping'> & { store: Store; lifecycle: JobReports };

/**
 * Runs the replicas of every ready version on this machine: a pool per version, woken when
 * a job is queued for it. Implements the Compute port for the services.
 */
export class WorkerAgent implements Compute {
  private readonly pools = new Map<string, ReplicaPool>();
  private stopping = false;
  private readonly idleClock: NodeJS.Timeout;

  constructor(private readonly context: AgentContext) {
    // Idle minimum replicas accrue usage even when nothing else happens.
    this.idleClock = setInterval(() => this.pools.forEach((pool) => void pool.accrueIdle()), 60_000);
    this.idleClock.unref();
  }

  /** A job was queued for this version. */
  wake(versionId: string): void {
    const pool = this.pools.get(versionId);
    if (pool) return pool.wake();
    void this.poolFor(versionId).then(
      (created) => created?.wake(),
      (error: unknown) => this.context.onError(error, `pool for version ${versionId}`),
    );
  }

  /** A version became ready: start its minimum replicas. */
  versionReady(version: VersionRecord): void {
    if (version.minimumReplicas > 0) this.wake(version.id);
  }

  async applyReplicaBounds(version: VersionRecord): Promise<void> {
    const pool = this.pools.get(version.id);
    if (pool) return pool.setReplicaBounds(version);
    // No replicas yet: a raised minimum starts them (the pool reads the version as stored).
    if (version.buildStatus === 'ready') this.versionReady(version);
  }

  async machineTypes(): Promise<MachineAvailability[]> {
    return this.context.gpus.availability();
  }

  async currentWorkers(versionId: string): Promise<WorkerCounts> {
    return this.pools.get(versionId)?.counts() ?? NO_WORKERS;
  }

  /** Replicas by state, per version with a pool, named `owner/name` for metrics. */
  async replicaCounts(): Promise<{ versionId: string; function: string; counts: WorkerCounts }[]> {
    return Promise.all(
      [...this.pools.entries()].map(async ([versionId, pool]) => {
        const fn = await this.context.store.functions.getById(pool.version.functionId);
        return { versionId, function: fn ? `${fn.ownerName}/${fn.name}` : pool.version.functionId, counts: pool.counts() };
      }),
    );
  }

  /** Jobs running on this machine now. */
  runningJobIds(): string[] {
    return [...this.pools.values()].flatMap((pool) => pool.runningJobIds());
  }

  stopJob(jobId: string): void {
    for (const pool of this.pools.values()) if (pool.stopJob(jobId)) return;
  }

  /**
   * After a restart: jobs that were processing when the service stopped go back to the queue
   * (a restart entry records it), queued jobs are queued again, and versions with
   * minimum_replicas get them.
   */
  async recover(ready: VersionRecord[]): Promise<void> {
    const { store, lifecycle, queue } = this.context;
    for (const job of await store.jobs.listByStatus(['processing'])) {
      await lifecycle.interrupt(job, 'preemption', 'The service stopped while the job ran.');
    }
    const readyIds = new Set(ready.map((version) => version.id));
    for (const job of await store.jobs.listByStatus(['queued'])) {
      if (readyIds.has(job.versionId)) await queue.enqueue(job);
    }
    for (const version of ready) this.versionReady(version);
  }

  /** Takes no more jobs; running ones have `graceMs` to finish, then go back to the queue. */
  async shutdown(graceMs = 0): Promise<void> {
    this.stopping = true;
    clearInterval(this.idleClock);
    await Promise.all([...this.pools.values()].map((pool) => pool.accrueIdle()));
    await Promise.all([...this.pools.values()].map((pool) => pool.shutdown(graceMs)));
  }

  private async poolFor(versionId: string): Promise<ReplicaPool | null> {
    const version = await this.context.store.versions.get(versionId);
    if (!version || version.buildStatus !== 'ready' || this.stopping) return null;
    let pool = this.pools.get(versionId);
    if (!pool) {
      pool = new ReplicaPool(version, { ...this.context, isStopping: () => this.stopping });
      this.pools.set(versionId, pool);
    }
    return pool;
  }
}
