import { setTimeout as wait } from 'node:timers/promises';
import type { WebhookDelivery } from '../../domain/webhookDelivery.js';
import type { Clock } from '../../ports/clock.js';
import type { DeliveryAttempts, DeliveryScheduler, RescheduleOutcome } from '../../ports/deliveryScheduler.js';
import type { Store } from '../../ports/store.js';

const channelKey = (delivery: WebhookDelivery) => `${delivery.jobId}\n${delivery.url}`;

/**
 * The local mode's webhook scheduler. Deliveries of one job to one URL form a channel, sent
 * one at a time in sequence order (a retry holds the channel, so order survives retries);
 * channels run independently, so a slow or dead receiver delays only itself. Timers live in
 * memory; the store holds the deliveries, and `resume` restarts pending ones after a restart.
 */
export class LocalDeliveryScheduler implements DeliveryScheduler {
  private readonly channels = new Map<string, WebhookDelivery[]>();
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly deliverer: DeliveryAttempts,
    private readonly onError: (error: unknown) => void,
  ) {}

  async schedule(delivery: WebhookDelivery): Promise<void> {
    if (this.stopped) return;
    const key = channelKey(delivery);
    const channel = this.channels.get(key);
    if (channel) {
      channel.push(delivery);
      channel.sort((a, b) => a.sequence - b.sequence);
      return;
    }
    this.channels.set(key, [delivery]);
    const run = this.drain(key)
      .catch(this.onError)
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  async resume(): Promise<void> {
    for (const delivery of await this.store.deliveries.listPending()) await this.schedule(delivery);
  }

  /** The sweeper's call (the local mode needs no sweeper: `resume` restarts every pending delivery at start). */
  async reschedule(delivery: WebhookDelivery): Promise<RescheduleOutcome> {
    if (this.channels.get(channelKey(delivery))?.some((queued) => queued.id === delivery.id)) return 'running';
    await this.schedule(delivery);
    return 'started';
  }

  /** Stops sending; pending deliveries stay pending in the store for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  private async drain(key: string): Promise<void> {
    const channel = this.channels.get(key) as WebhookDelivery[];
    let failures = 0;
    while (channel.length > 0 && !this.stopped) {
      const head = channel[0] as WebhookDelivery;
      await this.sleep((head.nextAttemptAt - this.clock.now()) / 1000);
      if (this.stopped) break;
      let after: WebhookDelivery | null;
      try {
        after = await this.deliverer.attempt(head.id);
        failures = 0;
      } catch (error) {
        // An attempt that could not be recorded (a full disk) is made again later: the delivery
        // stays pending in the store, and the channel must go on holding it and those behind it.
        this.onError(error);
        await this.sleep(Math.min(60_000, 1_000 * 2 ** failures++));
        continue;
      }
      if (after?.state === 'pending') channel[0] = after;
      else channel.shift();
    }
    this.channels.delete(key);
  }

  /** Waits, or stops waiting when the scheduler stops. */
  private async sleep(ms: number): Promise<void> {
    if (ms > 0) await wait(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }
}
