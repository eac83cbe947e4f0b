import type { JobRecord } from '../../../domain/job.js';

/** What the remembered running jobs may take together: each counts its inputs' JSON and REMEMBERED_JOB_RECORD_BYTES. */
export const ACTIVE_JOBS_BYTES = 16 * 1024 * 1024;
/** What the remembered ended jobs may take together, counted the same way. */
export const ENDED_JOBS_BYTES = 1024 * 1024;
/** A record's own fields in memory, over-counted (about 650 bytes measured with no inputs). */
export const REMEMBERED_JOB_RECORD_BYTES = 1024;
/** A job whose inputs' JSON is longer is never remembered: its moves and reads read its row, as before. */
export const REMEMBERED_JOB_MAX_INPUT_BYTES = 16 * 1024;

interface Entry {
  job: JobRecord;
  inputBytes: number;
  /** Created by this process, and no output nor child job of it written since: it has none. */
  bare: boolean;
}

/** What an entry counts against its part's budget. */
const sizeOf = (entry: Entry) => entry.inputBytes + REMEMBERED_JOB_RECORD_BYTES;

/**
 * The records of jobs this process wrote, frozen (the write-behind cache: why it is right, and
 * when its jobs are written, is told at the top of jobStore.ts). Two parts: the queued and
 * processing jobs (a job's start and end read no row and parse no JSON), and the last ones that
 * ended (the await that follows a job's end reads no row either). An ended record never changes
 * (no move leaves an end), until retention deletes its job (`forget`). Each part is bounded by
 * bytes: about 16,000 running and 1,000 ended records of small inputs (the oldest ended go
 * first), which at full load is the last fraction of a second: the reads that follow an end come
 * sooner.
 */
export class RememberedJobs {
  private readonly running = new Map<string, Entry>();
  private readonly ended = new Map<string, Entry>();
  private runningBytes = 0;
  private endedBytes = 0;

  constructor(
    private readonly activeBudget = ACTIVE_JOBS_BYTES,
    private readonly endedBudget = ENDED_JOBS_BYTES,
  ) {}

  /** A queued or processing job's record: what its moves are made from. */
  active(id: string): JobRecord | undefined {
    return this.running.get(id)?.job;
  }

  /** Any remembered record: what a read returns. */
  get(id: string): JobRecord | undefined {
    return this.entry(id)?.job;
  }

  /** Whether the job is known to have no outputs and no child jobs: created here, none written since. */
  isBare(id: string): boolean {
    return this.entry(id)?.bare === true;
  }

  /** An output of the job, or a job it pushed, is being written: it is not bare any more. */
  gained(id: string): void {
    const entry = this.entry(id);
    if (entry) entry.bare = false;
  }

  /** The job as just written (`bare`: just created). Returns the record, frozen. */
  remember(job: JobRecord, inputBytes: number, bare = false): JobRecord {
    this.forget(job.id);
    const entry = { job: Object.freeze(job), inputBytes, bare };
    const bytes = sizeOf(entry);
    if (inputBytes > REMEMBERED_JOB_MAX_INPUT_BYTES) return entry.job;
    if (job.status === 'queued' || job.status === 'processing') {
      if (this.runningBytes + bytes > this.activeBudget) return entry.job;
      this.running.set(job.id, entry);
      this.runningBytes += bytes;
    } else {
      for (const [oldest, kept] of this.ended) {
        if (this.endedBytes + bytes <= this.endedBudget) break;
        this.ended.delete(oldest);
        this.endedBytes -= sizeOf(kept);
      }
      if (this.endedBytes + bytes > this.endedBudget) return entry.job;
      this.ended.set(job.id, entry);
      this.endedBytes += bytes;
    }
    return entry.job;
  }

  /** A remembered running job's next record (a move): kept, with the size of its inputs and what it has. */
  moved(job: JobRecord): JobRecord {
    const entry = this.running.get(job.id);
    return this.remember(job, entry?.inputBytes ?? Number.POSITIVE_INFINITY, entry?.bare);
  }

  forget(id: string): void {
    const running = this.running.get(id);
    if (running) {
      this.running.delete(id);
      this.runningBytes -= sizeOf(running);
    }
    const ended = this.ended.get(id);
    if (ended) {
      this.ended.delete(id);
      this.endedBytes -= sizeOf(ended);
    }
  }

  private entry(id: string): Entry | undefined {
    return this.running.get(id) ?? this.ended.get(id);
  }

  /** A commit failed: the rows are what they were before it, which no record here says. */
  clear(): void {
    this.running.clear();
    this.ended.clear();
    this.runningBytes = 0;
    this.endedBytes = 0;
  }
}
