import { describe, expect, it } from 'vitest';
import { capacityShortage, taskFailure, versionOfTask } from '../../../shared/adapters/aws/taskStateChange.js';

const stopped = { group: 'service:v-1234', lastStatus: 'STOPPED' };

describe("ECS's stopped-task events", () => {
  it('belong to the version whose service ran the task, and to none for other tasks', () => {
    expect(versionOfTask(stopped)).toBe('1234');
    expect(versionOfTask({ group: 'family:sluice-1234' })).toBeNull();
    expect(versionOfTask({})).toBeNull();
  });

  it('count a task that could not start, or whose worker exited with an error, as failed, saying why', () => {
    expect(
      taskFailure({ ...stopped, stopCode: 'TaskFailedToStart', stoppedReason: 'CannotPullContainerError: pull image manifest has been retried 5 time(s)' }),
    ).toBe('CannotPullContainerError: pull image manifest has been retried 5 time(s)');
    expect(
      taskFailure({ ...stopped, stopCode: 'EssentialContainerExited', stoppedReason: 'Essential container in task exited', containers: [{ exitCode: 137 }] }),
    ).toBe('Essential container in task exited (exit code 137)');
    expect(
      taskFailure({ ...stopped, stopCode: 'EssentialContainerExited', containers: [{ reason: 'OutOfMemoryError: Container killed due to memory usage' }] }),
    ).toBe('Essential container in task exited (OutOfMemoryError: Container killed due to memory usage)');
  });

  it('do not count a task stopped on purpose, or whose worker exited cleanly', () => {
    for (const stopCode of ['ServiceSchedulerInitiated', 'UserInitiated', 'SpotInterruption', 'TerminationNotice'])
      expect(taskFailure({ ...stopped, stopCode })).toBeNull();
    expect(taskFailure({ ...stopped, stopCode: 'EssentialContainerExited', containers: [{ exitCode: 0 }] })).toBeNull();
    expect(taskFailure({ ...stopped, lastStatus: 'RUNNING', stopCode: 'TaskFailedToStart' })).toBeNull();
  });

  it('tell a task that found no instance (no capacity, an EC2 quota) from a failed one: a shortage, not the version’s fault', () => {
    const reasons = [
      'Timeout waiting for capacity: the capacity provider could not launch an instance for the task',
      'RESOURCE:GPU: no container instance met all of its requirements',
      'Capacity is unavailable at this time. Please try again later or in a different availability zone',
      'VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 0 allows',
    ];
    for (const stoppedReason of reasons) {
      const detail = { ...stopped, stopCode: 'TaskFailedToStart', stoppedReason };
      expect(capacityShortage(detail)).toBe(stoppedReason);
      expect(taskFailure(detail)).toBeNull();
    }
    expect(capacityShortage({ ...stopped, stopCode: 'TaskFailedToStart', stoppedReason: 'CannotPullContainerError: not found' })).toBeNull();
    expect(capacityShortage({ ...stopped, stopCode: 'EssentialContainerExited', stoppedReason: 'insufficient memory' })).toBeNull();
  });
});
