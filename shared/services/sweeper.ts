import { QUEUE_MESSAGE_EXPIRED, QUEUED_JOB_LIMIT_SECONDS, queuedSince } from '../domain/queueRetention.js';
import type { JobRecord } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { Builder } from '../ports/builder.js';
import type { Clock } from '../ports/clock.js';
import type { DeliveryScheduler } from '../ports/deliveryScheduler.js';
import type { OverdueCursor, Store } from '../ports/store.js';
import type { JobLifecycle } from './jobLifecycle.js';
import { StartDeadlines } from './startDeadlines.js';
import type { WebhookDeliverer } from './webhookDeliverer.js';

export interface SweeperSettings {
  /** A version still queued this long after its deploy never had its build started (a lost StartBuild). */
  stuckBuildSeconds: number;
  /** A pending delivery this long past its due time has no run moving it (a lost StartExecution, an ended run). */
  overdueDeliverySeconds: number;
  /** A job queued this long, in a queue that holds no message at all, lost its message (a push that died before sending it). */
  unsentJobSeconds: number;
  /** At most this many deliveries and jobs a sweep; the next sweep takes the rest. */
  batch: number;
}

/** Pages of overdue deliveries a sweep looks through at most (each `batch` long). */
const OVERDUE_PAGES = 10;

// Deliveries held behind a lost one take it for lost after a minute (deliveryOrder.ts): the
// sweeper restarts it soon after, so the job's later webhooks wait minutes at most. A run
// still going costs only a refused StartExecution and a DescribeExecution.
export const SWEEPER_DEFAULTS: SweeperSettings = { stuckBuildSeconds: 5 * 60, overdueDeliverySeconds: 2 * 60, unsentJobSeconds: 5 * 60, batch: 100 };

/** What one sweep did, by id, and what it could not do: for the log, and for tests. */
export interface SweepReport {
  buildsRestarted: string[];
  deliveriesRestarted: string[];
  jobsExpired: string[];
  /** Queued jobs whose message was lost, sent again. */
  jobsSentAgain: string[];
  /** Queued jobs cancelled because nobody started them by their `start_timeout`. */
  jobsPastStartDeadline: string[];
  failures: { item: string; error: unknown }[];
}

/**
 * Picks up what a lost call left behind (on AWS a throttle, a crash or a Lambda frozen at the
 * wrong moment can lose one): versions stuck in queued get their build started again
 * (idempotent: CodeBuild's token, and the builder starts only queued versions); pending
 * deliveries long overdue get their run started again, or, if it ended without finishing them,
 * an attempt recorded and a new run; queued jobs minutes old in a queue holding no message are
 * sent again (their push died between storing and sending); queued jobs whose message is about to expire are
 * ended in error; queued jobs past their start deadline are cancelled (StartDeadlines: the AWS
 * mode's only pass, so such a job ends up to a minute after its deadline). Each item stands
 * alone: one that fails is reported and retried next sweep.
 */
export class Sweeper {
  private readonly startDeadlines: StartDeadlines;

  constructor(
    private readonly store: Store,
    private readonly builder: Builder,
    private readonly scheduler: DeliveryScheduler,
    private readonly deliverer: WebhookDeliverer,
    private readonly lifecycle: JobLifecycle,
    private readonly clock: Clock,
    private readonly settings: SweeperSettings = SWEEPER_DEFAULTS,
    /** Where messages can be lost (SQS): its jobs' messages are sent again when lost. */
    private readonly queue?: Pick<JobQueue, 'enqueue' | 'holdsNothing'>,
  ) {
    this.startDeadlines = new StartDeadlines(store, lifecycle, clock);
  }

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { buildsRestarted: [], deliveriesRestarted: [], jobsExpired: [], jobsSentAgain: [], jobsPastStartDeadline: [], failures: [] };
    const now = this.clock.now();
    const each = async <T>(items: T[], what: (item: T) => string, handle: (item: T) => Promise<void>) => {
      for (const item of items) {
        try {
          await handle(item);
        } catch (error) {
          report.failures.push({ item: what(item), error });
        }
      }
    };

