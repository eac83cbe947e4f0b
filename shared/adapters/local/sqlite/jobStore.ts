import { isFinalJobStatus, JOB_STATUSES, type ChildJob, type JobOutput, type JobPatch, type JobRecord, type JobStatus } from '../../../domain/job.js';
import { cappedJobError } from '../../../domain/jobError.js';
import { inlinedBySize, inputsPreview, jsonBytes, type ListedOutput } from '../../../domain/listPreview.js';
import { outputsForAnswer } from '../../../domain/answerBudget.js';
import type { JobFilter, JobStore, Page } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import { RememberedJobs } from './rememberedJobs.js';
import { PageBoundaries } from './pageBoundaries.js';
import { UnwrittenMoves } from './unwrittenMoves.js';
import { ACTIVE_STATUSES, inEveryStatus, inEveryStatusParameters, inStatuses } from './statusIndexes.js';

type PatchField = Exclude<keyof JobPatch, 'countAttempt'>;

/** The fields a transition may set; a field absent (or undefined) in the patch stays as it was. */
const PATCH_FIELDS = Object.keys({
  status: true,
  startedAt: true,
  completedAt: true,
  error: true,
  runId: true,
  restarts: true,
} satisfies Record<PatchField, true>) as PatchField[];

function applyPatch(job: JobRecord, patch: JobPatch): JobRecord {
  const next: Record<string, unknown> = { ...job };
  for (const field of PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) next[field] = value;
  }
  if (patch.countAttempt) next.attempts = job.attempts + 1;
  // Capped in the copy already made, not in another one (withCappedError).
  next.error = cappedJobError(next.error as string);
  return next as unknown as JobRecord;
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
  inputBytes: number;
  data: string;
}

/**
 * Jobs in SQLite. Every statement is prepared once; reads select the JSON `data` column only
 * (plucked, so no row object is built). A transition is one immediate transaction that reads
 * the status, checks it, and writes: better-sqlite3 runs it synchronously, so nothing else can
 * write in between. A job this process wrote is remembered (RememberedJobs) while it runs and
 * for a while after it ends:
 * its move is one UPDATE conditional on the status it remembers, with no read.
 */
