import type { JobRecord } from '../../../domain/job.js';

/** What all remembered jobs may take together: each counts its inputs' JSON and ACTIVE_JOB_RECORD_BYTES. */
export const ACTIVE_JOBS_BYTES = 16 * 1024 * 1024;
/** A record's own fields in memory, over-counted (about 650 bytes measured with no inputs). */
export const ACTIVE_JOB_RECORD_BYTES = 1024;
/** A job whose inputs' JSON is longer is never remembered: its moves read its row, as before. */
export const ACTIVE_JOB_MAX_INPUT_BYTES = 16 * 1024;

/**
 * The records of jobs this process wrote while they are queued or processing, frozen: a job's
 * start and end read no row and parse no JSON, and an await of a running job reads none either.
 * A hint, never the truth: each move made from a remembered record is a conditional UPDATE on
 * the status it remembers, and one that changes no row (a rolled-back commit left the row
 * elsewhere) forgets it and reads the row. Right because this process is the only writer of
 * jobs (one service per data directory). Bounded by bytes: about 16,000 records of small inputs.
 */
export class ActiveJobs {
  private readonly records = new Map<string, { job: JobRecord; inputBytes: number }>();
  private bytes = 0;

  constructor(private readonly budget = ACTIVE_JOBS_BYTES) {}

  get(id: string): JobRecord | undefined {
    return this.records.get(id)?.job;
  }

  /** The job as just written: kept while it is queued or processing (and fits), else forgotten. */
  remember(job: JobRecord, inputBytes: number): JobRecord {
    this.forget(job.id);
    const frozen = Object.freeze(job);
    const bytes = inputBytes + ACTIVE_JOB_RECORD_BYTES;
    if ((job.status !== 'queued' && job.status !== 'processing') || inputBytes > ACTIVE_JOB_MAX_INPUT_BYTES || this.bytes + bytes > this.budget) return frozen;
    this.records.set(job.id, { job: frozen, inputBytes });
    this.bytes += bytes;
    return frozen;
  }

  /** A remembered job's next record (a move): kept while still active, with the size of its inputs. */
  moved(job: JobRecord): JobRecord {
    return this.remember(job, this.records.get(job.id)?.inputBytes ?? Number.POSITIVE_INFINITY);
  }

  forget(id: string): void {
    const entry = this.records.get(id);
    if (!entry) return;
    this.records.delete(id);
    this.bytes -= entry.inputBytes + ACTIVE_JOB_RECORD_BYTES;
  }

  /** A commit failed: the rows are what they were before it, which no record here says. */
  clear(): void {
    this.records.clear();
    this.bytes = 0;
  }
}
