import type { JobStatus } from '../../../domain/job.js';

/**
 * Moves of remembered jobs (ActiveJobs) made in memory and written with the turn's commit, just
 * before its COMMIT: a start, whose durability is deferred anyway. A no-op job starts and ends
 * within one commit window, so its row is then written once, from queued straight to its end,
 * not twice: the UPDATE that rewrites a row and four index entries was the largest part of the
 * service's CPU per job.
 *
 * Each entry is the status the job's row still has, which the write is conditional on. Whatever
 * reads rows that such a move changes (a list, a count, a read of the row itself) writes them all
 * first, so no reader ever sees a row behind its record.
 */
export class UnwrittenMoves {
  /** Job id -> the status its row has. */
  private readonly rows = new Map<string, JobStatus>();

  /** `write` makes a job's row its remembered record, conditional on the status the row has. */
  constructor(private readonly write: (id: string, rowStatus: JobStatus) => void) {}

  /** A move of this job made in memory only; its row keeps the status it had before the first such move. */
  defer(id: string, rowStatus: JobStatus): void {
    if (!this.rows.has(id)) this.rows.set(id, rowStatus);
  }

  /** The status the job's row has, when a move of it is unwritten. */
  rowStatus(id: string): JobStatus | undefined {
    return this.rows.get(id);
  }

  /** The job's row was just written whole: nothing of it is left to write. */
  written(id: string): void {
    this.rows.delete(id);
  }

  /** Writes every unwritten move. One that fails stays, for the commit to try (and roll back). */
  flush(): void {
    for (const [id, rowStatus] of this.rows) {
      this.write(id, rowStatus);
      this.rows.delete(id);
    }
  }

  /** The transaction they belonged to was rolled back: the rows are as before it, and so are the records (cleared). */
  clear(): void {
    this.rows.clear();
  }
}
