/** One Server-Sent Event: its type (`message` when unnamed), its data lines joined, its id. */
export interface ServerEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * The events of a `text/event-stream` body, as the HTML standard parses them: `field: value`
 * lines, comments (`:` lines, the keep-alives) skipped, a blank line ending each event.
 */
export async function* readServerEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { type: '', data: [] as string[], id: undefined as string | undefined };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    let text = buffer + decoder.decode(chunk, { stream: true });
    // A chunk ending in '\r' may end halfway through a '\r\n': that line waits for the next chunk.
    const halfway = text.endsWith('\r');
    if (halfway) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    // The last piece may be half a line.
    buffer = (lines.pop() ?? '') + (halfway ? '\r' : '');
    for (const line of lines) {
      if (line === '') {
        if (event.data.length > 0) yield { event: event.type || 'message', data: event.data.join('\n'), id: event.id };
        event = { type: '', data: [], id: event.id };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.type = value;
      else if (field === 'data') event.data.push(value);
      else if (field === 'id') event.id = value;
    }
  }
}
