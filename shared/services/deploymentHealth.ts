import type { MachineType } from '../domain/machineTypes.js';
import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { appendVersionLog } from './versionLog.js';

/** The EC2 quota (Service Quotas, by its console name) that bounds each GPU machine type's instances. */
const INSTANCE_QUOTA: Partial<Record<MachineType, string>> = {
  t4: 'Running On-Demand G and VT instances',
  l4: 'Running On-Demand G and VT instances',
  a100: 'Running On-Demand P instances',
  'a100-20gb': 'Running On-Demand P instances',
  v100: 'Running On-Demand P instances',
};

/** What the version shows while its tasks wait for capacity: ECS's reason, and what to raise. */
export function capacityShortageWarning(version: Pick<VersionRecord, 'computeType'>, reason: string): string {
  const quota = INSTANCE_QUOTA[version.computeType] ?? 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances';
  return (
    `Its ${version.computeType} worker tasks are waiting for an instance (ECS: "${reason}"); its jobs stay queued until one starts. ` +
    `If it lasts, raise the EC2 quota "${quota}" (Service Quotas) or add zones with this instance type: see docs/deploying-to-aws.md.`
  );
}

/** Worker tasks in a row that may fail before a ready version is given up on. */
export const FAILED_TASKS_BEFORE_ERROR = 3;

export interface DeploymentHealthHooks {
  /** Runs no more of the version's tasks. */
  stopTasks(versionId: string): Promise<void>;
  /** The version ended in error: its queued jobs end too. */
  onFailed(version: VersionRecord): Promise<void>;
}

/**
 * Whether a ready version's worker tasks can run (AWS). ECS replaces a task that dies, so an
 * image that cannot start would crash and be replaced forever while its jobs wait. Each failed
 * task goes to the version's log; after three in a row with no worker started between them,
 * the version ends in error with the last reason, its tasks stop and its queued jobs end in
 * error. A worker that starts clears the count.
 */
export class DeploymentHealth {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly hooks: DeploymentHealthHooks,
  ) {}

  async taskFailed(versionId: string, reason: string): Promise<void> {
    const version = await this.store.versions.get(versionId);
    if (!version || version.buildStatus !== 'ready') return;
    const failures = (version.taskFailures ?? 0) + 1;
    await appendVersionLog(this.store, this.clock, version, 'setup', [`A worker task stopped: ${reason}`]);
    if (failures < FAILED_TASKS_BEFORE_ERROR) {
      await this.store.versions.transition(versionId, ['ready'], { taskFailures: failures });
      return;
    }
    const buildError = `Its worker tasks failed ${failures} times in a row; the last: ${reason}`;
    const failed = await this.store.versions.transition(versionId, ['ready'], { taskFailures: failures, buildStatus: 'error', buildError });
    if (!failed) return;
    await appendVersionLog(this.store, this.clock, failed, 'setup', [`The version is in error: ${buildError}`]);
    await this.hooks.stopTasks(versionId);
    await this.hooks.onFailed(failed);
  }

  /**
   * A task found no instance to run on (no capacity, an EC2 quota): not the version's fault, so
   * it is a warning on the version, shown where its jobs are, and never its error; ECS keeps
   * trying, and the jobs wait. The warning stays until a worker starts.
   */
  async capacityShort(versionId: string, reason: string): Promise<void> {
    const version = await this.store.versions.get(versionId);
    if (!version || version.buildStatus !== 'ready') return;
    await appendVersionLog(this.store, this.clock, version, 'setup', [`A worker task found no instance to run on: ${reason}`]);
    const warning = capacityShortageWarning(version, reason);
    if (version.capacityShortage !== warning) await this.store.versions.transition(versionId, ['ready'], { capacityShortage: warning });
  }

  /** A task's worker started: the tasks before it that failed were not the image's fault, and there was capacity. */
  async workerStarted(version: VersionRecord): Promise<void> {
    if ((version.taskFailures ?? 0) > 0 || version.capacityShortage)
      await this.store.versions.transition(version.id, ['ready'], { taskFailures: 0, capacityShortage: null });
  }
}
