import type { JobStatus } from '../../../domain/job.js';

/** The statuses of the partial index jobs_active, in their order there. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'processing'];
/** The statuses of the partial index jobs_finished, in their order there. */
export const FINISHED_STATUSES: readonly JobStatus[] = ['finished', 'error', 'cancelled'];

/**
 * `status IN ('a', 'b')`, written as the partial indexes declare it: the planner uses a partial
 * index only for a query that repeats its condition word for word. The statuses are JobStatus
 * constants, never user text.
 */
export const inStatuses = (statuses: readonly JobStatus[]) => `status IN (${statuses.map((status) => `'${status}'`).join(', ')})`;
