import { deliveryAhead } from '../domain/deliveryOrder.js';
import type { DeliveryAttempt, WebhookDelivery } from '../domain/webhookDelivery.js';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from '../domain/webhookDelivery.js';
import { signWebhook } from '../domain/webhookSignature.js';
import { payloadWithSignedFileUrls } from '../domain/webhookFileUrls.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { Telemetry } from '../ports/telemetry.js';
import { NO_TELEMETRY } from '../ports/telemetry.js';
import type { WebhookSecrets } from './webhookSecrets.js';
import type { DeliveryAttempts } from '../ports/deliveryScheduler.js';

/**
 * One attempt of one delivery: sign, POST, record. A 200 ends it; anything else is retried
 * after an exponentially growing wait, until MAX_DELIVERY_ATTEMPTS, then it is failed.
 * The same code runs from the local scheduler and from the AWS state machine's Lambda.
 */
export class WebhookDeliverer implements DeliveryAttempts {
  constructor(
    private readonly store: Store,
    private readonly secrets: WebhookSecrets,
    private readonly send: WebhookSender,
    private readonly clock: Clock,
    private readonly retryBaseMs: number,
    /** Signs File outputs' URLs at each attempt, so a receiver downloads them without a key, as a reader of the job does. */
    private readonly files?: Pick<Artifacts, 'signedOutputFileUrl'>,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {}

  /** The delivery as it stands (for a caller whose attempt found it no longer pending). */
  current(deliveryId: string): Promise<WebhookDelivery | null> {
    return this.store.deliveries.get(deliveryId);
  }

  /** The delivery after the attempt; null when it was no longer pending. */
  async attempt(deliveryId: string, timeoutMs?: number): Promise<WebhookDelivery | null> {
    const delivery = await this.store.deliveries.get(deliveryId);
    if (!delivery || delivery.state !== 'pending') return null;
    const secret = await this.secrets.secretOf(delivery.organizationId);
    const timestamp = Math.floor(this.clock.now() / 1_000_000);
    const files = this.files;
    const body = files ? await payloadWithSignedFileUrls(delivery, (slot, name) => files.signedOutputFileUrl(delivery.jobId, slot, name)) : delivery.payload;
    const result = await this.send({
      url: delivery.url,
      body,
      timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Sluice-Webhooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, delivery.id, timestamp, body),
      },
    });
    const delivered = result.status === 200;
    return this.record(
      delivery,
      { status: result.status, error: delivered ? null : result.error },
      delivered ? 'delivered' : result.permanent ? 'failed' : 'retry',
    );
  }

  /**
   * Records an attempt that failed on this side (the deliver Lambda crashed, or the delivery's
   * run ended early); it counts, and is retried, like a receiver's failure. Null when the
   * delivery was no longer pending.
   */
  async recordFailure(deliveryId: string, error: string): Promise<WebhookDelivery | null> {
    const delivery = await this.store.deliveries.get(deliveryId);
    if (!delivery || delivery.state !== 'pending') return null;
    return this.record(delivery, { status: null, error }, 'retry');
  }

  /**
   * The earlier delivery of the same job to the same URL this one must wait for (see
   * deliveryAhead); null when none, or when this one is no longer pending.
   */
  async deliveryAhead(deliveryId: string): Promise<WebhookDelivery | null> {
    const delivery = await this.store.deliveries.get(deliveryId);
    if (!delivery || delivery.state !== 'pending') return null;
    return deliveryAhead(delivery, await this.store.deliveries.listByJob(delivery.jobId));
  }

  private async record(
    delivery: WebhookDelivery,
    attempt: Omit<DeliveryAttempt, 'at'>,
    outcome: 'delivered' | 'failed' | 'retry',
  ): Promise<WebhookDelivery | null> {
    const at = this.clock.now();
    const attempts = delivery.attempts.length + 1;
    const state = outcome === 'retry' ? (attempts >= MAX_DELIVERY_ATTEMPTS ? 'failed' : 'pending') : outcome;
    const nextAttemptAt = state === 'pending' ? at + retryDelayMs(attempts, this.retryBaseMs) * 1000 : at;
    const recorded = await this.store.deliveries.recordAttempt(delivery.id, { at, ...attempt }, state, nextAttemptAt);
    if (recorded)
      this.telemetry.record({
        kind: 'webhook',
        delivery: recorded,
        outcome: state === 'pending' ? 'retry' : state,
        status: attempt.status,
        error: attempt.error,
      });
    return recorded;
  }
}
