import { isFinalJobStatus } from '../../domain/job.js';
import type { JobEvents } from '../../ports/jobEvents.js';
import type { Store } from '../../ports/store.js';

/**
 * JobEvents for the AWS mode. A job's moves happen in an ECS task while its waiters are in
 * Lambdas, with no shared memory between them, so a waiter learns of the completion by reading
 * the job every `intervalMs`: its status only (a consistent read of one attribute, `statusOf`),
 * and the whole job once that status is final. `publish` has nobody to tell.
 */
export function createPollingJobEvents(store: Store, intervalMs = 250): JobEvents {
  return {
    publish() {
      // Waiters poll the store; see above.
    },
    subscribe(jobId, listener) {
      let stopped = false;
      const poll = async () => {
        if (stopped) return;
        const status = await store.jobs.statusOf(jobId).catch(() => null);
        const job = status !== null && isFinalJobStatus(status) ? await store.jobs.get(jobId).catch(() => null) : null;
        if (stopped) return;
        if (job && isFinalJobStatus(job.status)) return listener({ type: 'completed', job });
        timer = setTimeout(() => void poll(), intervalMs);
      };
      let timer = setTimeout(() => void poll(), intervalMs);
      return () => {
        stopped = true;
        clearTimeout(timer);
      };
    },
  };
}
