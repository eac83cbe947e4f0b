import type { ChildJob, JobOutput, JobPatch, JobRecord, JobStatus } from '../../../domain/job.js';
import { cappedJobError } from '../../../domain/jobError.js';
import { inlinedBySize, inputsPreview, jsonBytes, type ListedOutput } from '../../../domain/listPreview.js';
import type { JobFilter, JobStore, Page } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

/** The fields a transition may change; a field absent (or undefined) in the patch stays as it was. */
const PATCH_FIELDS = Object.keys({
  status: true,
  startedAt: true,
  completedAt: true,
  error: true,
  runId: true,
  restarts: true,
  attempts: true,
} satisfies Record<keyof JobPatch, true>) as (keyof JobPatch)[];

function applyPatch(job: JobRecord, patch: JobPatch): JobRecord {
  const next: Record<string, unknown> = { ...job };
  for (const field of PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) next[field] = value;
  }
  return withCappedError(next as unknown as JobRecord);
}

/** The job as stored: its error cut to MAX_JOB_ERROR_BYTES (jobError.ts). */
const withCappedError = (job: JobRecord): JobRecord => ({ ...job, error: cappedJobError(job.error) });

const parse = (data: string): JobRecord => JSON.parse(data) as JobRecord;
const parseOutput = (data: string): JobOutput => JSON.parse(data) as JobOutput;

/** The record as `data` keeps it: without its inputs, which have a column of their own. */
const withoutInputs = (job: JobRecord): string => JSON.stringify({ ...job, inputs: undefined });

/** The record with its inputs (FULL), or with their list preview (LISTED), made by SQLite. */
const FULL = "json_set(data, '$.inputs', json(inputs))";
const LISTED = "json_set(data, '$.inputs', json(inputs_preview))";

interface OutputHeadRow {
  idx: number;
  bytes: number;
  head: string;
}

interface StatusRow {
  status: string;
  data: string;
}

/**
 * Jobs in SQLite. Every statement is prepared once; reads select the JSON `data` column only
 * (plucked, so no row object is built). A transition is one immediate transaction that reads
 * the status, checks it, and writes: better-sqlite3 runs it synchronously, so nothing else can
 * write in between, in this process or (WAL write lock) another.
 */
