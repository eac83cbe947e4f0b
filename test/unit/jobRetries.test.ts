import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import type { JobRecord } from '../../shared/domain/job.js';
import { MAX_JOB_ATTEMPTS } from '../../shared/domain/job.js';
import type { QueueEntry } from '../../shared/domain/scheduling.js';
import { retryDelaySeconds } from '../../shared/domain/scheduling.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import type { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { LifecycleHarness } from '../support/lifecycleHarness.js';
import { lifecycleOver } from '../support/lifecycleHarness.js';

const NOW = 1_800_000_000_000_000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };

/** The memory queue, noting the delay each entry was given. */
class NotingQueue extends MemoryJobQueue {
  readonly delays: (number | undefined)[] = [];
  override async enqueue(entry: QueueEntry, options?: { delaySeconds?: number }): Promise<void> {
    this.delays.push(options?.delaySeconds);
    await super.enqueue(entry, options);
  }
}

let store: Store;
let queue: NotingQueue;
let lifecycle: JobLifecycle;
let pushed: LifecycleHarness['pushed'];

beforeEach(() => {
  queue = new NotingQueue();
  ({ store, lifecycle, pushed } = lifecycleOver(createSqliteStore(':memory:'), clock, queue));
});
afterEach(async () => {
  await store.close();
});

async function startAndRaise(jobId: string, error: string, retryable = true): Promise<JobRecord> {
  const running = await lifecycle.start(jobId);
  if (!running) throw new Error('the job did not start');
  await lifecycle.fail(running, error, { retryable });
  return (await store.jobs.get(jobId)) as JobRecord;
}

describe('retries', () => {
  it('puts a job that raised back in the queue while it has retries left: a restart entry numbering the retry, a new run id, the backoff', async () => {
    const job = await pushed({ maxRetries: 2 });
    const first = await startAndRaise(job.id, 'ValueError: one');
    expect(first).toMatchObject({ status: 'queued', startedAt: null, error: '' });
    expect(first.restarts).toEqual([{ type: 'error', reason: 'ValueError: one', run_id: 'run-0', timestamp: NOW, retry: 1 }]);
    expect(first.runId).not.toBe('run-0');

    const second = await startAndRaise(job.id, 'ValueError: two');
    expect(second.status).toBe('queued');
    expect(second.restarts[1]).toEqual({ type: 'error', reason: 'ValueError: two', run_id: first.runId, timestamp: NOW, retry: 2 });
    expect(queue.delays).toEqual([retryDelaySeconds(1), retryDelaySeconds(2)]);
    expect(queue.delays).toEqual([1, 2]);
  });

  it("ends the job in error with its last attempt's error once its retries are spent", async () => {
    const job = await pushed({ maxRetries: 1 });
    await startAndRaise(job.id, 'ValueError: first');
    const last = await startAndRaise(job.id, 'ValueError: second');
    expect(last).toMatchObject({ status: 'error', error: 'ValueError: second' });
    expect(last.restarts.map((restart) => restart.retry)).toEqual([1]);
  });

  it('never retries an error the caller says may not be (FatalException, a time limit), retries left or not', async () => {
    const job = await pushed({ maxRetries: 3 });
    const ended = await startAndRaise(job.id, 'FatalException: broken', false);
    expect(ended).toMatchObject({ status: 'error', error: 'FatalException: broken', restarts: [] });
    expect(queue.delays).toEqual([]);
  });

  it('retries nothing for a job pushed without retries', async () => {
    const job = await pushed({});
    expect(await startAndRaise(job.id, 'ValueError: once')).toMatchObject({ status: 'error', error: 'ValueError: once', restarts: [] });
  });

  it('does not spend the crash budget on retries: a retried job still gets MAX_JOB_ATTEMPTS runs its replica may die under', async () => {
    const job = await pushed({ maxRetries: 2 });
    await startAndRaise(job.id, 'ValueError: one');
    await startAndRaise(job.id, 'ValueError: two');
    for (let crash = 1; crash < MAX_JOB_ATTEMPTS; crash++) {
      const running = (await lifecycle.start(job.id)) as JobRecord;
      expect((await lifecycle.interrupt(running, 'OOM', 'The replica was killed by SIGKILL.'))?.status).toBe('queued');
    }
    const running = (await lifecycle.start(job.id)) as JobRecord;
    const ended = await lifecycle.interrupt(running, 'OOM', 'The replica was killed by SIGKILL.');
    expect(ended).toMatchObject({ status: 'error', attempts: 2 + MAX_JOB_ATTEMPTS });
    expect(ended?.error).toMatch(/failed each time; last: The replica was killed by SIGKILL/);
  });

  it('does not spend retries on crash restarts', async () => {
    const job = await pushed({ maxRetries: 1 });
    const running = (await lifecycle.start(job.id)) as JobRecord;
    await lifecycle.interrupt(running, 'preemption', 'The service stopped while the job ran.');
    const retried = await startAndRaise(job.id, 'ValueError: after a crash');
    expect(retried.status).toBe('queued');
    expect(retried.restarts.map(({ type, retry }) => ({ type, retry }))).toEqual([{ type: 'preemption' }, { type: 'error', retry: 1 }]);
  });

  it('leaves a job cancelled while it ran cancelled, retries left or not', async () => {
    const job = await pushed({ maxRetries: 3 });
    const running = (await lifecycle.start(job.id)) as JobRecord;
    await store.jobs.transition(job.id, ['processing'], { status: 'cancelled', completedAt: NOW });
    expect(await lifecycle.fail(running, 'ValueError: too late', { retryable: true })).toBeNull();
    expect(await store.jobs.get(job.id)).toMatchObject({ status: 'cancelled', restarts: [] });
    expect(queue.delays).toEqual([]);
  });
});
