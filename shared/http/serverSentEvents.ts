import type { EventStream, StreamEvent } from '../services/eventStream.js';
import { CAUGHT_UP } from '../services/eventStream.js';
import { stringifyJson } from './json.js';
import { ANSWER_BYTES, textAnswerBytes } from '../domain/answerBudget.js';

/** No cache or proxy may hold the stream back. */
export const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/** Sent every 15 s while a stream is quiet, so proxies and clients see the connection alive. */
export const KEEP_ALIVE = ': keep-alive\n\n';
export const KEEP_ALIVE_MS = 15_000;

/**
 * How long a buffered answer (Lambda's, behind API Gateway's 30 s limit) waits for something new
 * before it ends without `done`; the client reconnects with Last-Event-ID.
 */
export const BUFFERED_STREAM_WINDOW_MS = 25_000;

/** One event in the text/event-stream format (JSON data holds no raw newline, so one `data:` line). */
export function formatEvent(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${stringifyJson(event.data)}\n\n`;
}

/**
 * A stream's answer when the response cannot be streamed (Lambda buffers it): what exists at
 * once, or else the first new events within the window, then the end. An answer without `done`
 * tells the client to reconnect. `windowMs` is cut to the invocation's remaining time. It also
 * ends before an event that would take it past `budgetBytes` (answerBudget.ts, counted as Lambda
 * counts its answer): that event is left for the reconnection, which resumes after the last id
 * sent. One event always goes, so a stream always moves on.
 */
export async function collectEvents(stream: EventStream, windowMs: number, budgetBytes = ANSWER_BYTES): Promise<string> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), windowMs);
  let text = '';
  let bytes = 0;
  try {
    for await (const item of stream(stop.signal)) {
      if (item === CAUGHT_UP) {
        if (text !== '') break;
        continue;
      }
      const formatted = formatEvent(item);
      const size = textAnswerBytes(formatted);
      if (text !== '' && bytes + size > budgetBytes) break;
      text += formatted;
      bytes += size;
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return text;
}