export function sqliteJobStore(db: SqliteDatabase, writes: GroupCommit, remembered = new RememberedJobs()): JobStore {
  const insert = db.prepare<[string, string, string, string, string | null, string, number, string, string, string]>(
    'INSERT INTO jobs (id, function_id, version_id, organization_id, parent_job_id, status, created_at, data, inputs_preview, inputs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], string>(`SELECT ${FULL} FROM jobs WHERE id = ?`).pluck();
  const statusById = db.prepare<[string], StatusRow>(`SELECT status, length(inputs) AS inputBytes, ${FULL} AS data FROM jobs WHERE id = ?`);
  const update = db.prepare<[string, string, string]>('UPDATE jobs SET status = ?, data = ? WHERE id = ?');
  const updateFrom = db.prepare<[string, string, string, string]>('UPDATE jobs SET status = ?, data = ? WHERE id = ? AND status = ?');
  writes.onRollback(() => remembered.clear());
  const moveRow = db.transaction((id: string, from: readonly JobStatus[], patch: JobPatch): JobRecord | null => {
    const row = statusById.get(id);
    // The status column is checked before the JSON is parsed: a lost race costs no parse.
    if (!row || !from.includes(row.status as JobStatus)) return null;
    const next = applyPatch(parse(row.data), patch);
    update.run(next.status, withoutInputs(next), id);
    return remembered.remember(next, row.inputBytes);
  });
  // A deferred start waits in memory for the commit (UnwrittenMoves): its row is written then,
  // unless the job has ended meanwhile and its end wrote the row whole.
  const unwritten = new UnwrittenMoves((id, rowStatus) => {
    const job = remembered.active(id);
    if (job) updateFrom.run(job.status, withoutInputs(job), id, rowStatus);
  });
  writes.beforeCommit(() => unwritten.flush());
  writes.onRollback(() => unwritten.clear());
  // Reads of rows that unwritten moves change go through writes.current, which writes them first.

  /**
   * The move made from the remembered record, if the row still has its status (else read the
   * row). A deferred move to a status that stays remembered is made in memory only, until the commit.
   */
  const transition = (id: string, from: readonly JobStatus[], patch: JobPatch, deferred: boolean): JobRecord | null => {
    const known = remembered.active(id);
    if (known && from.includes(known.status)) {
      const next = applyPatch(known, patch);
      const rowStatus = unwritten.rowStatus(id) ?? known.status;
      // A move to an end is written at once: only a running job's record stands for its row until the commit.
      if (deferred && !isFinalJobStatus(next.status)) {
        const kept = remembered.moved(next);
        if (remembered.active(id) === kept) {
          unwritten.defer(id, rowStatus);
          return kept;
        }
      }
      if (updateFrom.run(next.status, withoutInputs(next), id, rowStatus).changes === 1) {
        unwritten.written(id);
        return remembered.moved(next);
      }
    }
    unwritten.flush();
    remembered.forget(id);
    return moveRow.immediate(id, from, patch);
  };

  const boundaries = new PageBoundaries();
  /**
   * One list page, newest first, of the jobs matching `where` (bound to the leading parameters):
   * resumed after the row where a page it served ended (PageBoundaries), else counted by OFFSET.
   * `byStatus`: the index behind `where` has the status next (jobs_by_*_status), so a filter by
   * status is one range of it, and the list of every status merges one range per status.
   */
  const newestFirst = (name: string, where: string, byStatus: boolean) => {
    const order = 'ORDER BY created_at DESC, id DESC LIMIT ?';
    /** `select`: the SELECT of the rows matching a condition; `bind`: its parameters from the condition's. */
    const prepare = (matching: string, select: (condition: string) => string, bind = (parameters: unknown[]) => parameters) => ({
      counted: db.prepare<unknown[], string>(`${select(matching)} ${order} OFFSET ?`).pluck(),
      resumed: db.prepare<unknown[], string>(`${select(`${matching} AND (created_at, id) < (?, ?)`)} ${order}`).pluck(),
      bind,
    });
    const one = (condition: string) => `SELECT ${LISTED} FROM jobs WHERE ${condition}`;
    const all = byStatus ? prepare(where, (condition) => inEveryStatus(`${LISTED} AS data, created_at, id`, condition), inEveryStatusParameters) : prepare(where, one);
    const inStatus = byStatus ? prepare(`${where} AND status = ?`, one) : all;
    return (keys: string[], filter: JobFilter, page: Page): JobRecord[] => {
      const status = byStatus ? filter.status : undefined;
      const { counted, resumed, bind } = status === undefined ? all : inStatus;
      const bound = status === undefined ? [...keys, filter.organizationId] : [...keys, filter.organizationId, status];
      const list = `${name}\u0000${bound.join('\u0000')}`;
      const after = page.offset === 0 ? undefined : boundaries.find(list, page.offset);
      const rows = writes
        .current(() => (after ? resumed.all(...bind([...bound, after.createdAt, after.id]), page.limit) : counted.all(...bind(bound), page.limit, page.offset)))
        .map(parse);
      boundaries.remember(list, page.offset, rows);
      return rows;
    };
  };
  const byFunction = newestFirst('function', 'function_id = ? AND organization_id = ?', true);
  // A version's jobs are never filtered by status: no index serves that, so no statement offers it.
  const byVersion = newestFirst('version', 'version_id = ? AND organization_id = ?', false);
  const byOrganization = newestFirst('organization', 'organization_id = ?', true);
  const children = db.prepare<[string], string>(`SELECT ${LISTED} FROM jobs WHERE parent_job_id = ? ORDER BY created_at, id`).pluck();
  // Columns only, the names from the function's row: no job's JSON is parsed (unless its function is gone).
  const childSummaries = db.prepare<[string, number], ChildJob>(
    `SELECT j.id, j.status, j.created_at AS createdAt,
       COALESCE(f.owner_name, json_extract(j.data, '$.ownerName')) AS ownerName, COALESCE(f.name, json_extract(j.data, '$.functionName')) AS functionName
     FROM jobs j LEFT JOIN functions f ON f.id = j.function_id WHERE j.parent_job_id = ? ORDER BY j.created_at, j.id LIMIT ?`,
  );
  // Most jobs have no children, and every read of a job asks: a probe with nothing to join or bind
  // but the id answers that for a third of the full statement's cost.
  const hasChildren = db.prepare<[string], number>('SELECT 1 FROM jobs WHERE parent_job_id = ? LIMIT 1').pluck();

  /**
   * Jobs in some statuses, oldest first: for active statuses (start-up's, the metrics') the query
   * names the statuses of jobs_active before the ones asked for, so that the planner reads that
   * partial index. One statement per set of statuses, made on first use, then kept.
   */
  const byStatusSet = new Map<string, ReturnType<typeof db.prepare<[], string>>>();
  const byStatus = (statuses: readonly JobStatus[]) => {
    const wanted = JOB_STATUSES.filter((status) => statuses.includes(status));
    const key = wanted.join(',');
    let statement = byStatusSet.get(key);
    if (!statement) {
      const active = wanted.every((status) => ACTIVE_STATUSES.includes(status));
      const conditions = [active && inStatuses(ACTIVE_STATUSES), inStatuses(wanted)].filter(Boolean).join(' AND ');
      statement = db.prepare<[], string>(`SELECT ${FULL} FROM jobs WHERE ${conditions} ORDER BY created_at, id`).pluck();
      byStatusSet.set(key, statement);
    }
    return statement;
  };

  // `status = 'queued'` written out, so that the planner uses the partial index.
  const queuedOfVersion = db.prepare<[string], string>(`SELECT ${FULL} FROM jobs WHERE version_id = ? AND status = 'queued' ORDER BY created_at, id`).pluck();
  const queuedBefore = db
    .prepare<[number, number], string>(`SELECT ${FULL} FROM jobs WHERE ${inStatuses(ACTIVE_STATUSES)} AND status = 'queued' AND created_at < ? ORDER BY created_at, id LIMIT ?`)
    .pluck();

  // Read from jobs_by_organization_status: the organization's queued and processing entries only.
  const activeCounts = db.prepare<[string], { status: JobStatus; count: number }>(
    `SELECT status, COUNT(*) AS count FROM jobs WHERE organization_id = ? AND ${inStatuses(ACTIVE_STATUSES)} GROUP BY status`,
  );
  // Read from jobs_by_organization_status, one range per status, merged.
  const createdBetween = db
    .prepare<unknown[], string>(inEveryStatus(`${FULL} AS data, created_at, id`, 'organization_id = ? AND created_at >= ? AND created_at < ?', 'ORDER BY created_at, id'))
    .pluck();

  const insertOutput = db.prepare<[string, number, number, string, string]>('INSERT OR IGNORE INTO job_outputs (job_id, idx, bytes, head, data) VALUES (?, ?, ?, ?, ?)');
  const outputs = db.prepare<[string, number], string>('SELECT data FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT -1 OFFSET ?').pluck();
  // The columns before data only: SQLite does not follow a large value's overflow pages for them.
  const outputHeads = db.prepare<[string, number], OutputHeadRow>('SELECT idx, bytes, head FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT ?');
  const outputSizes = db.prepare<[string, number], { idx: number; bytes: number }>('SELECT idx, bytes FROM job_outputs WHERE job_id = ? ORDER BY idx LIMIT -1 OFFSET ?');
  const outputById = db.prepare<[string, number], string>('SELECT data FROM job_outputs WHERE job_id = ? AND idx = ?').pluck();

  // A job as remembered (write-behind), else as stored.
  const read = (id: string): JobRecord | null => {
    const known = remembered.get(id);
    if (known) return known;
    const data = byId.get(id);
    return data === undefined ? null : parse(data);
  };

  return {
    async create(given, options) {
      const job = withCappedError(given);
      const inputs = [JSON.stringify(inputsPreview(job.inputs)), JSON.stringify(job.inputs)] as const;
      const insertJob = () => {
        insert.run(job.id, job.functionId, job.versionId, job.organizationId, job.parentJobId, job.status, job.createdAt, withoutInputs(job), ...inputs);
        remembered.remember(job, inputs[1].length, true);
        if (job.parentJobId !== null) remembered.gained(job.parentJobId);
      };
      if (options?.deferDurability) writes.writeDeferred(insertJob);
      else await writes.write(insertJob);
    },
    async get(id) {
      return read(id);
    },
    async statusOf(id) {
      return read(id)?.status ?? null;
    },
    async transition(id, from, patch, options) {
      if (from.length === 0) return null;
      const move = () => transition(id, from, patch, options?.deferDurability === true);
      return options?.deferDurability ? writes.writeDeferred(move) : writes.write(move);
    },
    async listByFunction(functionId, filter, page) {
      return byFunction([functionId], filter, page);
    },
    async listByVersion(versionId, filter, page) {
      return byVersion([versionId], { organizationId: filter.organizationId }, page);
    },
    async listByOrganization(filter, page) {
      return byOrganization([], filter, page);
    },
    async countActive(organizationId) {
      const counts = { queued: 0, processing: 0 };
      for (const row of writes.current(() => activeCounts.all(organizationId))) counts[row.status as keyof typeof counts] = row.count;
      return counts;
    },
    async listCreatedBetween(organizationId, from, to) {
      return writes.current(() => createdBetween.all(...inEveryStatusParameters([organizationId, from, to]))).map(parse);
    },
    async listChildren(parentJobId) {
      if (remembered.isBare(parentJobId)) return [];
      return writes.current(() => children.all(parentJobId)).map(parse);
    },
    async listChildSummaries(parentJobId, limit) {
      if (remembered.isBare(parentJobId) || hasChildren.get(parentJobId) === undefined) return [];
      return writes.current(() => childSummaries.all(parentJobId, limit ?? -1));
    },
    async listByStatus(statuses) {
      if (statuses.length === 0) return [];
      return writes.current(() => byStatus(statuses).all()).map(parse);
    },
    async listQueuedByVersion(versionId) {
      return writes.current(() => queuedOfVersion.all(versionId)).map(parse);
    },
    async listQueuedBefore(createdBefore, limit) {
      return writes.current(() => queuedBefore.all(createdBefore, limit)).map(parse);
    },
    async appendOutput(output) {
      const { data, ...head } = output;
      remembered.gained(output.jobId);
      await writes.write(() => insertOutput.run(output.jobId, output.index, jsonBytes(data), JSON.stringify(head), JSON.stringify(output)));
    },
    async listOutputs(jobId, offset, maxBytes) {
      // A job known to have none (most reads of a job just pushed or just ended) reads no row.
      if (remembered.isBare(jobId)) return [];
      if (maxBytes === undefined) return outputs.all(jobId, Math.max(0, offset)).map(parseOutput);
      // Sizes first: only the outputs one answer can hold are read.
      const sizes = outputSizes.all(jobId, Math.max(0, offset));
      return sizes.slice(0, outputsForAnswer(sizes.map((row) => row.bytes), maxBytes)).map((row) => parseOutput(outputById.get(jobId, row.idx) as string));
    },
    async listOutputPreviews(jobId, limits) {
      if (remembered.isBare(jobId)) return [];
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
