import type { JobEvent, JobEvents } from '../../ports/jobEvents.js';

export interface MemoryJobEvents extends JobEvents {
  /** How many listeners wait now, over all jobs (every await or stream that ended must have let go). */
  listenerCount(): number;
}

/** In-process job events: the local mode has one process, so listeners are plain callbacks. */
export function createMemoryJobEvents(): MemoryJobEvents {
  const listeners = new Map<string, Set<(event: JobEvent) => void>>();
  return {
    publish(event) {
      for (const listener of listeners.get(event.job.id) ?? []) listener(event);
    },
    subscribe(jobId, listener) {
      const forJob = listeners.get(jobId) ?? new Set();
      forJob.add(listener);
      listeners.set(jobId, forJob);
      return () => {
        forJob.delete(listener);
        if (forJob.size === 0) listeners.delete(jobId);
      };
    },
    listenerCount: () => [...listeners.values()].reduce((sum, forJob) => sum + forJob.size, 0),
  };
}
