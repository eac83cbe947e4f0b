import type { Clock } from '../ports/clock.js';
import type { LogEntry } from '../domain/log.js';
import type { LogLabels, LogLines } from '../ports/logLines.js';
import type { LogStore } from '../ports/store.js';

export interface LogWriterOptions {
  flushIntervalMs: number;
  batchSize: number;
  /** Lines not yet stored past which `write` answers false: the producer should pause. */
  highWaterMark: number;
  /** A batch the store refused (a full disk), which is dropped: for the operator's log. */
  onRefused: (error: unknown, lines: number) => void;
}

const DEFAULTS: LogWriterOptions = { flushIntervalMs: 50, batchSize: 1000, highWaterMark: 20_000, onRefused: () => undefined };

/**
 * Collects output lines and appends them to the log store in batches: one write per
 * `flushIntervalMs` or per `batchSize` lines, whichever comes first. Writes happen one at a
 * time, in order, so lines are stored as they were printed. `write` answers false once too
 * many lines wait, so a chatty process is paused rather than filling the service's memory.
 * A batch the store refuses is lost (and reported): flush never rejects.
 */
export class LogWriter implements LogLines {
  private pending: LogEntry[] = [];
  private unstored = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly options: LogWriterOptions;

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly labels: LogLabels,
    options: Partial<LogWriterOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Queues a line; false when the producer should wait for `flush()` before writing more. */
  write(message: string): boolean {
    this.pending.push({ ...this.labels, timeNs: this.clock.nowNs(), message });
    this.unstored += 1;
    if (this.pending.length >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
    return this.unstored < this.options.highWaterMark;
  }

  /** Resolves once every line written so far is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      // A refused batch is dropped, not kept for later: a job's lines matter less than its end,
      // which waits for every flush, and a writer that failed once must still take the next lines.
      this.writing = this.writing.then(async () => {
        try {
          await this.store.append(batch);
        } catch (error) {
          this.options.onRefused(error, batch.length);
        } finally {
          this.unstored -= batch.length;
        }
      });
    }
    return this.writing;
  }
}
