/** One Server-Sent Event: its type (`message` when unnamed), data and id. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of a `text/event-stream` body, as the HTML standard reads them: lines end with
 * LF, CR or CRLF; `:` lines are comments (keep-alives); a blank line ends an event.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { event: '', data: [] as string[], id: undefined as string | undefined };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      // A CR at the very end may be half of a CRLF: wait for what follows.
      for (let end = lineEnd(buffer); end !== -1; end = lineEnd(buffer)) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith('\r\n', end) ? end + 2 : end + 1);
        if (line === '') {
          if (event.data.length > 0)
            yield { event: event.event || 'message', data: event.data.join('\n'), ...(event.id === undefined ? {} : { id: event.id }) };
          event = { event: '', data: [], id: event.id };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'event') event.event = text;
        else if (field === 'data') event.data.push(text);
        else if (field === 'id' && !text.includes('\0')) event.id = text;
      }
    }
  } finally {
    // A consumer that stops early closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}

function lineEnd(buffer: string): number {
  const end = buffer.search(/[\r\n]/);
  return end === buffer.length - 1 && buffer[end] === '\r' ? -1 : end;
}
