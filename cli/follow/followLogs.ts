import type { ClientSettings } from '../client.js';
import { EventStreamsUnavailable, followServerEvents } from './followServerEvents.js';
import type { LogLine } from './logPages.js';
import { readLogsFrom } from './logPages.js';

const POLL_MS = 1000;

/**
 * Follows the log lines of `query` (`version_id=...`) until the user stops it: the log event
 * stream (GET /v2/logs/events), or, from a service without one, by reading new pages each second.
 */
export async function followLogs(settings: ClientSettings, query: string, onLine: (line: LogLine) => void): Promise<never> {
  try {
    await followServerEvents(settings, `/v2/logs/events?${query}`, (event) => {
      if (event.event === 'log') {
        const { message, timestamp, ...labels } = JSON.parse(event.data) as LogLine & LogLine['labels'];
        onLine({ message, timestamp, labels: labels as LogLine['labels'] });
      }
      return false;
    });
  } catch (error) {
    if (!(error instanceof EventStreamsUnavailable)) throw error;
  }
  let from = '0';
  for (;;) {
    from = await readLogsFrom(settings, query, from, onLine);
    await new Promise((resume) => setTimeout(resume, POLL_MS));
  }
}
