/** One Server-Sent Event: `id` is what a client sends back as Last-Event-ID to resume after it. */
export interface StreamEvent {
  id: string;
  event: string;
  /** Printed as JSON. */
  data: unknown;
}

/**
 * Yielded between events when the stream has sent everything that exists and is about to wait
 * for more: a buffered answer (Lambda's) ends there once it holds something.
 */
export const CAUGHT_UP = Symbol('caught up');

export type StreamItem = StreamEvent | typeof CAUGHT_UP;

/** A stream ready to run: the ownership checks are done; it stops when `signal` aborts. */
export type EventStream = (signal: AbortSignal) => AsyncIterable<StreamItem>;

/** What wakes a stream to read again: an in-process event (local), or only the clock (AWS). */
export interface StreamWakeups {
  /** Calls `wake` whenever something the stream follows may have changed; returns the unsubscriber. */
  subscribe(wake: () => void): () => void;
  /** Read again after this long even without a wake (the AWS mode, where nothing wakes a Lambda); undefined: never. */
  pollMs: number | undefined;
}

export interface NewEvents {
  events: StreamEvent[];
  /** The stream is over (a job's `done` was sent). */
  ended: boolean;
  /** A page was full: read again before sleeping. */
  more?: boolean;
}

/**
 * The loop both streams share: read what is new, say when caught up, sleep until woken (or the
 * poll interval, or the client leaves). Subscribed before the first read, so a change between a
 * read and the sleep still wakes it; unsubscribed however the stream ends.
 */
export async function* follow(wakeups: StreamWakeups, signal: AbortSignal, readNew: () => Promise<NewEvents>): AsyncGenerator<StreamItem> {
  let woken = false;
  let wakeNow: (() => void) | undefined;
  const wake = () => {
    woken = true;
    wakeNow?.();
  };
  const unsubscribe = wakeups.subscribe(wake);
  signal.addEventListener('abort', wake);
  try {
    while (!signal.aborted) {
      woken = false;
      const { events, ended, more } = await readNew();
      yield* events;
      if (ended) return;
      // A long past is read page by page, giving the event loop back between pages.
      if (more) {
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      yield CAUGHT_UP;
      if (!woken && !signal.aborted) await sleep(wakeups.pollMs, (resolve) => (wakeNow = resolve));
      wakeNow = undefined;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', wake);
  }
}

function sleep(ms: number | undefined, onWake: (resolve: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
    onWake(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
