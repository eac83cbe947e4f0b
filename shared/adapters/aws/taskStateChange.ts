/** The parts of ECS's "ECS Task State Change" event that say whose task stopped and why. */
export interface TaskStateChange {
  /** `service:<service name>` for a task of a service. */
  group?: string;
  lastStatus?: string;
  /** TaskFailedToStart, EssentialContainerExited, UserInitiated, ServiceSchedulerInitiated, SpotInterruption, TerminationNotice. */
  stopCode?: string;
  stoppedReason?: string;
  containers?: { name?: string; exitCode?: number; reason?: string }[];
}

/** A version's ECS service is `v-<version id>`. */
export const serviceNameOf = (versionId: string) => `v-${versionId}`;

/** The version whose service ran the task, or null for any other task. */
export function versionOfTask(detail: TaskStateChange): string | null {
  return /^service:v-(.+)$/.exec(detail.group ?? '')?.[1] ?? null;
}

/**
 * ECS's reasons for a task that never got an instance: no capacity in the zone, an EC2 vCPU
 * quota (0 for G and P instances in a new account), a capacity provider that timed out waiting,
 * no container instance with a free GPU. Matched loosely: ECS words them in several ways.
 */
const CAPACITY_REASON = /capacity|no container instance met|insufficient|vcpulimitexceeded|quota|resources? (?:is|are) not available/i;

/** Why a stopped task never found an instance to run on, or null when it stopped for another reason. */
export function capacityShortage(detail: TaskStateChange): string | null {
  if (detail.lastStatus !== 'STOPPED' || detail.stopCode !== 'TaskFailedToStart') return null;
  return CAPACITY_REASON.test(detail.stoppedReason ?? '') ? (detail.stoppedReason as string) : null;
}

/**
 * Why a stopped task failed, or null when it was stopped on purpose (scale-in, a redeploy, an
 * operator, a Spot reclaim), found no capacity (not the version's fault: capacityShortage), or its
 * worker exited cleanly. A task that could not start (an image that cannot be pulled) or whose
 * worker exited by itself with an error failed.
 */
export function taskFailure(detail: TaskStateChange): string | null {
  if (detail.lastStatus !== 'STOPPED' || capacityShortage(detail) !== null) return null;
  if (detail.stopCode === 'TaskFailedToStart') return detail.stoppedReason || 'The task failed to start.';
  if (detail.stopCode !== 'EssentialContainerExited') return null;
  const worker = detail.containers?.[0];
  if (worker?.exitCode === 0) return null;
  const how = worker?.exitCode !== undefined ? `exit code ${worker.exitCode}` : worker?.reason || 'no exit code';
  return `${detail.stoppedReason || 'Essential container in task exited'} (${how})`;
}
