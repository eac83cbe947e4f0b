/**
 * A push that stored its job and then failed to send its queue message. The 2-hour aws:local
 * soak left three jobs queued for good: their pushes met a window of failing SQS calls, their
 * clients were never answered, and nothing ever sent their messages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import { IdempotentPushes } from '../../shared/services/idempotentPush.js';
import { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';
import { JobPushes } from '../../shared/services/jobPushes.js';
import { VersionService } from '../../shared/services/versionService.js';
import { aBareFunction, anOrganization, aVersion } from '../support/fixtures.js';

const NOW = 1_800_000_000_000_000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };
const principal = { organizationId: 'org-1', organizationName: 'acme' };
const body = { id: 'version-1', inputs: {} };
const sqsFailure = () => Object.assign(new Error('We encountered an internal error. Please try again.'), { name: 'InternalError', $fault: 'server' });

let store: Store;
/** The queue, whose next `refusals` sends fail as SQS's do past the SDK's retries. */
let queue: MemoryJobQueue;
let refusals: number;
let pushes: IdempotentPushes;
beforeEach(async () => {
  store = createSqliteStore(':memory:');
  queue = new MemoryJobQueue();
  refusals = 0;
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = async (...args) => {
    if (refusals > 0 && refusals--) throw sqsFailure();
    return enqueue(...args);
  };
  const access = new FunctionAccess(store);
  const lifecycle = new JobLifecycle(
    store,
    queue,
    new JobNotifier(
      createMemoryJobEvents(),
      () => undefined,
      () => store.durable(),
    ),
    clock,
  );
  const jobs = new JobPushes({
    store,
    access,
    versions: new VersionService(store, access),
    queue,
    lifecycle,
    webhookPolicy: { assertAllowed: async () => undefined } as never,
    clock,
    maxQueuedPerVersion: 100,
    budgets: { assertCanPush: async () => undefined },
  });
  pushes = new IdempotentPushes(store, jobs, clock);
  await store.organizations.createIfAbsent(anOrganization({ id: 'org-1', name: 'acme' }));
  await store.functions.create(aBareFunction({ id: 'function-1' }));
  await store.versions.create(
    aVersion({ id: 'version-1', functionId: 'function-1', buildStatus: 'ready', readyAt: NOW, inputs: [], environmentVariables: [] }),
  );
});
afterEach(async () => store.close());

const queuedIds = async () => {
  const ids: string[] = [];
  for (let taken = await queue.take('version-1'); taken; taken = await queue.take('version-1')) ids.push(taken.jobId);
  return ids;
};

describe('a push whose job was stored and whose queue message was refused', () => {
  it('fails, and its retry under the same Idempotency-Key answers that job and sends its message', async () => {
    refusals = 1;
    await expect(pushes.push(principal, body, 'api', 'key-1')).rejects.toThrow('internal error');

    const retried = await pushes.push(principal, body, 'api', 'key-1');

    const jobs = await store.jobs.listQueuedByVersion('version-1');
    expect(jobs.map((job) => job.id)).toEqual([retried.job.id]);
    expect(await queuedIds()).toEqual([retried.job.id]);
  });

  it('without a key, ends its job in error at once, since no retry will answer it', async () => {
    refusals = 1;
    await expect(pushes.push(principal, body, 'api', undefined)).rejects.toThrow('internal error');

    const [job, ...more] = await store.jobs.listByOrganization({ organizationId: 'org-1' }, { limit: 10, offset: 0 });
    expect(more).toEqual([]);
    expect(job).toMatchObject({ status: 'error', error: expect.stringContaining('The job could not be queued') });
    expect(await queuedIds()).toEqual([]);
  });

  it('sends nothing again for a retried push whose job has started', async () => {
    const first = await pushes.push(principal, body, 'api', 'key-2');
    expect(await queuedIds()).toEqual([first.job.id]);
    await store.jobs.transition(first.job.id, ['queued'], { status: 'processing', startedAt: NOW, countAttempt: true });

    const retried = await pushes.push(principal, body, 'api', 'key-2');

    expect(retried.job.id).toBe(first.job.id);
    expect(await queuedIds()).toEqual([]);
  });
});
