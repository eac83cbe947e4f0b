import { describe, expect, it } from 'vitest';
import { readServerEvents } from '../../../cli/follow/serverEvents.js';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>) {
  const events = [];
  for await (const event of readServerEvents(stream)) events.push(event);
  return events;
}

describe('reading Server-Sent Events', () => {
  it('reads named events with their ids, skipping keep-alive comments', async () => {
    const events = await collect(streamOf('id: 1\nevent: status\ndata: {"status":"queued"}\n\n: keep-alive\n\nid: 2\nevent: done\ndata: {}\n\n'));
    expect(events).toEqual([
      { event: 'status', data: '{"status":"queued"}', id: '1' },
      { event: 'done', data: '{}', id: '2' },
    ]);
  });

  it('puts together events split across chunks, and lines ended by CRLF', async () => {
    const events = await collect(streamOf('event: out', 'put\r\ndata: a\r', '\ndata: b\r\n\r\n'));
    expect(events).toEqual([{ event: 'output', data: 'a\nb', id: undefined }]);
  });

  it('drops an event the stream cut off before its blank line', async () => {
    expect(await collect(streamOf('event: log\ndata: {"message":"x"}\n'))).toEqual([]);
  });
});
