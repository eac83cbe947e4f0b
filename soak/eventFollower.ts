import type { PushRecord } from './history.js';
import type { Random } from './random.js';
import { sleep } from './http.js';

/**
 * Follows a job's event stream as a browser's EventSource does: reads events, and whenever the
 * stream ends without `done` (a service restarted, a Lambda's answer ended, or this client
 * dropped it on purpose), connects again with Last-Event-ID. Every output event is kept, so a
 * repeat or a gap across reconnections shows in the record.
 */
export async function followEvents(base: string, key: string, id: string, record: PushRecord, random: Random, deadline: () => number): Promise<void> {
  let lastEventId: string | undefined;
  record.streamedOutputs = [];
  while (Date.now() < deadline()) {
    const abort = new AbortController();
    // A stream that never sends `done` (a job that never ends) is given up at the deadline, which
    // is set only once the load stops.
    const giveUp = setInterval(() => Date.now() >= deadline() && abort.abort(), 1_000);
    const dropAfter = random.chance(0.3) ? random.int(1, 4) : Infinity;
    let read = 0;
    try {
      const headers: Record<string, string> = { 'x-api-key': key };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const response = await fetch(`${base}/v2/jobs/${id}/events`, { headers, signal: abort.signal });
      if (response.status !== 200) {
        await response.text();
        await sleep(500);
        continue;
      }
      for await (const event of events(response.body!)) {
        if (event.id) lastEventId = event.id;
        if (event.event === 'output') record.streamedOutputs.push(event.data?.data);
        if (event.event === 'done') {
          record.told.push({ via: 'events', status: event.data?.status, error: event.data?.error, at: Date.now(), outputs: outputData(event.data) });
          abort.abort();
          clearInterval(giveUp);
          return;
        }
        if (++read >= dropAfter) break;
      }
    } catch {
      // a reset connection: connect again below
    }
    abort.abort();
    clearInterval(giveUp);
    if (Date.now() >= deadline()) return;
    record.resumes += 1;
    await sleep(random.between(50, 500));
  }
}

export const outputData = (job: any): unknown[] => (Array.isArray(job?.outputs) ? job.outputs.map((output: any) => output?.data) : []);

async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id: string; event: string; data: any }> {
  let buffered = '';
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) if (!line.startsWith(':')) fields[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 2);
      if (fields.event !== undefined) yield { id: fields.id ?? '', event: fields.event, data: JSON.parse(fields.data ?? 'null') };
    }
  }
}
