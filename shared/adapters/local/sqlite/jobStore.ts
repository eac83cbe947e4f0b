/**
 * Jobs in SQLite: the service's hot path (a job's push, start, outputs and end), tuned to cost a
 * few statements each and, under load, a share of one commit. The statements are prepared once,
 * by name, in jobStatements.ts; the record and its row, in jobRows.ts. Below, the store's methods
 * follow a job's life: push, start and end, outputs, reads, lists.
 *
 * THE WRITE-BEHIND CACHE, explained once (its parts keep their own mechanics only):
 *
 * What is remembered. `remembered` (RememberedJobs, rememberedJobs.ts) holds frozen records of
 * the jobs this process wrote: every queued or processing one, and the last ones that ended,
 * each part bounded by bytes (a job with large inputs is never remembered). A record also says
 * whether its job is bare: pushed here, no output nor child job written for it since.
 * `unwrittenMoves` (UnwrittenMoves, unwrittenMoves.ts) holds the starts made in memory only,
 * each with the status its row still has. (RecordCache is the function and version stores'
 * read cache; no job is in it.)
 *
 * When it is written. Every write runs in the group commit (GroupCommit, groupCommit.ts): the
 * writes of one event-loop turn share one transaction, begun by the first of them and committed
 * at the end of the turn (under load, at most every COMMIT_WINDOW_MS). A push, an end and an
 * output run their statements at once, inside that transaction. A start with deferred durability
 * runs none: it is written just before the COMMIT (beforeCommit), as one UPDATE conditional on
 * the status its row has, or not at all when the job ended meanwhile, because its end wrote the
 * row whole. A no-op job's row is thus updated once, from queued straight to its end: the
 * UPDATE that rewrites a row and its index entries was the largest part of the service's CPU per
 * job.
 *
 * Why reads stay correct. This process is the only writer of the database (one service per
 * data directory): a record it remembers is what the row is, or will be at the commit. For a
 * move it is only a hint: a move from it is an UPDATE conditional on the row's status, and one
 * that changes no row forgets the record and moves the job from its row (read, checked and
 * written in one transaction, which nothing can interleave: better-sqlite3 is synchronous). A
 * read of one job answers its record (a job with an unwritten move always has one); a read of
 * rows (lists, counts, children) goes through `writes.current`, which writes the unwritten moves
 * first, so SQL never sees a row behind its record. A bare record answers "no outputs, no children" with no read. A COMMIT that fails is
 * rolled back, and both caches are cleared (onRollback): no record outlives its row.
 *
 * What a crash loses: nothing acknowledged. A write without deferred durability resolves once
 * its COMMIT succeeded (WAL, synchronous = NORMAL: a process crash loses no commit, a power loss
 * may lose the last ones). A push with deferred durability is answered only after
 * Store.durable; an end's observers hear of it once it is durable; a start lost in a crash
 * leaves its job queued, to run again. The caches are memory only: they start empty.
 */
import { outputsForAnswer } from '../../../domain/answerBudget.js';
import { isFinalJobStatus, type JobOutput, type JobPatch, type JobRecord, type JobStatus } from '../../../domain/job.js';
import { inlinedBySize, inputsPreview, jsonBytes, type ListedOutput } from '../../../domain/listPreview.js';
import type { JobStore, Page } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import { applyPatch, parse, parseOutput, withCappedError, withoutInputs } from './jobRows.js';
import { prepareJobStatements, type NewestFirstList } from './jobStatements.js';
import { RememberedJobs } from './rememberedJobs.js';
import { inEveryStatusParameters } from './statusIndexes.js';
import { UnwrittenMoves } from './unwrittenMoves.js';

