import type { JobStatus } from '../../../domain/job.js';

/**
 * The job store's starts made in memory only, until the commit (the write-behind cache: its whole
 * story is at the top of jobStore.ts). Each entry is the status the job's row still has: `write`,
 * the UPDATE of the row from the job's record, is conditional on it. The store writes them all
 * (`flush`) just before each COMMIT, and before anything reads the rows they change.
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
