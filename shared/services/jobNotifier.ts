import { setTimeout as wait } from 'node:timers/promises';
import { isStorageRefusal } from '../domain/errors.js';
import type { JobEvent, JobEvents } from '../ports/jobEvents.js';

/**
 * Work that must follow a job's move durably (webhook deliveries, usage), awaited by the move;
 * one with nothing to do for an event returns nothing, and is not waited for.
 */
export type JobObserver = (event: JobEvent) => Promise<void> | void;

/** A failed observer (an AWS call given up on) is tried this many times in all before it is reported and left. */
const OBSERVER_ATTEMPTS = 6;
/** Its waits double from 1 s up to this: six tries span about a minute, longer than a throttle lasts. */
const MAX_OBSERVER_WAIT_MS = 30_000;

/**
 * Tells everyone of a job's move: the observers first, awaited in order, so the move's caller
 * continues only once their records exist; then, once the store has made all of it durable,
 * waiters (await, event streams) through JobEvents. A waiter never hears of a move that a crash
 * could still undo.
 */
export class JobNotifier {
  private readonly observers: JobObserver[] = [];
  /** What each observer makes again for an ended job whose maker may have died (`settle`). */
  private readonly settlers: JobObserver[] = [];

  constructor(
    private readonly events: JobEvents,
    private readonly onObserverError: (error: unknown, event: JobEvent) => void,
    /** Resolves once every write made so far is durable (Store.durable). */
    private readonly durable: () => Promise<void>,
  ) {}

  /**
   * `settle`: what the observer makes again, once however often it is called, for an ended job
   * (usage: its marker; webhooks: each event's delivery id). Without it, nothing is made again.
   */
  observe(observer: JobObserver, { settle }: { settle?: JobObserver } = {}): void {
    this.observers.push(observer);
    if (settle) this.settlers.push(settle);
  }

  /**
   * Makes again what follows an ended job whose maker may have died before all of it was made (a
   * worker task killed after writing a job's end): each observer's `settle`, which makes only
   * what is missing; waiters heard of the move from the store already.
   */
  async settle(event: JobEvent): Promise<void> {
    for (const settler of this.settlers) await this.observeDurably(settler, event, () => false);
    await this.durable();
  }

  async notify(event: JobEvent): Promise<void> {
    // Asked before the observers run, while the move's own transaction is still open: once that
    // commit has failed (a full disk), a later durable() finds nothing pending and would resolve,
    // and the move, rolled back, would be taken for stored.
    const moved = this.durable();
    let moveFailed = false;
    moved.catch(() => (moveFailed = true)); // awaited below, after the observers
    for (const observer of this.observers) await this.observeDurably(observer, event, () => moveFailed);
    await moved;
    await this.durable();
    this.events.publish(event);
  }

  private async observeDurably(observer: JobObserver, event: JobEvent, moveFailed: () => boolean): Promise<void> {
    for (let failures = 0; ; failures++) {
      try {
        // Most events concern few observers: one that returns nothing costs no turn of the loop.
        const pending = observer(event);
        if (pending) await pending;
        return;
      } catch (error) {
        // The job's move stands; a failed observer is reported, not turned into a job failure.
        this.onObserverError(error, event);
        // What a full disk refused (a webhook delivery, usage) must still come to exist: it is
        // made again once there may be room, the move's caller waiting meanwhile; so is what a
        // failing AWS call refused, for about a minute. Not when the move itself was rolled back:
        // its caller makes the move again, and with it this (usage recorded for the undone move
        // would bill its times, not the move's that stands).
        if (moveFailed() || (!isStorageRefusal(error) && failures + 1 >= OBSERVER_ATTEMPTS)) return;
        await wait(Math.min(MAX_OBSERVER_WAIT_MS, 1_000 * 2 ** failures));
      }
    }
  }
}
