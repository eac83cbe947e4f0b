import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import type { WeightOf } from '../../shared/adapters/local/fairQueue.js';

const VERSION = 'v1';

/** A queue, and a push of jobs named `<org><n>` (a1, a2, ...) for VERSION. */
function queueOf(weightOf?: WeightOf) {
  const queue = new MemoryJobQueue({ weightOf });
  const pushed = new Map<string, number>();
  const push = (organizationId: string, count = 1, priority?: number) => {
    for (let i = 0; i < count; i++) {
      const n = (pushed.get(organizationId) ?? 0) + 1;
      pushed.set(organizationId, n);
      void queue.enqueue({ id: `${organizationId}${n}`, versionId: VERSION, organizationId, priority });
    }
  };
  const take = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await queue.take(VERSION))?.jobId ?? 'none');
    return ids;
  };
  return { queue, push, take };
}

describe('the local queue: fair share, then priority, then push order', () => {
  it('takes a version’s jobs in turn across organizations, however many one of them queued first', async () => {
    const { push, take } = queueOf();
    push('a', 6);
    push('b', 2);
    expect(await take(9)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5', 'a6', 'none']);
  });

  it('gives an organization that starts pushing behind another’s backlog the very next turn', async () => {
    const { push, take } = queueOf();
    push('a', 1000);
    expect(await take(3)).toEqual(['a1', 'a2', 'a3']);
    push('b');
    expect(await take(2)).toEqual(['b1', 'a4']);
  });

  it('gives nothing extra to an organization that empties its queue and pushes again', async () => {
    const { push, take } = queueOf();
    push('a', 10);
    expect(await take(2)).toEqual(['a1', 'a2']);
    push('b');
    expect(await take(1)).toEqual(['b1']);
    push('b');
    // b had the last turn: a goes before b's second job.
    expect(await take(3)).toEqual(['a3', 'b2', 'a4']);
  });

  it('shares by weight: an organization of weight 2 gets two turns to another’s one', async () => {
    const { push, take } = queueOf((organizationId) => (organizationId === 'a' ? 2 : 1));
    push('a', 100);
    push('b', 100);
    const turns = await take(30);
    expect(turns.filter((id) => id.startsWith('a'))).toHaveLength(20);
    expect(turns.slice(0, 3).sort()).toEqual(['a1', 'a2', 'b1']);
  });

  it('counts a weight that is not a positive number as 1', async () => {
    const { push, take } = queueOf((organizationId) => (organizationId === 'a' ? 0 : Number.NaN));
    push('a', 2);
    push('b', 2);
    expect(await take(4)).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('starts an organization’s higher-priority jobs first, in push order within a priority', async () => {
    const { push, take } = queueOf();
    push('a', 1, 0);
    push('a', 1, 5);
    push('a', 1, -3);
    push('a', 1, 5);
    push('a', 1, 0);
    expect(await take(5)).toEqual(['a2', 'a4', 'a1', 'a5', 'a3']);
  });

  it('does not let a high priority take another organization’s turn', async () => {
    const { push, take } = queueOf();
    push('a', 3, 10);
    push('b', 3, -10);
    expect(await take(6)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('keeps versions apart: one version’s backlog never delays another’s job', async () => {
    const queue = new MemoryJobQueue();
    for (let i = 0; i < 5; i++) await queue.enqueue({ id: `x${i}`, versionId: 'busy', organizationId: 'a' });
    await queue.enqueue({ id: 'y', versionId: 'quiet', organizationId: 'a' });
    expect(await queue.take('quiet')).toEqual({ jobId: 'y', redelivered: false });
    expect(queue.depth('busy')).toBe(5);
    expect(queue.depth('quiet')).toBe(0);
  });
});

describe('the local queue: delayed jobs (a retry’s backoff)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a delayed job back until its delay has passed, counting it as waiting meanwhile', async () => {
    vi.useFakeTimers();
    const { queue } = queueOf();
    const woken: string[] = [];
    queue.onEnqueue((versionId) => woken.push(versionId));
    await queue.enqueue({ id: 'retry', versionId: VERSION, organizationId: 'a' }, { delaySeconds: 2 });
    expect(queue.depth(VERSION)).toBe(1);
    expect(await queue.take(VERSION)).toBeNull();
    expect(woken).toEqual([]);
    vi.advanceTimersByTime(1999);
    expect(await queue.take(VERSION)).toBeNull();
    vi.advanceTimersByTime(1);
    expect(woken).toEqual([VERSION]);
    expect(await queue.take(VERSION)).toEqual({ jobId: 'retry', redelivered: false });
    expect(queue.depth(VERSION)).toBe(0);
  });

  it('lets jobs pushed after a delayed one start while it waits, and releases delayed jobs in the order they fall due', async () => {
    vi.useFakeTimers();
    const { queue, push, take } = queueOf();
    await queue.enqueue({ id: 'late', versionId: VERSION, organizationId: 'a' }, { delaySeconds: 5 });
    await queue.enqueue({ id: 'soon', versionId: VERSION, organizationId: 'a' }, { delaySeconds: 1 });
    push('a');
    expect(queue.depth(VERSION)).toBe(3);
    expect(await take(2)).toEqual(['a1', 'none']);
    vi.advanceTimersByTime(1000);
    expect(await take(2)).toEqual(['soon', 'none']);
    vi.advanceTimersByTime(4000);
    expect(await take(2)).toEqual(['late', 'none']);
  });
});
