import { BinaryHeap } from '../../domain/binaryHeap.js';

interface Delayed<T> {
  item: T;
  dueAt: number;
  order: number;
}

/** setTimeout's longest wait; a later item is looked at again after it. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Items that become due after a delay, handed to `onDue` in the order they fall due (then in
 * the order they were added). One timer, for the earliest: a thousand retries backing off cost
 * one timer, not a thousand.
 */
export class DelayQueue<T> {
  private readonly waiting = new BinaryHeap<Delayed<T>>((a, b) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.order < b.order));
  private added = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(private readonly onDue: (item: T) => void) {}

  add(item: T, delayMs: number): void {
    this.waiting.push({ item, dueAt: Date.now() + delayMs, order: this.added++ });
    this.arm();
  }

  private arm(): void {
    const next = this.waiting.peek();
    if (!next || next.dueAt >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = next.dueAt;
    this.timer = setTimeout(() => this.release(), Math.min(LONGEST_TIMER_MS, Math.max(0, next.dueAt - Date.now())));
    // A backoff in progress does not keep the process alive.
    this.timer.unref();
  }

  private release(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    for (let next = this.waiting.peek(); next && next.dueAt <= now; next = this.waiting.peek()) {
      this.waiting.pop();
      this.onDue(next.item);
    }
    this.arm();
  }
}
