import { RateLimitedError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { JobOutput, JobRecord } from '../domain/job.js';
import { isFinalJobStatus } from '../domain/job.js';
import type { JobWebhookEventType, Webhook, WebhookEventType } from '../domain/webhook.js';
import type { WebhookDelivery } from '../domain/webhookDelivery.js';
import { webhookPayload } from '../domain/webhookPayload.js';
import { MAX_RESENDS_PER_WINDOW, RESEND_WINDOW_MICROS, resendWaitSeconds } from '../domain/resendLimit.js';
import type { Clock } from '../ports/clock.js';
import type { DeliveryScheduler } from '../ports/deliveryScheduler.js';
import type { JobEvent } from '../ports/jobEvents.js';
import type { Store } from '../ports/store.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';

/** The events each job move announces, in the order a receiver gets them. */
const EVENTS_OF: Record<JobEvent['type'], JobWebhookEventType[]> = {
  started: ['job.start'],
  output: ['job.new_output'],
  completed: ['job.complete', 'job.complete.no_output'],
};

/**
 * Turns a job's moves into webhook deliveries: one per webhook of the job whose type matches,
 * stored before they are scheduled, so none is lost to a restart.
 */
export class WebhookService {
  private lastSequence = 0;

  constructor(
    private readonly store: Store,
    private readonly scheduler: DeliveryScheduler,
    private readonly clock: Clock,
  ) {}

  /** Nothing (not a promise) for a job without webhooks: most jobs, and their moves wait on nothing here. */
  onJobEvent(event: JobEvent): Promise<void> | undefined {
    return event.job.webhooks.length === 0 ? undefined : this.deliverEvent(event);
  }

  private async deliverEvent(event: JobEvent): Promise<void> {
    const outputs = event.type === 'output' ? [event.output] : event.type === 'completed' ? await this.store.jobs.listOutputs(event.job.id, 0) : [];
    for (const type of EVENTS_OF[event.type]) await this.deliver(event.job, type, outputs);
  }

  /**
   * Sends a job's events again, as they stand now: start, each output, completion. Limited to
   * MAX_RESENDS_PER_WINDOW a window per job, so a resend cannot be turned into a flood.
   */
  async resend(principal: Principal, jobId: string): Promise<WebhookDelivery[]> {
    const job = await this.ownJob(principal, jobId);
    const resentAt = this.clock.now();
    const wait = resendWaitSeconds(await this.store.deliveries.listByJob(job.id), resentAt);
    if (wait > 0) {
      throw new RateLimitedError(
        `A job's webhooks can be resent ${MAX_RESENDS_PER_WINDOW} times in ${RESEND_WINDOW_MICROS / 1_000_000} s; try again in ${wait} s.`,
        wait,
      );
    }
    const outputs = await this.store.jobs.listOutputs(job.id, 0);
    const created: WebhookDelivery[] = [];
    if (job.startedAt !== null || isFinalJobStatus(job.status)) created.push(...(await this.deliver(job, 'job.start', [], resentAt)));
    for (const output of outputs) created.push(...(await this.deliver(job, 'job.new_output', [output], resentAt)));
    if (isFinalJobStatus(job.status)) {
      for (const type of EVENTS_OF.completed) created.push(...(await this.deliver(job, type, outputs, resentAt)));
    }
    return created;
  }

  async list(principal: Principal, jobId: string): Promise<WebhookDelivery[]> {
    return this.store.deliveries.listByJob((await this.ownJob(principal, jobId)).id);
  }

  private async deliver(job: JobRecord, type: JobWebhookEventType, outputs: JobOutput[], resentAt?: number): Promise<WebhookDelivery[]> {
    const hooks = job.webhooks.filter((hook) => hook.type === type);
    if (hooks.length === 0) return [];
    // File URLs are signed by each attempt (WebhookDeliverer): a retry must not carry an expired one.
    const outputIndex = type === 'job.new_output' && outputs[0] ? outputs[0].index : undefined;
    return this.announce(job, type, hooks, webhookPayload(type, job, outputs), { outputIndex, resentAt });
  }

  /**
   * Stores and schedules one delivery of `payload` to each of `hooks`, filed under `job` (its
   * receivers see it in order with the job's own events, and its deliveries list it).
   */
  async announce(
    job: JobRecord,
    type: WebhookEventType,
    hooks: Webhook[],
    payload: string,
    { outputIndex, resentAt }: { outputIndex?: number; resentAt?: number } = {},
  ): Promise<WebhookDelivery[]> {
    const created: WebhookDelivery[] = [];
    for (const hook of hooks) {
      const now = this.clock.now();
      const delivery: WebhookDelivery = {
        id: newId(),
        jobId: job.id,
        organizationId: job.organizationId,
        url: hook.url,
        eventType: type,
        payload,
        ...(outputIndex === undefined ? {} : { outputIndex }),
        sequence: this.nextSequence(now),
        state: 'pending',
        attempts: [],
        nextAttemptAt: now,
        createdAt: now,
        ...(resentAt === undefined ? {} : { resentAt }),
      };
      await this.store.deliveries.create(delivery);
      // Awaited (a Lambda freezes once it answers); a run that cannot start leaves the stored
      // delivery pending, for the sweeper.
      await this.scheduler.schedule(delivery);
      created.push(delivery);
    }
    return created;
  }

  /** Increasing within the process and, being time-based, across restarts. */
  private nextSequence(now: number): number {
    this.lastSequence = Math.max(this.lastSequence + 1, now);
    return this.lastSequence;
  }

  private ownJob(principal: Principal, jobId: string): Promise<JobRecord> {
    return readOwnJob(this.store, principal, jobId);
  }
}
