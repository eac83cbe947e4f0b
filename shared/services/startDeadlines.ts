import { startDeadline } from '../domain/startDeadline.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { JobLifecycle } from './jobLifecycle.js';

/** How many of the oldest queued jobs one pass reads (an indexed read in both stores). */
export const START_DEADLINE_BATCH = 1000;
/** How often the local mode looks (on AWS the sweeper's pass each minute does). */
export const START_DEADLINE_PASS_MS = 1000;

/**
 * Ends the queued jobs that nobody started by their deadline (`start_timeout`): a job that a
 * replica takes late is cancelled by JobLifecycle.start; this finds the ones nobody takes (a
 * version at its replica cap, a build still running). A pass reads the oldest queued jobs, so
 * a job with a deadline behind more than START_DEADLINE_BATCH older queued jobs is ended when
 * it moves up, or when a replica takes it.
 */
export class StartDeadlines {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly lifecycle: JobLifecycle,
    private readonly clock: Clock,
    private readonly batch = START_DEADLINE_BATCH,
  ) {}

  /** One pass; answers the ids of the jobs it cancelled. */
  async expire(): Promise<string[]> {
    const now = this.clock.now();
    const expired: string[] = [];
    for (const job of await this.store.jobs.listQueuedBefore(now, this.batch)) {
      if (job.attempts > 0 || now <= (startDeadline(job) ?? Infinity)) continue;
      if (await this.lifecycle.expireQueued(job)) expired.push(job.id);
    }
    return expired;
  }

  /** Passes every `intervalMs` until `stop` (the local mode); a pass still running is not doubled. */
  start(onError: (error: unknown) => void, intervalMs = START_DEADLINE_PASS_MS): void {
    this.timer = setInterval(() => {
      this.running ??= this.expire()
        .then(() => undefined, onError)
        .finally(() => {
          this.running = undefined;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
