import type { LogFeed } from '../../ports/logFeed.js';

export interface MemoryLogFeed extends LogFeed {
  /** How many followers listen now (every stream a client left must have let go). */
  listenerCount(): number;
}

/** The local mode's log feed: one process, so listeners are plain callbacks. */
export function createMemoryLogFeed(): MemoryLogFeed {
  const listeners = new Set<Parameters<LogFeed['subscribe']>[0]>();
  return {
    publish(entries) {
      for (const listener of listeners) listener(entries);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    listenerCount: () => listeners.size,
  };
}
