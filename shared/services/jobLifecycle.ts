import type { JobOutput, JobRecord, RestartEntry, RestartType } from '../domain/job.js';
import { endTime, isFinalJobStatus, MAX_JOB_ATTEMPTS } from '../domain/job.js';
import { newShortId } from '../domain/ids.js';
import { retryDelaySeconds } from '../domain/scheduling.js';
import type { Micros } from '../domain/time.js';
import { isStorageRefusal } from '../domain/errors.js';
import { missedStartError, startDeadline } from '../domain/startDeadline.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { JobReports } from '../ports/jobReports.js';
import type { Store } from '../ports/store.js';
import type { JobNotifier } from './jobNotifier.js';

/** How long a move the disk had no room for waits before it is tried again. */
const STORAGE_RETRY_MS = 1000;
/** A job whose start was not stored runs again after this: each run costs its function's time, so not at once. */
const RUN_AGAIN_AFTER_S = 5;

/**
 * The moves a job makes while it runs, as the worker agent reports them. Each is a
 * conditional write on the job's current status, so a replica finishing and a user
 * cancelling can never both win; a move that loses returns null and changes nothing.
 */
export class JobLifecycle implements JobReports {
  constructor(
    private readonly store: Store,
    private readonly queue: JobQueue,
    private readonly notifier: JobNotifier,
    private readonly clock: Clock,
  ) {}

  /** Jobs running whose start the disk had no room for: their rows still say queued. */
  private readonly unstoredStarts = new Set<string>();

  /**
   * queued -> processing; null when the job is no longer queued (cancelled meanwhile). The job
   * runs without waiting for the move to be durable: a crash before the commit leaves it queued,
   * and the restart runs it again, as it would a job that was processing. Its `started` event is
   * told once the move is durable, without holding the run back.
   * A first start past the job's start deadline ends it cancelled instead (null): the deadline is
   * read from the moved record, so a start costs no read before its write.
   */
  async start(jobId: string): Promise<JobRecord | null> {
    const now = this.clock.now();
    const job = await this.store.jobs.transition(jobId, ['queued'], { status: 'processing', startedAt: now, countAttempt: true }, { deferDurability: true });
    if (job && job.attempts === 1 && now > (startDeadline(job) ?? Infinity)) {
      await this.missedStart(job.id, ['processing'], missedStartError(job));
      return null;
    }
    // A commit that fails is reported to the writes waiting on it (the run's end among them).
    if (job)
      this.notifier.notify({ type: 'started', job }).catch((error: unknown) => {
        if (isStorageRefusal(error)) this.unstoredStarts.add(job.id);
      });
    return job;
  }

  /**
   * A job handed out again because its last taker never acknowledged it (a worker that died):
   * if it still says processing, that attempt is over. It goes through `interrupt`, so it is
   * queued again (or errors after its last attempt); the caller then starts it as usual. If it
   * has ended, its taker may have died between writing the end and what follows it: that is
   * settled (JobNotifier.settle) before the message is let go.
   */
  async recoverAbandoned(jobId: string): Promise<JobRecord | null> {
    const job = await this.settled(jobId);
    if (job?.status !== 'processing') return null;
    const requeued = await this.interrupt(job, 'preemption', 'The worker running the job stopped answering.', false);
    return requeued?.status === 'queued' ? this.start(jobId) : null;
  }

  async settleEnded(jobId: string): Promise<void> {
    await this.settled(jobId);
  }

  /** The job as stored, what follows its end made again where missing if it has ended (JobNotifier.settle). */
  private async settled(jobId: string): Promise<JobRecord | null> {
    const job = await this.store.jobs.get(jobId);
    if (job && isFinalJobStatus(job.status)) await this.notifier.settle({ type: 'completed', job });
    return job;
  }

  /**
   * Writes one output of the running attempt into the open commit: the replica does not wait for
   * it (a commit per output held each replica to one job per commit). Waiters and webhooks hear
   * of it once durable (`told`), in order, and before the job's end (the run's end awaits it).
   */
  async recordOutput(job: JobRecord, output: Omit<JobOutput, 'jobId' | 'runId'>): Promise<{ told: Promise<void> }> {
    const stored: JobOutput = { ...output, jobId: job.id, runId: job.runId ?? '' };
    await this.store.jobs.appendOutput(stored, { deferDurability: true });
    const told = this.notifier.notify({ type: 'output', job, output: stored });
    told.catch(() => undefined); // awaited by the run's end, which reports it
    return { told };
  }

  async finish(job: JobRecord): Promise<JobRecord | null> {
    return this.complete(job, { status: 'finished', error: '' });
  }