/** `remembered` is shared with retention (sqliteStore.ts), whose deletes forget the jobs they delete. */
export function sqliteJobStore(db: SqliteDatabase, writes: GroupCommit, remembered = new RememberedJobs()): JobStore {
  const sql = prepareJobStatements(db);
  const unwrittenMoves = new UnwrittenMoves((id, rowStatus) => {
    const job = remembered.active(id);
    if (job) sql.moveJobFrom.run(job.status, withoutInputs(job), id, rowStatus);
  });
  writes.onRollback(() => remembered.clear());
  writes.beforeCommit(() => unwrittenMoves.flush());
  writes.onRollback(() => unwrittenMoves.clear());

  /** A job as remembered, else as its row has it. */
  const read = (id: string): JobRecord | null => {
    const known = remembered.get(id);
    if (known) return known;
    const data = sql.selectJob.get(id);
    return data === undefined ? null : parse(data);
  };

  /** A move read from the row. Its status column is checked before its JSON is parsed: a lost race costs no parse. */
  const moveFromRow = db.transaction((id: string, from: readonly JobStatus[], patch: JobPatch): JobRecord | null => {
    const row = sql.selectJobToMove.get(id);
    if (!row || !from.includes(row.status as JobStatus)) return null;
    const next = applyPatch(parse(row.data), patch);
    sql.moveJob.run(next.status, withoutInputs(next), id);
    return remembered.remember(next, row.inputBytes);
  });

  /** A replay added to the job's row, read and written in one transaction (after the unwritten moves: the row is the job). */
  const addReplayToRow = db.transaction((id: string, replayId: string, keep: number): void => {
    const row = sql.selectJobToMove.get(id);
    if (!row) return;
    const job = parse(row.data);
    const next = { ...job, replays: [...(job.replays ?? []), replayId].slice(-keep) };
    sql.moveJob.run(row.status, withoutInputs(next), id);
    remembered.remember(next, row.inputBytes);
  });

  /**
   * A job's move (a start, an end, a cancel), made from its remembered record while that record
   * is in one of the `from` statuses. A deferred move to a status that is not an end is made in
   * memory only, if the record is kept; any other is one UPDATE conditional on the row's status.
   * Else, or when that UPDATE finds the row elsewhere, the move is made from the row.
   */
  const move = (id: string, from: readonly JobStatus[], patch: JobPatch, deferred: boolean): JobRecord | null => {
    const known = remembered.active(id);
    if (known && from.includes(known.status)) {
      const next = applyPatch(known, patch);
      const rowStatus = unwrittenMoves.rowStatus(id) ?? known.status;
      // An end is written at once: only a running job's record stands for its row until the commit.
      if (deferred && !isFinalJobStatus(next.status)) {
        const kept = remembered.moved(next);
        if (remembered.active(id) === kept) {
          unwrittenMoves.defer(id, rowStatus);
          return kept;
        }
      }
      if (sql.moveJobFrom.run(next.status, withoutInputs(next), id, rowStatus).changes === 1) {
        unwrittenMoves.written(id);
        return remembered.moved(next);
      }
    }
    unwrittenMoves.flush();
    remembered.forget(id);
    return moveFromRow.immediate(id, from, patch);
  };

  /**
   * One page of a newest-first list whose statements bind `parameters`: after the job where an
   * earlier page ended (a keyset seek, O(page)), else counted by OFFSET.
   */
  const listPage = (list: NewestFirstList, parameters: unknown[], page: Page): JobRecord[] =>
    writes
      .current(() =>
        page.after
          ? list.resumed.all(...list.bind([...parameters, page.after.createdAt, page.after.id]), page.limit)
          : list.counted.all(...list.bind(parameters), page.limit, page.offset),
      )
      .map(parse);

  return {
    // --- Push: the row inserted, the job remembered as bare (its parent is not any more) -------
    async create(given, options) {
      const job = withCappedError(given);
      const inputs = [JSON.stringify(inputsPreview(job.inputs)), JSON.stringify(job.inputs)] as const;
      const insertJob = () => {
        sql.insertJob.run(job.id, job.functionId, job.versionId, job.organizationId, job.parentJobId, job.status, job.createdAt, withoutInputs(job), ...inputs);
        remembered.remember(job, inputs[1].length, true);
        if (job.parentJobId !== null) remembered.gained(job.parentJobId);
      };
      await writes.writeAs(insertJob, options);
    },

    // --- Start and end (and cancel, requeue): each one move ------------------------------------
    async transition(id, from, patch, options) {
      if (from.length === 0) return null;
      return writes.writeAs(() => move(id, from, patch, options?.deferDurability === true), options);
    },

    async addReplay(id, replayId, keep) {
      await writes.write(() => {
        unwrittenMoves.flush();
        remembered.forget(id);
        addReplayToRow.immediate(id, replayId, keep);
      });
    },

    // --- Outputs: written at once, never kept back ---------------------------------------------
    async appendOutput(output, options) {
      const { data, ...head } = output;
      remembered.gained(output.jobId);
      const write = () => sql.insertOutput.run(output.jobId, output.index, jsonBytes(data), JSON.stringify(head), JSON.stringify(output));
      await writes.writeAs(write, options);
    },

    // --- Reads of one job ------------------------------------------------------------------------
    async get(id) {
      return read(id);
    },
    async statusOf(id) {
      return read(id)?.status ?? null;
    },
    async listOutputs(jobId, offset, maxBytes) {
      // A job known to have none (most reads of a job just pushed or just ended) reads no row.
      if (remembered.isBare(jobId)) return [];
      if (maxBytes === undefined) return sql.selectOutputs.all(jobId, Math.max(0, offset)).map(parseOutput);
      // Sizes first: only the outputs one answer can hold are read.
      const sizes = sql.selectOutputSizes.all(jobId, Math.max(0, offset));
      return sizes
        .slice(
          0,
          outputsForAnswer(
            sizes.map((row) => row.bytes),
            maxBytes,
          ),
        )
        .map((row) => parseOutput(sql.selectOutput.get(jobId, row.idx) as string));
    },
    async listOutputPreviews(jobId, limits) {
      if (remembered.isBare(jobId)) return [];
      const heads = sql.selectOutputHeads.all(jobId, Math.max(0, limits.max));
      const inline = inlinedBySize(
        heads.map((row) => row.bytes),
        limits.budget,
      );
      return heads.map((row, index): ListedOutput => {
        if (inline[index]) return { ...parseOutput(sql.selectOutput.get(jobId, row.idx) as string), omitted: false, bytes: row.bytes };
        return { ...(JSON.parse(row.head) as Omit<JobOutput, 'data'>), data: null, omitted: true, bytes: row.bytes };
      });
    },
    async listChildren(parentJobId) {
      if (remembered.isBare(parentJobId)) return [];
      return writes.current(() => sql.selectChildren.all(parentJobId)).map(parse);
    },
    async listChildSummaries(parentJobId, limit) {
      if (remembered.isBare(parentJobId) || sql.selectHasChild.get(parentJobId) === undefined) return [];
      return writes.current(() => sql.selectChildSummaries.all(parentJobId, limit ?? -1));
    },

    // --- Lists, newest first, a page at a time -------------------------------------------------
    async listByFunction(functionId, { organizationId, status }, page) {
      if (status === undefined) return listPage(sql.functionJobs, [functionId, organizationId], page);
      return listPage(sql.functionJobsInStatus, [functionId, organizationId, status], page);
    },
    async listByVersion(versionId, { organizationId }, page) {
      return listPage(sql.versionJobs, [versionId, organizationId], page);
    },
    async listByOrganization({ organizationId, status }, page) {
      if (status === undefined) return listPage(sql.organizationJobs, [organizationId], page);
      return listPage(sql.organizationJobsInStatus, [organizationId, status], page);
    },

    // --- Lists, oldest first: start-up, the queue and the sweeper, metrics, usage ---------------
    async listByStatus(statuses) {
      if (statuses.length === 0) return [];
      return writes.current(() => sql.jobsInStatuses(statuses).all()).map(parse);
    },
    async listQueuedByVersion(versionId) {
      return writes.current(() => sql.queuedOfVersion.all(versionId)).map(parse);
    },
    async listQueuedBefore(createdBefore, limit) {
      return writes.current(() => sql.queuedBefore.all(createdBefore, limit)).map(parse);
    },
    async countActive(organizationId) {
      const counts = { queued: 0, processing: 0 };
      for (const row of writes.current(() => sql.activeCounts.all(organizationId))) counts[row.status as keyof typeof counts] = row.count;
      return counts;
    },
    async listCreatedBetween(organizationId, from, to) {
      return writes.current(() => sql.createdBetween.all(...inEveryStatusParameters([organizationId, from, to]))).map(parse);
    },

    // Retention: sqliteRetention (retentionStore.ts) deletes ended jobs, and forgets them from `remembered`.
  };
}
