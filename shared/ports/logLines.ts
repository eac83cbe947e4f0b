import type { LogEntry } from '../domain/log.js';

/** What labels a line: its stream, organization, function, job, run and stage. */
export type LogLabels = Omit<LogEntry, 'timeNs' | 'message'>;

/** One stream's lines on their way to the log store, in order. */
export interface LogLines {
  /** Queues a line; false when the producer should wait for `flush()` before writing more. */
  write(message: string): boolean;
  /** Resolves once every line written so far is stored. */
  flush(): Promise<void>;
}

/** Opens the lines of one stream; the composition root gives services' LogWriter over the store. */
export type OpenLogLines = (labels: LogLabels) => LogLines;
