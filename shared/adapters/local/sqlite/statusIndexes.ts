import { JOB_STATUSES, type JobStatus } from '../../../domain/job.js';

/** The statuses of the partial index jobs_active, in their order there. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'processing'];
/** The statuses a job ends in: what retention deletes. */
export const FINISHED_STATUSES: readonly JobStatus[] = ['finished', 'error', 'cancelled'];

/**
 * `status IN ('a', 'b')`, written as the partial index declares it: the planner uses a partial
 * index only for a query that repeats its condition word for word. The statuses are JobStatus
 * constants, never user text.
 */
export const inStatuses = (statuses: readonly JobStatus[]) => `status IN (${statuses.map((status) => `'${status}'`).join(', ')})`;

/**
 * The jobs matching `where` in every status: one SELECT of `columns` per status, each a range of
 * an index with the status right after `where`'s columns (jobs_by_function_status,
 * jobs_by_organization_status), merged in `order` (which names result columns). SQLite merges
 * the arms as it reads them, with no sort: a page costs its own rows, and at most one more per
 * status. No index without the status is needed beside it, which spares every job's insert two
 * index writes and every commit the pages they dirtied. Each arm binds `where`'s parameters again
 * (`inEveryStatusParameters`).
 */
export const inEveryStatus = (columns: string, where: string, order = '') =>
  `${JOB_STATUSES.map((status) => `SELECT ${columns} FROM jobs WHERE ${where} AND status = '${status}'`).join(' UNION ALL ')} ${order}`.trimEnd();

/** The parameters of an `inEveryStatus` query whose `where` binds `parameters`: them again for each arm. */
export const inEveryStatusParameters = (parameters: readonly unknown[]): unknown[] => JOB_STATUSES.flatMap(() => parameters);