  /**
   * The run ended in error. One that may be retried (the function raised, and not
   * FatalException: the caller says) goes back to the queue while the job has retries left
   * (`maxRetries`), with a restart entry numbering the retry and the backoff of
   * retryDelaySeconds; otherwise the job ends in error with this attempt's error.
   */
  async fail(job: JobRecord, error: string, options: { retryable?: boolean } = {}): Promise<JobRecord | null> {
    const retry = retriesOf(job) + 1;
    if (!options.retryable || retry > (job.maxRetries ?? 0)) return this.complete(job, { status: 'error', error });
    return this.requeue(job, { ...this.restartEntry(job, 'error', error), retry }, retryDelaySeconds(retry));
  }

  /**
   * The attempt ended without a result (its replica died, or the service stopped): the job
   * goes back to the queue with a restart entry and a new run id, or ends in error once it
   * has been tried MAX_JOB_ATTEMPTS times. Attempts that ended in a retry (`fail`) do not count
   * here: retries and crash restarts each have their own budget.
   */
  async interrupt(job: JobRecord, type: RestartType, reason: string, enqueue = true): Promise<JobRecord | null> {
    const entry = this.restartEntry(job, type, reason);
    if (job.attempts - retriesOf(job) >= MAX_JOB_ATTEMPTS) {
      const error = `The job was attempted ${job.attempts} times and failed each time; last: ${reason}`;
      return this.complete(job, { status: 'error', error, restarts: [...job.restarts, entry] });
    }
    return this.requeue(job, entry, enqueue ? 0 : null);
  }

  /** Ends a job that never started: its version's build failed. */
  async failQueued(jobId: string, error: string): Promise<JobRecord | null> {
    return this.completeFrom(jobId, ['queued'], { status: 'error', error });
  }

  /**
   * Ends a queued job whose start deadline has passed (startDeadlines.ts finds those nobody
   * took): cancelled, never started, so it costs nothing. Null when it left `queued` meanwhile.
   */
  async expireQueued(job: JobRecord): Promise<JobRecord | null> {
    return this.missedStart(job.id, ['queued'], missedStartError(job));
  }

  /** Cancelled without a start (startedAt null: no usage span), heard of as any cancel. */
  private missedStart(jobId: string, from: readonly JobRecord['status'][], error: string) {
    return this.completeFrom(jobId, from, { status: 'cancelled', error, startedAt: null });
  }

  private restartEntry(job: JobRecord, type: RestartType, reason: string): RestartEntry {
    return { timestamp: this.clock.now(), reason, type, run_id: job.runId ?? '' };
  }

  /** processing -> queued under a new run id; enqueued after `delaySeconds`, or not at all when null (the caller will). */
  private requeue(job: JobRecord, entry: RestartEntry, delaySeconds: number | null): Promise<JobRecord | null> {
    return this.endAttempt(job, async () => {
      const restarts = [...job.restarts, entry];
      const requeued = await this.store.jobs.transition(job.id, ['processing'], { status: 'queued', startedAt: null, runId: newShortId(), restarts });
      if (requeued && delaySeconds !== null) await this.queue.enqueue(requeued, delaySeconds > 0 ? { delaySeconds } : undefined);
      return requeued;
    });
  }

  private complete(job: JobRecord, patch: { status: 'finished' | 'error'; error: string; restarts?: JobRecord['restarts'] }) {
    return this.endAttempt(job, () => this.completeFrom(job.id, ['processing'], patch, job.startedAt));
  }

  /**
   * The move that ends a running attempt, tried again while the disk has no room for it: the job
   * keeps its last stored state meanwhile (the answer a user can wait for), never lost. An attempt
   * whose start was not stored left its row queued, so its end moves nothing: the job is queued
   * again, to run once there is room, as the next start would run it after a crash.
   */
  private async endAttempt(job: JobRecord, move: () => Promise<JobRecord | null>): Promise<JobRecord | null> {
    for (;;) {
      try {
        const moved = await move();
        const startUnstored = this.unstoredStarts.delete(job.id);
        if (!moved && startUnstored) await this.runAgain(job.id);
        return moved;
      } catch (error) {
        if (!isStorageRefusal(error)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, STORAGE_RETRY_MS));
    }
  }

  private async runAgain(jobId: string): Promise<void> {
    const row = await this.store.jobs.get(jobId);
    if (row?.status === 'queued') await this.queue.enqueue(row, { delaySeconds: RUN_AGAIN_AFTER_S });
  }

  /**
   * The move is decided first and made durable with what its observers write (usage, webhook
   * deliveries): one commit holds them all, so a crash keeps all or none. Waiters hear of the end
   * only once it is durable (JobNotifier).
   */
  private async completeFrom(
    jobId: string,
    from: readonly JobRecord['status'][],
    patch: Parameters<Store['jobs']['transition']>[2],
    startedAt: Micros | null = null,
  ) {
    const done = await this.store.jobs.transition(jobId, from, { ...patch, completedAt: endTime(this.clock.now(), startedAt) }, { deferDurability: true });
    if (done) await this.notifier.notify({ type: 'completed', job: done });
    return done;
  }
}

/** How many times the job was run again because it raised. */
function retriesOf(job: JobRecord): number {
  return job.restarts.filter((restart) => restart.retry !== undefined).length;
}