export function sqliteJobStore(db: SqliteDatabase, writes: GroupCommit): JobStore {
  const insert = db.prepare<[string, string, string, string, string | null, string, number, string, string, string]>(
    'INSERT INTO jobs (id, function_id, version_id, organization_id, parent_job_id, status, created_at, data, inputs_preview, inputs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], string>(`SELECT ${FULL} FROM jobs WHERE id = ?`).pluck();
  const statusById = db.prepare<[string], StatusRow>(`SELECT status, ${FULL} AS data FROM jobs WHERE id = ?`);
  const update = db.prepare<[string, string, string]>('UPDATE jobs SET status = ?, data = ? WHERE id = ?');
  const transition = db.transaction((id: string, from: readonly JobStatus[], patch: JobPatch): JobRecord | null => {
    const row = statusById.get(id);
    // The status column is checked before the JSON is parsed: a lost race costs no parse.
    if (!row || !from.includes(row.status as JobStatus)) return null;
    const next = applyPatch(parse(row.data), patch);
    update.run(next.status, withoutInputs(next), id);
    return next;
  });

  /** One list page, newest first, of the jobs matching `where` (bound to the leading parameters). */
  const newestFirst = (where: string) => {
    const order = 'ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?';
    const all = db.prepare<unknown[], string>(`SELECT ${LISTED} FROM jobs WHERE ${where} ${order}`).pluck();
    const inStatus = db.prepare<unknown[], string>(`SELECT ${LISTED} FROM jobs WHERE ${where} AND status = ? ${order}`).pluck();
    return (keys: string[], filter: JobFilter, page: Page): JobRecord[] => {
      const rows =
        filter.status === undefined
          ? all.all(...keys, filter.organizationId, page.limit, page.offset)
          : inStatus.all(...keys, filter.organizationId, filter.status, page.limit, page.offset);
      return rows.map(parse);
    };
  };
  const byFunction = newestFirst('function_id = ? AND organization_id = ?');
  const byVersion = newestFirst('version_id = ? AND organization_id = ?');
  const byOrganization = newestFirst('organization_id = ?');
  const children = db.prepare<[string], string>(`SELECT ${LISTED} FROM jobs WHERE parent_job_id = ? ORDER BY created_at, id`).pluck();
  // Columns only, the names from the function's row: no job's JSON is parsed (unless its function is gone).
  const childSummaries = db.prepare<[string, number], ChildJob>(
    `SELECT j.id, j.status, j.created_at AS createdAt,
       COALESCE(f.owner_name, json_extract(j.data, '$.ownerName')) AS ownerName, COALESCE(f.name, json_extract(j.data, '$.functionName')) AS functionName
     FROM jobs j LEFT JOIN functions f ON f.id = j.function_id WHERE j.parent_job_id = ? ORDER BY j.created_at, j.id LIMIT ?`,
  );

  /** `status IN (?, ?, ...)` needs one statement per number of statuses: made on first use, then kept. */
  const byStatusCount = new Map<number, ReturnType<typeof db.prepare<string[], string>>>();
  const byStatus = (count: number) => {
    let statement = byStatusCount.get(count);
    if (!statement) {
      const placeholders = Array.from({ length: count }, () => '?').join(', ');
      statement = db.prepare<string[], string>(`SELECT ${FULL} FROM jobs WHERE status IN (${placeholders}) ORDER BY created_at, id`).pluck();
      byStatusCount.set(count, statement);
    }
    return statement;
  };

  // `status = 'queued'` written out, so that the planner uses the partial index.
  const queuedOfVersion = db.prepare<[string], string>(`SELECT ${FULL} FROM jobs WHERE version_id = ? AND status = 'queued' ORDER BY created_at, id`).pluck();
  const queuedBefore = db.prepare<[number, number], string>(`SELECT ${FULL} FROM jobs WHERE status = 'queued' AND created_at < ? ORDER BY created_at, id LIMIT ?`).pluck();

  // The statuses written out, so that the planner uses the partial index.
  const activeCounts = db.prepare<[string], { status: JobStatus; count: number }>(
    "SELECT status, COUNT(*) AS count FROM jobs WHERE organization_id = ? AND status IN ('queued', 'processing') GROUP BY status",
  );
  const createdBetween = db
    .prepare<[string, number, number], string>(`SELECT ${FULL} FROM jobs WHERE organization_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, id`)
    .pluck();

  const insertOutput = db.prepare<[string, number, number, string, string]>('INSERT OR IGNORE INTO job_outputs (job_id, idx, bytes, head, data) VALUES (?, ?, ?, ?, ?)');
  const outputs = db.prepare<[string, number], string>('SELECT data FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT -1 OFFSET ?').pluck();
  // The columns before data only: SQLite does not follow a large value's overflow pages for them.
  const outputHeads = db.prepare<[string, number], OutputHeadRow>('SELECT idx, bytes, head FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT ?');
  const outputById = db.prepare<[string, number], string>('SELECT data FROM job_outputs WHERE job_id = ? AND idx = ?').pluck();

  return {
    async create(given) {
      const job = withCappedError(given);
      const inputs = [JSON.stringify(inputsPreview(job.inputs)), JSON.stringify(job.inputs)] as const;
      await writes.write(() => insert.run(job.id, job.functionId, job.versionId, job.organizationId, job.parentJobId, job.status, job.createdAt, withoutInputs(job), ...inputs));
    },
    async get(id) {
      const data = byId.get(id);
      return data === undefined ? null : parse(data);
    },
    async transition(id, from, patch) {
      if (from.length === 0) return null;
      return writes.write(() => transition.immediate(id, from, patch));
    },
    async listByFunction(functionId, filter, page) {
      return byFunction([functionId], filter, page);
    },
    async listByVersion(versionId, filter, page) {
      return byVersion([versionId], filter, page);
    },
    async listByOrganization(filter, page) {
      return byOrganization([], filter, page);
    },
    async countActive(organizationId) {
      const counts = { queued: 0, processing: 0 };
      for (const row of activeCounts.all(organizationId)) counts[row.status as keyof typeof counts] = row.count;
      return counts;
    },
    async listCreatedBetween(organizationId, from, to) {
      return createdBetween.all(organizationId, from, to).map(parse);
    },
    async listChildren(parentJobId) {
      return children.all(parentJobId).map(parse);
    },
    async listChildSummaries(parentJobId, limit) {
      return childSummaries.all(parentJobId, limit ?? -1);
    },
    async listByStatus(statuses) {
      if (statuses.length === 0) return [];
      return byStatus(statuses.length)
        .all(...statuses)
        .map(parse);
    },
    async listQueuedByVersion(versionId) {
      return queuedOfVersion.all(versionId).map(parse);
    },
    async listQueuedBefore(createdBefore, limit) {
      return queuedBefore.all(createdBefore, limit).map(parse);
    },
    async appendOutput(output) {
      const { data, ...head } = output;
      await writes.write(() => insertOutput.run(output.jobId, output.index, jsonBytes(data), JSON.stringify(head), JSON.stringify(output)));
    },
    async listOutputs(jobId, offset) {
      return outputs.all(jobId, Math.max(0, offset)).map(parseOutput);
    },
    async listOutputPreviews(jobId, limits) {
      const heads = outputHeads.all(jobId, Math.max(0, limits.max));
      const inline = inlinedBySize(
        heads.map((row) => row.bytes),
        limits.budget,
      );
      return heads.map((row, index): ListedOutput => {
        if (inline[index]) return { ...parseOutput(outputById.get(jobId, row.idx) as string), omitted: false, bytes: row.bytes };
        return { ...(JSON.parse(row.head) as Omit<JobOutput, 'data'>), data: null, omitted: true, bytes: row.bytes };
      });
    },
  };
}
