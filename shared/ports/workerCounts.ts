import type { WorkerCounts } from '../domain/wire/common.js';

/** Reports a version's replicas by state, for the Version's `current_workers`. */
export interface WorkerCountsReader {
  /** Async: on AWS the counts come from ECS. */
  currentWorkers(versionId: string): Promise<WorkerCounts>;
}
