import { describe, expect, it } from 'vitest';
import { collectEvents, formatEvent } from '../../shared/http/serverSentEvents.js';
import type { StreamEvent, StreamWakeups } from '../../shared/services/eventStream.js';
import { follow } from '../../shared/services/eventStream.js';

/** A stream over a list that grows when the test says, woken like the local mode (or never, with pollMs). */
function growingStream(pollMs: number | undefined) {
  const events: StreamEvent[] = [];
  let sent = 0;
  const listeners = new Set<() => void>();
  const wakeups: StreamWakeups = {
    pollMs,
    subscribe: (wake) => {
      listeners.add(wake);
      return () => listeners.delete(wake);
    },
  };
  return {
    add(event: StreamEvent, { wake = true } = {}) {
      events.push(event);
      if (wake) for (const listener of listeners) listener();
    },
    listeners: () => listeners.size,
    stream: (signal: AbortSignal) =>
      follow(wakeups, signal, async () => {
        const fresh = events.slice(sent);
        sent = events.length;
        return { events: fresh, ended: fresh.some((event) => event.event === 'done') };
      }),
  };
}

const status = (id: string): StreamEvent => ({ id, event: 'status', data: { status: id } });

describe('an event stream answered whole (Lambda buffers its answer)', () => {
  it('answers what exists at once, without waiting for more', async () => {
    const source = growingStream(undefined);
    source.add(status('queued'));
    const started = Date.now();
    expect(await collectEvents(source.stream, 10_000)).toBe(formatEvent(status('queued')));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(source.listeners()).toBe(0);
  });

  it('with nothing new, waits for the next events and answers them', async () => {
    const source = growingStream(undefined);
    setTimeout(() => source.add(status('processing')), 100);
    expect(await collectEvents(source.stream, 10_000)).toBe(formatEvent(status('processing')));
  });

  it('finds new events by polling when nothing wakes it (the AWS mode)', async () => {
    // Added without a wake-up: a stream that only waits to be woken never sees it; one that polls does.
    const unwoken = growingStream(undefined);
    setTimeout(() => unwoken.add(status('late'), { wake: false }), 100);
    expect(await collectEvents(unwoken.stream, 400)).toBe('');
    const polling = growingStream(50);
    setTimeout(() => polling.add(status('late'), { wake: false }), 100);
    expect(await collectEvents(polling.stream, 10_000)).toBe(formatEvent(status('late')));
  });

  it('ends empty after its window when nothing happens, letting go of its listeners', async () => {
    const source = growingStream(undefined);
    expect(await collectEvents(source.stream, 100)).toBe('');
    expect(source.listeners()).toBe(0);
  });
});
