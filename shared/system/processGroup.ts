import type { ChildProcess } from 'node:child_process';

/**
 * Kills a child spawned with `detached: true` and every process in its group: what it forked,
 * even after it exited itself (the group outlives its leader). A process that left the group
 * (setsid) escapes; the bubblewrap sandbox's PID namespace catches those too.
 */
export function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already (ESRCH): nothing left to end.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
