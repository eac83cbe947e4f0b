/**
 * JobNotifier (shared/services/jobNotifier.ts): a move is told, and taken for stored, only once
 * its own commit has held; the soak found jobs left processing for good after a full disk, their
 * end rolled back yet reported stored.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared/domain/job.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';

describe('a job move told to waiters', () => {
  const event = { type: 'completed', job: { id: 'job-1' } as JobRecord } as JobEvent;

  it('fails, and is told to no waiter, when the commit that held the move failed while its observers ran', async () => {
    const published: JobEvent[] = [];
    // As the group commit: a wait asked while the move's transaction is open shares its commit,
    // which fails 1 ms later (SQLITE_FULL); one asked afterwards finds nothing pending.
    let open = true;
    const waiting: ((error: Error) => void)[] = [];
    setTimeout(() => {
      open = false;
      for (const reject of waiting) reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    }, 1);
    const durable = () => (open ? new Promise<void>((_, reject) => waiting.push(reject)) : Promise.resolve());
    const notifier = new JobNotifier(
      { publish: (told: JobEvent) => published.push(told), subscribe: () => () => undefined } as never,
      () => undefined,
      durable,
    );
    notifier.observe(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));
    await expect(notifier.notify(event)).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(published).toEqual([]);
  });

  it('tells waiters once the move and its observers’ writes are committed', async () => {
    const published: JobEvent[] = [];
    const notifier = new JobNotifier(
      { publish: (told: JobEvent) => published.push(told), subscribe: () => () => undefined } as never,
      () => undefined,
      () => Promise.resolve(),
    );
    await notifier.notify(event);
    expect(published).toEqual([event]);
  });

  it.each([
    ['could not store for lack of room (a webhook delivery)', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })],
    ['could not store past the AWS SDK’s retries (a throttle)', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })],
  ])('makes again what an observer %s, then tells waiters', async (_why, failure) => {
    const published: JobEvent[] = [];
    let runs = 0;
    const notifier = new JobNotifier(
      { publish: (told: JobEvent) => published.push(told), subscribe: () => () => undefined } as never,
      () => undefined,
      () => Promise.resolve(),
    );
    notifier.observe(async () => {
      if (++runs === 1) throw failure;
    });
    await notifier.notify(event);
    expect(runs).toBe(2);
    expect(published).toEqual([event]);
  });

  it('does not make an observer’s record again when the move itself was rolled back: the move is made again, and the record with it', async () => {
    let open = true;
    const waiting: ((error: Error) => void)[] = [];
    const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    setTimeout(() => {
      open = false;
      for (const reject of waiting) reject(full());
    }, 1);
    const durable = () => (open ? new Promise<void>((_, reject) => waiting.push(reject)) : Promise.resolve());
    const notifier = new JobNotifier({ publish: () => undefined, subscribe: () => () => undefined } as never, () => undefined, durable);
    let runs = 0;
    // The usage record shares the move's commit, and fails with it.
    notifier.observe(() => (++runs, durable()));
    await expect(notifier.notify(event)).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(runs).toBe(1);
  });
});
