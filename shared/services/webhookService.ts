import { RateLimitedError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { JobOutput, JobRecord } from '../domain/job.js';
import { isFinalJobStatus } from '../domain/job.js';
import type { JobWebhookEventType, Webhook, WebhookEventType } from '../domain/webhook.js';
import { eventDeliveryId, type WebhookDelivery } from '../domain/webhookDelivery.js';
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
 * stored before they are scheduled, so none is lost to a restart. A job event's delivery has an
 * id made from the event (eventDeliveryId): made again after a crash, it is stored once.
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

  /**
   * An ended job's events made again where they are missing (JobNotifier.settle: its worker may
   * have died after the job's end and before its deliveries): its last start, each output, its end.
   */
  settle(event: JobEvent): Promise<void> | undefined {
    return event.job.webhooks.length === 0 || !isFinalJobStatus(event.job.status) ? undefined : this.settleEnded(event.job);
  }

  private async deliverEvent(event: JobEvent): Promise<void> {
    const outputs = event.type === 'output' ? [event.output] : event.type === 'completed' ? await this.store.jobs.listOutputs(event.job.id, 0) : [];
    await this.storeAndSchedule(EVENTS_OF[event.type].flatMap((type) => this.eventDeliveries(event.job, type, outputs)));
  }

  private async settleEnded(job: JobRecord): Promise<void> {
    const outputs = await this.store.jobs.listOutputs(job.id, 0);
    // As its start told it: running, nothing out yet.
    const started = job.startedAt === null ? [] : this.eventDeliveries({ ...job, status: 'processing', error: '' }, 'job.start', []);
    const each = outputs.flatMap((output) => this.eventDeliveries(job, 'job.new_output', [output]));
    const ended = EVENTS_OF.completed.flatMap((type) => this.eventDeliveries(job, type, outputs));
    await this.storeAndSchedule([...started, ...each, ...ended]);
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
    const made: WebhookDelivery[] = [];
    // A resend is a new event: new ids, which a receiver must not drop as repeats.
    const resent = (type: JobWebhookEventType, some: JobOutput[]) =>
      made.push(...this.eventDeliveries(job, type, some).map((delivery) => ({ ...delivery, id: newId(), resentAt })));
    if (job.startedAt !== null || isFinalJobStatus(job.status)) resent('job.start', []);
    for (const output of outputs) resent('job.new_output', [output]);
    if (isFinalJobStatus(job.status)) for (const type of EVENTS_OF.completed) resent(type, outputs);
    return this.storeAndSchedule(made);
  }

  async list(principal: Principal, jobId: string): Promise<WebhookDelivery[]> {
    return this.store.deliveries.listByJob((await this.ownJob(principal, jobId)).id);
  }

  /** One delivery of the event to each of the job's webhooks of its type, each id made from the event. */
  private eventDeliveries(job: JobRecord, type: JobWebhookEventType, outputs: JobOutput[]): WebhookDelivery[] {
    const hooks = job.webhooks.filter((hook) => hook.type === type);
    if (hooks.length === 0) return [];
    // File URLs are signed by each attempt (WebhookDeliverer): a retry must not carry an expired one.
    const output = type === 'job.new_output' ? outputs[0] : undefined;
    const payload = webhookPayload(type, job, outputs);
    // An output is its run's (a retried job keeps its earlier runs' outputs); the rest, the job's latest run.
    const event = output ? [output.runId, type, output.index] : [job.runId ?? '', type, ''];
    return hooks.map((hook, position) => this.delivery(job, type, hook, payload, eventDeliveryId(job.id, ...event, position, hook.url), output?.index));
  }

  /**
   * Stores and schedules one delivery of `payload` to each of `hooks`, filed under `job` (its
   * receivers see it in order with the job's own events, and its deliveries list it). `id` names
   * the event: a second announce of it stores nothing.
   */
  async announce(job: JobRecord, type: WebhookEventType, hooks: Webhook[], payload: string, id: string): Promise<WebhookDelivery[]> {
    return this.storeAndSchedule(hooks.map((hook, position) => this.delivery(job, type, hook, payload, eventDeliveryId(id, position, hook.url))));
  }

  private delivery(job: JobRecord, type: WebhookEventType, hook: Webhook, payload: string, id: string, outputIndex?: number): WebhookDelivery {
    const now = this.clock.now();
    return {
      id,
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
    };
  }

  /**
   * Stores the deliveries not stored yet, in the open commit (with the move they follow, which
   * JobNotifier waits for), and schedules them once durable: the deliverer never sends one a
   * crash could still undo. Answers those stored now.
   */
  private async storeAndSchedule(deliveries: WebhookDelivery[]): Promise<WebhookDelivery[]> {
    const created: WebhookDelivery[] = [];
    for (const delivery of deliveries) if (await this.store.deliveries.create(delivery, { deferDurability: true })) created.push(delivery);
    if (created.length === 0) return created;
    await this.store.durable();
    // Awaited (a Lambda freezes once it answers); a run that cannot start leaves the stored
    // delivery pending, for the sweeper.
    for (const delivery of created) await this.scheduler.schedule(delivery);
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
