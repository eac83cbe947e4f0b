import { capacityShortage, taskFailure, versionOfTask, type TaskStateChange } from '../../shared/adapters/aws/taskStateChange.js';
import { awsApp } from '../lambdaApp.js';

/**
 * ECS's "ECS Task State Change" events for stopped tasks: a version's task that failed (it
 * could not start, or its worker exited with an error) counts against the version, which ends
 * in error after several in a row (shared/services/deploymentHealth.ts). A task that found no
 * capacity is a warning on the version instead: its jobs wait for an instance.
 */
export async function handler(event: { detail: TaskStateChange }): Promise<void> {
  const versionId = versionOfTask(event.detail);
  if (!versionId) return;
  const shortage = capacityShortage(event.detail);
  if (shortage) return awsApp().deploymentHealth.capacityShort(versionId, shortage);
  const reason = taskFailure(event.detail);
  if (reason) await awsApp().deploymentHealth.taskFailed(versionId, reason);
}
