import { describe, expect, it } from 'vitest';
import { SseParser } from '../../web/src/lib/sse.js';

describe("the dashboard's Server-Sent Events reader", () => {
  it('reads events split anywhere across chunks, with their names, data and ids', () => {
    const parser = new SseParser();
    const text = 'id: 1\nevent: status\ndata: {"status":"processing"}\n\n: keep-alive\n\nid: 2\nevent: output\ndata: {"data":"a"}\r\n\r\n';
    const events = [...text].flatMap((character) => parser.feed(character));
    expect(events).toEqual([
      { event: 'status', data: '{"status":"processing"}', id: '1' },
      { event: 'output', data: '{"data":"a"}', id: '2' },
    ]);
  });

  it('joins multi-line data, and keeps the last id for events that name none', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 7\ndata: a\ndata: b\n\ndata:c\n\n')).toEqual([
      { event: 'message', data: 'a\nb', id: '7' },
      { event: 'message', data: 'c', id: '7' },
    ]);
  });

  it('ignores comments only: a keep-alive makes no event', () => {
    expect(new SseParser().feed(': keep-alive\n\n: keep-alive\n\n')).toEqual([]);
  });
});
