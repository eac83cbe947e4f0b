import type { Clock } from '../ports/clock.js';
import type { LogEntry } from '../domain/log.js';
import type { LogLabels, LogLines } from '../ports/logLines.js';
import type { LogStore } from '../ports/store.js';

export interface LogWriterOptions {
  flushIntervalMs: number;
  batchSize: number;
  /** Lines not yet stored past which `write` answers false: the producer should pause. */
  highWaterMark: number;
}

const DEFAULTS: LogWriterOptions = { flushIntervalMs: 50, batchSize: 1000, highWaterMark: 20_000 };

/**
 * Collects output lines and appends them to the log store in batches: one write per
 * `flushIntervalMs` or per `batchSize` lines, whichever comes first. Writes happen one at a
 * time, in order, so lines are stored as they were printed. `write` answers false once too
 * many lines wait, so a chatty process is paused rather than filling the service's memory.
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
      this.writing = this.writing.then(async () => {
        await this.store.append(batch);
        this.unstored -= batch.length;
      });
    }
    return this.writing;
  }
}
