import { rm } from 'node:fs/promises';
import type { Clock } from '../../ports/clock.js';
import { jobFilesFolder } from './fileArtifacts.js';
import type { SqliteRetention } from './sqlite/retentionStore.js';

export interface RetentionOptions {
  retention: SqliteRetention;
  /** The data directory, whose files/<job id> folders go with their jobs. */
  dataDir: string;
  clock: Clock;
  /** How long an ended job is kept after it was created, in microseconds. */
  keptMicros: number;
  /** How often the sweeper looks for jobs past their retention. */
  intervalMs: number;
  onError: (error: unknown) => void;
}

/** Jobs deleted per commit at first; the sweeper adapts it so that a batch takes about BATCH_MS. */
export const RETENTION_BATCH = 50;
const MIN_BATCH = 5;
const MAX_BATCH = 500;
/** What a batch may hold the event loop for: well under a request's budget. */
const BATCH_MS = 3;
/** The share of the time retention may take while it has a backlog: the rest is the requests'. */
const DUTY = 0.2;
/** Batches per sweep at most; the next sweep goes on where this one stopped. */
const BATCHES_PER_SWEEP = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The local mode's retention (on AWS, DynamoDB's TTL and S3's lifecycle rules delete): every
 * interval, ended jobs created longer ago than the retention are deleted, oldest first, with
 * their outputs, logs, webhook deliveries, usage markers and output files. Small batches, each
 * one commit of a few milliseconds, with a pause four times as long after each, so a backlog
 * never takes more than a fifth of the event loop from requests.
 * Usage hour totals (the bill) stay. SQLite reuses the freed pages, so the file stops growing.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionOptions) {}

  start(): void {
    const tick = () => {
      this.sweep().catch(this.options.onError);
    };
    this.timer = setInterval(tick, this.options.intervalMs);
    this.timer.unref();
    tick();
  }

  /** Deletes what is past its retention now (up to a bound); answers how many jobs went. */
  sweep(): Promise<number> {
    this.running ??= this.deleteExpired().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => {});
  }

  private async deleteExpired(): Promise<number> {
    const { retention, dataDir, clock, keptMicros } = this.options;
    const createdBefore = clock.now() - keptMicros;
    let deleted = 0;
    let size = RETENTION_BATCH;
    for (let batch = 0; batch < BATCHES_PER_SWEEP && !this.stopped; batch++) {
      const ids = await retention.listEndedBefore(createdBefore, size);
      // Files first, then the rows: a crash in between leaves rows the next sweep deletes, never
      // files that nothing names any more.
      await Promise.all(ids.map((id) => rm(jobFilesFolder(dataDir, id), { recursive: true, force: true })));
      const started = performance.now();
      await retention.deleteJobs(ids);
      const elapsed = performance.now() - started;
      deleted += ids.length;
      if (ids.length < size) break;
      // Deletes touch pages all over a large database: the batch shrinks until it takes about BATCH_MS.
      if (elapsed > BATCH_MS) size = Math.max(MIN_BATCH, Math.floor(size / 2));
      else if (elapsed < BATCH_MS / 2) size = Math.min(MAX_BATCH, size * 2);
      await sleep(Math.max(1, (elapsed * (1 - DUTY)) / DUTY));
    }
    return deleted;
  }
}
