import type { JobEvent, JobEvents } from '../../ports/jobEvents.js';

/** In-process job events: the local mode has one process, so listeners are plain callbacks. */
export function createMemoryJobEvents(): JobEvents {
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
  };
}
