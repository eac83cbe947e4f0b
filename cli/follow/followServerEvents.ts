import type { ClientSettings } from '../client.js';
import { apiErrorOf, send } from '../client.js';
import type { ServerEvent } from './serverEvents.js';
import { readServerEvents } from './serverEvents.js';

/** The service has no event streams (an older one): the caller follows by polling instead. */
export class EventStreamsUnavailable extends Error {
  override name = 'EventStreamsUnavailable';
}

const RECONNECT_MS = 250;

/**
 * Reads an event stream of the service until `onEvent` says it is done. A stream that ends
 * before that (on AWS each request answers for a bounded time) is opened again with
 * `Last-Event-ID`, so no event is seen twice.
 */
export async function followServerEvents(settings: ClientSettings, path: string, onEvent: (event: ServerEvent) => boolean | Promise<boolean>): Promise<void> {
  let lastId: string | undefined;
  for (;;) {
    const response = await send(settings, 'GET', path, {
      headers: { accept: 'text/event-stream', ...(lastId === undefined ? {} : { 'last-event-id': lastId }) },
    });
    if (response.status === 404 || response.status === 405) {
      const error = await apiErrorOf('GET', path, response);
      // The route itself is missing, not the job: the gateway's own "Not Found".
      if (/: Not Found$|"Not Found"|Method Not Allowed/.test(error.message)) throw new EventStreamsUnavailable(error.message);
      throw error;
    }
    if (!response.ok) throw await apiErrorOf('GET', path, response);
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
      await response.body?.cancel();
      throw new EventStreamsUnavailable(`GET ${path} is not an event stream`);
    }
    for await (const event of readServerEvents(response.body)) {
      if (event.id !== undefined) lastId = event.id;
      // Leaving the loop cancels the body: the connection closes.
      if (await onEvent(event)) return;
    }
    await new Promise((resume) => setTimeout(resume, RECONNECT_MS));
  }
}
