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

/** Jobs deleted per commit: about 2 ms of the event loop (measured), between which requests run. */
export const RETENTION_BATCH = 50;
/** Batches per sweep at most (50,000 jobs); the next sweep goes on where this one stopped. */
const BATCHES_PER_SWEEP = 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The local mode's retention (on AWS, DynamoDB's TTL and S3's lifecycle rules delete): every
 * interval, ended jobs created longer ago than the retention are deleted, oldest first, with
 * their outputs, logs, webhook deliveries, usage markers and output files. Small batches, each
 * one commit, with a turn of the event loop between them, so a backlog never stalls requests.
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
    for (let batch = 0; batch < BATCHES_PER_SWEEP && !this.stopped; batch++) {
      const ids = await retention.deleteEndedBefore(createdBefore, RETENTION_BATCH);
      await Promise.all(ids.map((id) => rm(jobFilesFolder(dataDir, id), { recursive: true, force: true })));
      deleted += ids.length;
      if (ids.length < RETENTION_BATCH) break;
      await nextTurn();
    }
    return deleted;
  }
}