    const stuck = await this.store.versions.listByBuildStatus(['queued'], now - this.settings.stuckBuildSeconds * 1e6);
    await each(
      stuck.slice(0, this.settings.batch),
      (version) => `version ${version.id}`,
      async (version) => {
        await this.builder.enqueue(version.id);
        report.buildsRestarted.push(version.id);
      },
    );

    // Page by page: overdue deliveries whose runs still go (held behind an earlier delivery to a
    // receiver that is down) must not hide, page after page, the lost ones behind them.
    const dueBefore = now - this.settings.overdueDeliverySeconds * 1e6;
    let after: OverdueCursor | undefined;
    for (let page = 0; page < OVERDUE_PAGES && report.deliveriesRestarted.length < this.settings.batch; page++) {
      const overdue = await this.store.deliveries.listOverdue(dueBefore, this.settings.batch, after);
      await each(
        overdue,
        (delivery) => `delivery ${delivery.id}`,
        async (delivery) => {
          const outcome = await this.scheduler.reschedule(delivery);
          if (outcome === 'running') return;
          if (outcome === 'ended') {
            const failed = await this.deliverer.recordFailure(delivery.id, 'The delivery’s run ended before the delivery did; it was started again.');
            if (failed?.state !== 'pending' || (await this.scheduler.reschedule(failed)) === 'ended') return;
          }
          report.deliveriesRestarted.push(delivery.id);
        },
      );
      const last = overdue.at(-1);
      if (overdue.length < this.settings.batch || !last) break;
      after = { nextAttemptAt: last.nextAttemptAt, id: last.id };
    }

    const versions = new Map<string, Promise<VersionRecord | null>>();
    const versionOf = (id: string) => {
      let version = versions.get(id);
      if (!version) {
        version = this.store.versions.get(id);
        versions.set(id, version);
      }
      return version;
    };
    const old = await this.store.jobs.listQueuedBefore(now - QUEUED_JOB_LIMIT_SECONDS * 1e6, this.settings.batch);
    await each(
      old,
      (job) => `job ${job.id}`,
      async (job) => {
        const version = await versionOf(job.versionId);
        // A job of a version still building has no message yet: its build's end releases it.
        if (version?.buildStatus !== 'ready' || now - queuedSince(job, version) < QUEUED_JOB_LIMIT_SECONDS * 1e6) return;
        if (await this.lifecycle.failQueued(job.id, QUEUE_MESSAGE_EXPIRED)) report.jobsExpired.push(job.id);
      },
    );

    await each(
      await this.unsentJobs(now, versionOf),
      (job) => `job ${job.id}`,
      async (job) => {
        await this.queue?.enqueue(job);
        report.jobsSentAgain.push(job.id);
      },
    );

    try {
      report.jobsPastStartDeadline = await this.startDeadlines.expire();
    } catch (error) {
      report.failures.push({ item: 'start deadlines', error });
    }
    return report;
  }

  /**
   * Queued jobs whose message is lost: queued for minutes, of a ready version whose queue holds
   * no message at all. SQS's counts lag by a minute at most, far less than those minutes; and a
   * message sent twice is harmless (the second finds its job started, and is dropped).
   */
  private async unsentJobs(now: number, versionOf: (id: string) => Promise<VersionRecord | null>): Promise<JobRecord[]> {
    const queue = this.queue;
    if (!queue?.holdsNothing) return [];
    const old = await this.store.jobs.listQueuedBefore(now - this.settings.unsentJobSeconds * 1e6, this.settings.batch);
    const empty = new Map<string, Promise<boolean>>();
    const unsent: JobRecord[] = [];
    for (const job of old) {
      const version = await versionOf(job.versionId);
      if (version?.buildStatus !== 'ready' || now - queuedSince(job, version) < this.settings.unsentJobSeconds * 1e6) continue;
      // A count that cannot be read now is read again next sweep.
      if (!empty.has(version.id))
        empty.set(
          version.id,
          queue.holdsNothing(version.id).catch(() => false),
        );
      if (await empty.get(version.id)) unsent.push(job);
    }
    return unsent;
  }
}
