// Every statement of the SQLite job store, by name, each prepared once when the store is made.
import type Database from 'better-sqlite3';
import { JOB_STATUSES, type ChildJob, type JobStatus } from '../../../domain/job.js';
import type { SqliteDatabase } from './database.js';
import { ACTIVE_STATUSES, inEveryStatus, inEveryStatusParameters, inStatuses } from './statusIndexes.js';

/**
 * A job's record as SQLite assembles it from the `data` column (the record without its inputs):
 * with its inputs (FULL), or with their list preview (LISTED). Reads select that one value,
 * plucked: no row object is built.
 */
const FULL = "json_set(data, '$.inputs', json(inputs))";
const LISTED = "json_set(data, '$.inputs', json(inputs_preview))";

/** A page of a list, newest first; a page counted by OFFSET appends `OFFSET ?`. */
const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC LIMIT ?';
/** A resumed page starts after the row where the page before it ended (PageBoundaries). */
const AFTER_PAGE_END = '(created_at, id) < (?, ?)';

type Statement<Parameters extends unknown[], Row = unknown> = Database.Statement<Parameters, Row>;

type InsertJobParameters = [
  id: string,
  functionId: string,
  versionId: string,
  organizationId: string,
  parentJobId: string | null,
  status: string,
  createdAt: number,
  data: string,
  inputsPreview: string,
  inputs: string,
];

/** A move that reads the row first: the status to check, the inputs' size (to remember the job by), the record. */
export interface RowToMove {
  status: string;
  inputBytes: number;
  data: string;
}

/** An output's columns before `data`: SQLite does not follow a large value's overflow pages for them. */
export interface OutputHead {
  idx: number;
  bytes: number;
  head: string;
}

/**
 * One list of jobs, newest first: a page counted by OFFSET (`counted`: the list's parameters,
 * then LIMIT and OFFSET), or resumed after the row where the page before it ended (`resumed`:
 * the list's parameters and that row's created_at and id, then LIMIT). `bind` turns the
 * parameters given into the ones the statement binds.
 */
export interface NewestFirstList {
  counted: Statement<unknown[], string>;
  resumed: Statement<unknown[], string>;
  bind: (parameters: unknown[]) => unknown[];
}

