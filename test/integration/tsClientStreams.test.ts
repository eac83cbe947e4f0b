import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readServerSentEvents } from '../../clients/typescript/src/serverSentEvents.js';
import { SluiceClient, SluiceError } from '../../clients/typescript/src/index.js';

/** An event stream body cut into the given chunks, as a network would deliver it. */
const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('the TypeScript client’s event stream reader', () => {
  it('reads events cut anywhere, with CRLF or LF line ends, multi-line data and comments', async () => {
    const events = await collect(
      readServerSentEvents(streamOf(': keep-alive\n\nid: 1\r', '\nevent: output\r\ndata: {"a":', '1}\r\n\r\nid: 2\ndata: line one\ndata: line two\n\n')),
    );
    expect(events).toEqual([
      { event: 'output', data: '{"a":1}', id: '1' },
      { event: 'message', data: 'line one\nline two', id: '2' },
    ]);
  });

  it('drops an event the stream ended before its blank line', async () => {
    expect(await collect(readServerSentEvents(streamOf('event: log\ndata: {}\n\nevent: log\ndata: cut')))).toHaveLength(1);
  });
});

describe('the TypeScript client’s job events over a connection that ends early', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A service whose event stream sends two events per connection and ends (as API Gateway's bounded answers do), `done` last. */
  async function startBoundedStream(): Promise<{ url: string; requests: IncomingHttpHeaders[] }> {
    const events = [
      'id: 1\nevent: status\ndata: {"job_id":"j","status":"processing"}\n\n',
      'id: 2\nevent: output\ndata: {"type":"str","name":"","data":"a","description":"","schema":{},"run_id":"r","is_optional":false}\n\n',
      'id: 3\nevent: log\ndata: {"message":"hi","timestamp":"1700000000000000000"}\n\n',
      'id: 4\nevent: output\ndata: {"type":"str","name":"","data":"b","description":"","schema":{},"run_id":"r","is_optional":false}\n\n',
      'id: 5\nevent: done\ndata: {"id":"j","status":"finished"}\n\n',
    ];
    const requests: IncomingHttpHeaders[] = [];
    server = createServer((request, response) => {
      requests.push(request.headers);
      if (request.headers['x-api-key'] !== 'key')
        return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Unauthorized - valid API Key required."}');
      const from = Number(request.headers['last-event-id'] ?? 0);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(': keep-alive\n\n' + events.slice(from, from + 2).join(''));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, requests };
  }

  it('reconnects with Last-Event-ID until done: every event once, in order', async () => {
    const { url, requests } = await startBoundedStream();
    const events = await collect(new SluiceClient({ url, apiKey: 'key' }).events('j', { retryMs: 10 }));
    expect(events.map((event) => event.type)).toEqual(['status', 'output', 'log', 'output', 'done']);
    expect(requests.map((headers) => headers['last-event-id'])).toEqual([undefined, '2', '4']);
    expect(requests.every((headers) => headers.accept === 'text/event-stream')).toBe(true);
  });

  it('gives the outputs alone, as they come', async () => {
    const { url } = await startBoundedStream();
    const outputs = await collect(new SluiceClient({ url, apiKey: 'key' }).outputs('j', { retryMs: 10 }));
    expect(outputs.map((output) => output.data)).toEqual(['a', 'b']);
  });

  it('throws a refusal (a wrong key) at once instead of reconnecting', async () => {
    const { url, requests } = await startBoundedStream();
    const error = await collect(new SluiceClient({ url, apiKey: 'wrong' }).events('j', { retryMs: 10 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SluiceError);
    expect(error).toMatchObject({ status: 401, detail: 'Unauthorized - valid API Key required.' });
    expect(requests).toHaveLength(1);
  });
});
