import { BinaryHeap } from '../domain/binaryHeap.js';
import type { JobRecord } from '../domain/job.js';
import type { Micros } from '../domain/time.js';
import { startDeadline } from '../domain/startDeadline.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { JobLifecycle } from './jobLifecycle.js';

/** How many of the oldest queued jobs one pass reads (an indexed read in both stores). */
export const START_DEADLINE_BATCH = 1000;
/** How often the local mode looks (on AWS the sweeper's pass each minute does). */
export const START_DEADLINE_PASS_MS = 1000;

interface Watched {
  id: string;
  deadline: Micros;
}

/**
 * Ends the queued jobs that nobody started by their deadline (`start_timeout`): a job that a
 * replica takes late is cancelled by JobLifecycle.start; this finds the ones nobody takes (a
 * version at its replica cap, a build still running).
 *
 * Two ways to find them. `expire` reads the oldest queued jobs (the AWS sweeper, each minute,
 * and the local mode once at its start): a job with a deadline behind more than
 * START_DEADLINE_BATCH older queued jobs is ended when it moves up, or when a replica takes it.
 * The local mode, one process that sees every push, also `watch`es the deadlines of the jobs
 * pushed since, and each second reads only the jobs whose deadline has come: a queue without
 * deadlines costs nothing, however long it is.
 */
export class StartDeadlines {
  private readonly watched = new BinaryHeap<Watched>((a, b) => a.deadline < b.deadline);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly store: Store,
    private readonly lifecycle: JobLifecycle,
    private readonly clock: Clock,
    private readonly batch = START_DEADLINE_BATCH,
  ) {}

  /** One pass over the oldest queued jobs; answers the ids of the jobs it cancelled. */
  async expire(): Promise<string[]> {
    const now = this.clock.now();
    const expired: string[] = [];
    for (const job of await this.store.jobs.listQueuedBefore(now, this.batch)) {
      if (await this.expireIfLate(job, now)) expired.push(job.id);
    }
    return expired;
  }

  /** A job just pushed: if it has a deadline, the local timer looks at it once the deadline has come. */
  watch(job: Pick<JobRecord, 'id' | 'createdAt' | 'startTimeoutSeconds'>): void {
    const deadline = startDeadline(job);
    if (deadline !== null) this.watched.push({ id: job.id, deadline });
  }

  /** The watched jobs whose deadline has come: each read, and cancelled if still never started. */
  async expireWatched(): Promise<string[]> {
    const now = this.clock.now();
    const expired: string[] = [];
    for (let next = this.watched.peek(); next !== undefined && next.deadline < now; next = this.watched.peek()) {
      this.watched.pop();
      const job = await this.store.jobs.get(next.id);
      if (job && (await this.expireIfLate(job, now))) expired.push(job.id);
    }
    return expired;
  }

  /** The local mode: a pass over the oldest queued jobs now (those queued before a restart), then the watched ones every `intervalMs`, until `stop`. */
  start(onError: (error: unknown) => void, intervalMs = START_DEADLINE_PASS_MS): void {
    const pass = (work: () => Promise<unknown>) => {
      this.running ??= work()
        .catch(onError)
        .finally(() => {
          this.running = undefined;
        });
    };
    pass(() => this.expire());
    this.timer = setInterval(() => pass(() => this.expireWatched()), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async expireIfLate(job: JobRecord, now: Micros): Promise<boolean> {
    if (job.status !== 'queued' || job.attempts > 0 || now <= (startDeadline(job) ?? Infinity)) return false;
    return (await this.lifecycle.expireQueued(job)) !== null;
  }
}
