import { jobLogStream } from '../../../domain/log.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import type { RememberedJobs } from './rememberedJobs.js';
import { FINISHED_STATUSES, inStatuses } from './statusIndexes.js';

/** What the local mode's retention deletes from the database (RetentionSweeper runs it). */
export interface SqliteRetention {
  /**
   * The ids of at most `limit` jobs that ended (finished, error, cancelled) and were created
   * before `createdBefore`, oldest first within each organization and status: the caller removes
   * their files, then deletes them.
   */
  listEndedBefore(createdBefore: number, limit: number): Promise<string[]>;
  /**
   * Deletes these jobs with their outputs, log lines, webhook deliveries and usage marker, in one
   * commit. Usage hour totals stay.
   */
  deleteJobs(ids: readonly string[]): Promise<void>;
  /** How many ended jobs were created before `createdBefore`: what retention has left to delete. */
  countEndedBefore(createdBefore: number): Promise<number>;
}

/**
 * The organizations that have jobs, each found by one seek of jobs_by_organization_status from
 * the last (a skip scan, which SQLite does not do by itself), so the ended jobs are read as one
 * range of that index per organization and ended status: no index of ended jobs by time is
 * kept for retention alone, which cost every job's end an index write and every commit three
 * pages. A call costs three seeks per organization with jobs, plus the rows it answers.
 */
const OWNERS = `WITH RECURSIVE owners(id) AS (
  SELECT MIN(organization_id) FROM jobs
  UNION ALL SELECT (SELECT MIN(organization_id) FROM jobs WHERE organization_id > owners.id) FROM owners WHERE owners.id IS NOT NULL
)`;
const ENDED_BEFORE = `FROM owners CROSS JOIN jobs WHERE organization_id = owners.id AND ${inStatuses(FINISHED_STATUSES)} AND created_at < ?`;

/**
 * Each delete reads by a key or an index: a batch costs its own rows, whatever the history.
 * `remembered`: the job store's records, which must not outlive their rows.
 */
export function sqliteRetention(db: SqliteDatabase, writes: GroupCommit, remembered?: Pick<RememberedJobs, 'forget'>): SqliteRetention {
  const oldestEnded = db.prepare<[number, number], string>(`${OWNERS} SELECT jobs.id ${ENDED_BEFORE} LIMIT ?`).pluck();
  const countEnded = db.prepare<[number], number>(`${OWNERS} SELECT COUNT(*) ${ENDED_BEFORE}`).pluck();
  const deletions = [
    db.prepare<[string]>('DELETE FROM job_outputs WHERE job_id = ?'),
    db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE job_id = ?'),
    db.prepare<[string]>('DELETE FROM usage_jobs WHERE job_id = ?'),
    db.prepare<[string]>('DELETE FROM jobs WHERE id = ?'),
  ];
  const deleteLines = db.prepare<[string]>('DELETE FROM logs WHERE stream = ?');
  const deleteAll = (ids: readonly string[]): void => {
    for (const id of ids) {
      for (const deletion of deletions) deletion.run(id);
      remembered?.forget(id);
      deleteLines.run(jobLogStream(id));
    }
  };
  return {
    async listEndedBefore(createdBefore, limit) {
      return oldestEnded.all(createdBefore, limit);
    },
    async deleteJobs(ids) {
      if (ids.length > 0) await writes.write(() => deleteAll(ids));
    },
    async countEndedBefore(createdBefore) {
      return countEnded.get(createdBefore) as number;
    },
  };
}
