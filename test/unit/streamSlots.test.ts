import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../shared/domain/errors.js';
import type { EventStream, StreamItem } from '../../shared/services/eventStream.js';
import { StreamSlots } from '../../shared/services/streamSlots.js';

/** A stream that yields one event, then waits until its client leaves. */
const idle: EventStream = async function* (signal) {
  yield { id: '1', event: 'status', data: {} };
  await new Promise((resolve) => signal.addEventListener('abort', resolve));
};

async function open(slots: StreamSlots, organizationId: string) {
  const controller = new AbortController();
  const iterator = slots.hold(organizationId, idle)(controller.signal)[Symbol.asyncIterator]();
  await iterator.next();
  const rest = iterator.next();
  return {
    async close() {
      controller.abort();
      await rest;
    },
  };
}

describe('open event streams per organization', () => {
  it('answers 429 with Retry-After past the most one organization may hold, others unaffected', async () => {
    const slots = new StreamSlots(3);
    const held = [await open(slots, 'a'), await open(slots, 'a'), await open(slots, 'a')];
    expect(() => slots.hold('a', idle)).toThrow(RateLimitedError);
    try {
      slots.hold('a', idle);
    } catch (error) {
      expect((error as RateLimitedError).retryAfterSeconds).toBeGreaterThan(0);
      expect((error as Error).message).toContain('3 event streams open');
    }
    const other = await open(slots, 'b');
    expect(slots.count('b')).toBe(1);
    await other.close();
    await Promise.all(held.map((stream) => stream.close()));
  });

  it('gives a slot back when its client leaves or the stream ends', async () => {
    const slots = new StreamSlots(1);
    const first = await open(slots, 'a');
    expect(slots.count('a')).toBe(1);
    await first.close();
    expect(slots.count('a')).toBe(0);
    const ends: EventStream = async function* () {
      yield { id: '1', event: 'done', data: {} } satisfies StreamItem;
    };
    for await (const item of slots.hold('a', ends)(new AbortController().signal)) expect(item).toBeTruthy();
    expect(slots.count('a')).toBe(0);
    expect(() => slots.hold('a', idle)).not.toThrow();
  });
});
