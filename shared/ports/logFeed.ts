import type { LogEntry } from '../domain/log.js';

/**
 * Log lines as they are stored, for the streams that follow logs. Locally every append is
 * published in process; on AWS lines are written in ECS tasks, so nothing is published and
 * followers read the store on a timer instead.
 */
export interface LogFeed {
  publish(entries: readonly LogEntry[]): void;
  /** Calls the listener with each stored batch until the returned function is called. */
  subscribe(listener: (entries: readonly LogEntry[]) => void): () => void;
}
