/** One Server-Sent Event as a client reads it off the wire; `data` parsed as JSON. */
export interface ReadEvent {
  id: string;
  event: string;
  data: any;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The next event; null once the stream has ended. Comments (keep-alives) are counted, not returned. */
  next(): Promise<ReadEvent | null>;
  /** Every event until the stream ends (or until one named `until` arrives). */
  rest(until?: string): Promise<ReadEvent[]>;
  comments: string[];
  /** The body of an answer that is not a stream (an error's JSON). */
  json(): Promise<any>;
  close(): void;
}

/** Opens an event stream with fetch and reads the raw text/event-stream bytes, as a browser or the CLI would. */
export async function openEventStream(url: string, key: string | undefined, lastEventId?: string): Promise<OpenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (key !== undefined) headers['x-api-key'] = key;
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal: abort.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const comments: string[] = [];
  const next = async (): Promise<ReadEvent | null> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line);
          else fields[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 2);
        }
        if (fields.event !== undefined) return { id: fields.id ?? '', event: fields.event, data: JSON.parse(fields.data ?? 'null') };
        continue;
      }
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return null;
      buffered += value;
    }
  };
  return {
    status: response.status,
    headers: response.headers,
    next,
    comments,
    async rest(until) {
      const events: ReadEvent[] = [];
      for (let event = await next(); event; event = await next()) {
        events.push(event);
        if (event.event === until) break;
      }
      return events;
    },
    async json() {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) buffered += chunk.value;
      return JSON.parse(buffered);
    },
    close: () => abort.abort(),
  };
}
