import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { appendVersionLog } from './versionLog.js';

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

  /** A task's worker started: the tasks before it that failed were not the image's fault. */
  async workerStarted(version: VersionRecord): Promise<void> {
    if ((version.taskFailures ?? 0) > 0) await this.store.versions.transition(version.id, ['ready'], { taskFailures: 0 });
  }
}
