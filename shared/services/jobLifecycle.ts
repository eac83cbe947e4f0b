import type { JobOutput, JobRecord, RestartType } from '../domain/job.js';
import { MAX_JOB_ATTEMPTS } from '../domain/job.js';
import { newShortId } from '../domain/ids.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { JobReports } from '../ports/jobReports.js';
import type { Store } from '../ports/store.js';
import type { JobNotifier } from './jobNotifier.js';

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

  /**
   * queued -> processing; null when the job is no longer queued (cancelled meanwhile). The job
   * runs without waiting for the move to be durable: a crash before the commit leaves it queued,
   * and the restart runs it again, as it would a job that was processing. Its `started` event is
   * told once the move is durable, without holding the run back.
   */
  async start(jobId: string): Promise<JobRecord | null> {
    const job = await this.store.jobs.transition(
      jobId,
      ['queued'],
      { status: 'processing', startedAt: this.clock.now(), countAttempt: true },
      { deferDurability: true },
    );
    // A commit that fails is reported to the writes waiting on it (the run's end among them).
    if (job) this.notifier.notify({ type: 'started', job }).catch(() => undefined);
    return job;
  }

  /**
   * A job handed out again because its last taker never acknowledged it (a worker that died):
   * if it still says processing, that attempt is over. It goes through `interrupt`, so it is
   * queued again (or errors after its last attempt); the caller then starts it as usual.
   */
  async recoverAbandoned(jobId: string): Promise<JobRecord | null> {
    const job = await this.store.jobs.get(jobId);
    if (job?.status !== 'processing') return null;
    const requeued = await this.interrupt(job, 'preemption', 'The worker running the job stopped answering.', false);
    return requeued?.status === 'queued' ? this.start(jobId) : null;
  }

  /** Stores one output of the running attempt. */
  async recordOutput(job: JobRecord, output: Omit<JobOutput, 'jobId' | 'runId'>): Promise<void> {
    const stored: JobOutput = { ...output, jobId: job.id, runId: job.runId ?? '' };
    await this.store.jobs.appendOutput(stored);
    await this.notifier.notify({ type: 'output', job, output: stored });
  }

  async finish(job: JobRecord): Promise<JobRecord | null> {
    return this.complete(job, { status: 'finished', error: '' });
  }

  async fail(job: JobRecord, error: string): Promise<JobRecord | null> {
    return this.complete(job, { status: 'error', error });
  }

  /**
   * The attempt ended without a result (its replica died, or the service stopped): the job
   * goes back to the queue with a restart entry and a new run id, or ends in error once it
   * has been tried MAX_JOB_ATTEMPTS times.
   */
  async interrupt(job: JobRecord, type: RestartType, reason: string, enqueue = true): Promise<JobRecord | null> {
    const restarts = [...job.restarts, { timestamp: this.clock.now(), reason, type, run_id: job.runId ?? '' }];
    if (job.attempts >= MAX_JOB_ATTEMPTS) {
      return this.complete(job, { status: 'error', error: `The job was attempted ${job.attempts} times and failed each time; last: ${reason}`, restarts });
    }
    const requeued = await this.store.jobs.transition(job.id, ['processing'], { status: 'queued', startedAt: null, runId: newShortId(), restarts });
    if (requeued && enqueue) await this.queue.enqueue(requeued);
    return requeued;
  }

  /** Ends a job that never started: its version's build failed. */
  async failQueued(jobId: string, error: string): Promise<JobRecord | null> {
    return this.completeFrom(jobId, ['queued'], { status: 'error', error });
  }

  private complete(job: JobRecord, patch: { status: 'finished' | 'error'; error: string; restarts?: JobRecord['restarts'] }) {
    return this.completeFrom(job.id, ['processing'], patch);
  }

  /**
   * The move is decided first and made durable with what its observers write (usage, webhook
   * deliveries): one commit holds them all, so a crash keeps all or none. Waiters hear of the end
   * only once it is durable (JobNotifier).
   */
  private async completeFrom(jobId: string, from: readonly JobRecord['status'][], patch: Parameters<Store['jobs']['transition']>[2]) {
    const done = await this.store.jobs.transition(jobId, from, { ...patch, completedAt: this.clock.now() }, { deferDurability: true });
    if (done) await this.notifier.notify({ type: 'completed', job: done });
    return done;
  }
}
