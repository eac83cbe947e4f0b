import type { LogEntry } from '../domain/log.js';
import type { Clock } from '../ports/clock.js';
import type { LogStore } from '../ports/store.js';

export type LogLabels = Omit<LogEntry, 'timeNs' | 'message'>;

/**
 * Collects output lines and appends them to the log store in batches: one write per
 * `flushIntervalMs` or per `batchSize` lines, whichever comes first. Writes happen one at a
 * time, in order, so lines are stored as they were printed.
 */
export class LogWriter {
  private pending: LogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly labels: LogLabels,
    private readonly options: { flushIntervalMs: number; batchSize: number } = { flushIntervalMs: 50, batchSize: 500 },
  ) {}

  write(message: string): void {
    this.pending.push({ ...this.labels, timeNs: this.clock.nowNs(), message });
    if (this.pending.length >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
  }

  /** Resolves once every line written so far is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.store.append(batch));
    return this.writing;
  }
}
