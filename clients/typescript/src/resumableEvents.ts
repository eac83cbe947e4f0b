import { SluiceError } from './errors.js';
import type { ServerSentEvent } from './serverSentEvents.js';
import { readServerSentEvents } from './serverSentEvents.js';
import type { Query, Transport } from './transport.js';

export interface StreamOptions {
  signal?: AbortSignal;
  /** Resume after this event (the `id` of the last one seen). */
  lastEventId?: string;
  /** Pause before reconnecting after a failure (default 1 s). */
  retryMs?: number;
  /** Failures in a row before giving up (default 5). */
  maxFailures?: number;
}

/** Statuses that say "try again later", not "this is wrong". */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

/**
 * An event stream that survives its connection: when it ends without `endEvent` (on AWS every
 * answer is bounded; a proxy may cut a long one), it reconnects with `Last-Event-ID`, so no
 * event is seen twice or lost. Ends after `endEvent`, or when `signal` aborts.
 */
export async function* resumableEvents(
  transport: Transport,
  path: string,
  query: Query,
  endEvent: string | null,
  options: StreamOptions = {},
): AsyncGenerator<ServerSentEvent> {
  let lastEventId = options.lastEventId;
  let failures = 0;
  for (;;) {
    let received = 0;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const response = await transport.send('GET', path, { query, headers, signal: options.signal });
      if (!response.body) throw new TypeError('The event stream came without a body.');
      for await (const event of readServerSentEvents(response.body)) {
        failures = 0;
        received++;
        if (event.id !== undefined) lastEventId = event.id;
        yield event;
        if (event.event === endEvent) return;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      const retryable = !(error instanceof SluiceError) || RETRYABLE.has(error.status);
      if (!retryable || ++failures >= (options.maxFailures ?? 5)) throw error;
      await pause(options.retryMs ?? 1000, options.signal);
      continue;
    }
    if (options.signal?.aborted) return;
    // An answer with nothing in it is not retried at once: a stream that keeps ending empty would spin.
    if (received === 0) await pause(options.retryMs ?? 1000, options.signal);
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