/** The job store's statements, by name, in the order of a job's life: its row, its outputs, reads, lists. */
export function prepareJobStatements(db: SqliteDatabase) {
  return {
    // --- A job's row: written at its push, moved at its start and its end ---------------------
    insertJob: db.prepare<InsertJobParameters>(
      'INSERT INTO jobs (id, function_id, version_id, organization_id, parent_job_id, status, created_at, data, inputs_preview, inputs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** The move of a job not remembered: its row read, then written (in one transaction). */
    selectJobToMove: db.prepare<[string], RowToMove>(`SELECT status, length(inputs) AS inputBytes, ${FULL} AS data FROM jobs WHERE id = ?`),
    moveJob: db.prepare<[status: string, data: string, id: string]>('UPDATE jobs SET status = ?, data = ? WHERE id = ?'),
    /** The move of a remembered job: no read, conditional on the status its row has. */
    moveJobFrom: db.prepare<[status: string, data: string, id: string, rowStatus: string]>('UPDATE jobs SET status = ?, data = ? WHERE id = ? AND status = ?'),

    // --- Outputs -----------------------------------------------------------------------------
    insertOutput: db.prepare<[jobId: string, index: number, bytes: number, head: string, data: string]>(
      'INSERT OR IGNORE INTO job_outputs (job_id, idx, bytes, head, data) VALUES (?, ?, ?, ?, ?)',
    ),
    selectOutputs: db.prepare<[jobId: string, offset: number], string>('SELECT data FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT -1 OFFSET ?').pluck(),
    selectOutputSizes: db.prepare<[jobId: string, offset: number], { idx: number; bytes: number }>(
      'SELECT idx, bytes FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT -1 OFFSET ?',
    ),
    selectOutputHeads: db.prepare<[jobId: string, limit: number], OutputHead>('SELECT idx, bytes, head FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT ?'),
    selectOutput: db.prepare<[jobId: string, index: number], string>('SELECT data FROM job_outputs WHERE job_id = ? AND idx = ?').pluck(),

    // --- Reads of one job and of its children ------------------------------------------------
    selectJob: db.prepare<[string], string>(`SELECT ${FULL} FROM jobs WHERE id = ?`).pluck(),
    selectChildren: db.prepare<[parentJobId: string], string>(`SELECT ${LISTED} FROM jobs WHERE parent_job_id = ? ORDER BY created_at, id`).pluck(),
    /** Columns only, the names from the function's row: no job's JSON is parsed (unless its function is gone). */
    selectChildSummaries: db.prepare<[parentJobId: string, limit: number], ChildJob>(
      `SELECT j.id, j.status, j.created_at AS createdAt,
       COALESCE(f.owner_name, json_extract(j.data, '$.ownerName')) AS ownerName, COALESCE(f.name, json_extract(j.data, '$.functionName')) AS functionName
     FROM jobs j LEFT JOIN functions f ON f.id = j.function_id WHERE j.parent_job_id = ? ORDER BY j.created_at, j.id LIMIT ?`,
    ),
    /**
     * Most jobs have no children, and every read of a job asks: a probe with nothing to join or
     * bind but the id answers that for a third of selectChildSummaries' cost.
     */
    selectHasChild: db.prepare<[parentJobId: string], number>('SELECT 1 FROM jobs WHERE parent_job_id = ? LIMIT 1').pluck(),

    // --- Lists, newest first, a page at a time ------------------------------------------------
    // A list of every status reads one range of the index per status (jobs_by_*_status), merged;
    // a filter by status is one range of it. No index serves a version's jobs by status: no
    // statement offers that.
    functionJobs: everyStatusNewestFirst(db, 'function_id = ? AND organization_id = ?'),
    functionJobsInStatus: newestFirst(db, 'function_id = ? AND organization_id = ? AND status = ?'),
    versionJobs: newestFirst(db, 'version_id = ? AND organization_id = ?'),
    organizationJobs: everyStatusNewestFirst(db, 'organization_id = ?'),
    organizationJobsInStatus: newestFirst(db, 'organization_id = ? AND status = ?'),

    // --- Lists, oldest first: start-up, the queue, the metrics, usage -------------------------
    jobsInStatuses: oldestFirstByStatuses(db),
    /** `status = 'queued'` written out, so that the planner uses the partial index. */
    queuedOfVersion: db
      .prepare<[versionId: string], string>(`SELECT ${FULL} FROM jobs WHERE version_id = ? AND status = 'queued' ORDER BY created_at, id`)
      .pluck(),
    queuedBefore: db
      .prepare<[createdBefore: number, limit: number], string>(
        `SELECT ${FULL} FROM jobs WHERE ${inStatuses(ACTIVE_STATUSES)} AND status = 'queued' AND created_at < ? ORDER BY created_at, id LIMIT ?`,
      )
      .pluck(),
    /** Read from jobs_by_organization_status: the organization's queued and processing entries only. */
    activeCounts: db.prepare<[organizationId: string], { status: JobStatus; count: number }>(
      `SELECT status, COUNT(*) AS count FROM jobs WHERE organization_id = ? AND ${inStatuses(ACTIVE_STATUSES)} GROUP BY status`,
    ),
    /** Read from jobs_by_organization_status, one range per status, merged: bind inEveryStatusParameters([organizationId, from, to]). */
    createdBetween: db
      .prepare<unknown[], string>(
        inEveryStatus(`${FULL} AS data, created_at, id`, 'organization_id = ? AND created_at >= ? AND created_at < ?', 'ORDER BY created_at, id'),
      )
      .pluck(),
  };
}

const sameParameters = (parameters: unknown[]) => parameters;

/** The jobs matching `where`, newest first: one range of an index. */
function newestFirst(db: SqliteDatabase, where: string): NewestFirstList {
  return {
    counted: db.prepare<unknown[], string>(`SELECT ${LISTED} FROM jobs WHERE ${where} ${NEWEST_FIRST} OFFSET ?`).pluck(),
    resumed: db.prepare<unknown[], string>(`SELECT ${LISTED} FROM jobs WHERE ${where} AND ${AFTER_PAGE_END} ${NEWEST_FIRST}`).pluck(),
    bind: sameParameters,
  };
}

/** The jobs matching `where` in every status, newest first: one range per status, merged (inEveryStatus). */
function everyStatusNewestFirst(db: SqliteDatabase, where: string): NewestFirstList {
  const columns = `${LISTED} AS data, created_at, id`;
  return {
    counted: db.prepare<unknown[], string>(`${inEveryStatus(columns, where)} ${NEWEST_FIRST} OFFSET ?`).pluck(),
    resumed: db.prepare<unknown[], string>(`${inEveryStatus(columns, `${where} AND ${AFTER_PAGE_END}`)} ${NEWEST_FIRST}`).pluck(),
    bind: inEveryStatusParameters,
  };
}

/**
 * Jobs in some statuses, oldest first: for active statuses (start-up's, the metrics') the query
 * names the statuses of jobs_active before the ones asked for, so that the planner reads that
 * partial index. One statement per set of statuses, made on first use, then kept.
 */
function oldestFirstByStatuses(db: SqliteDatabase): (statuses: readonly JobStatus[]) => Statement<[], string> {
  const made = new Map<string, Statement<[], string>>();
  return (statuses) => {
    const wanted = JOB_STATUSES.filter((status) => statuses.includes(status));
    const key = wanted.join(',');
    let statement = made.get(key);
    if (!statement) {
      const active = wanted.every((status) => ACTIVE_STATUSES.includes(status));
      const conditions = [active && inStatuses(ACTIVE_STATUSES), inStatuses(wanted)].filter(Boolean).join(' AND ');
      statement = db.prepare<[], string>(`SELECT ${FULL} FROM jobs WHERE ${conditions} ORDER BY created_at, id`).pluck();
      made.set(key, statement);
    }
    return statement;
  };
}
