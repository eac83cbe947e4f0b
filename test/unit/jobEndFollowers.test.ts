/**
 * What follows a job's move (its usage, its webhook deliveries) is stored with the move or made
 * again after it. The 2-hour soaks lost webhook events both ways: locally, a kill between the
 * commit of a job's end and the next commit, which held its deliveries; on aws:local, a worker
 * task killed, or a DynamoDB call given up on, after the end was written and before its
 * deliveries were.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../../shared/adapters/local/memoryJobQueue.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { DEFAULT_PRICES } from '../../shared/domain/pricing.js';
import type { Webhook } from '../../shared/domain/webhook.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import { JobCancels } from '../../shared/services/jobCancels.js';
import { JobLifecycle } from '../../shared/services/jobLifecycle.js';
import { JobNotifier } from '../../shared/services/jobNotifier.js';
import { JobViews } from '../../shared/services/jobViews.js';
import { UsageService } from '../../shared/services/usageService.js';
import { VersionService } from '../../shared/services/versionService.js';
import { WebhookService } from '../../shared/services/webhookService.js';
import { aBareFunction, aJob, aVersion } from '../support/fixtures.js';

const NOW = 1_800_000_000_000_000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };
const HOOKS: Webhook[] = ['job.start', 'job.new_output', 'job.complete'].map((type) => ({ type, url: `https://hooks.example.com/${type}` }) as Webhook);

let dir: string;
let store: Store;
let scheduled: WebhookDelivery[];
let notifier: JobNotifier;
let lifecycle: JobLifecycle;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-end-followers-'));
  store = createSqliteStore(join(dir, 'sluice.db'));
  scheduled = [];
  const webhooks = new WebhookService(store, { schedule: async (delivery) => void scheduled.push(delivery), reschedule: async () => 'started' }, clock);
  const access = new FunctionAccess(store);
  const usage = new UsageService(store, new VersionService(store, access), access, { prices: DEFAULT_PRICES, customPrices: new Map() }, clock);
  // As services.ts composes them.
  notifier = new JobNotifier(
    createMemoryJobEvents(),
    () => undefined,
    () => store.durable(),
  );
  notifier.observe((event) => usage.onJobEvent(event), { settle: (event) => usage.onJobEvent(event) });
  notifier.observe((event) => webhooks.onJobEvent(event), { settle: (event) => webhooks.settle(event) });
  lifecycle = new JobLifecycle(store, new MemoryJobQueue(), notifier, clock);
  await store.functions.create(aBareFunction({ id: 'function-1' }));
  await store.versions.create(aVersion({ id: 'version-1', functionId: 'function-1', computeType: 'cpu', split: 1 }));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const queued = async () => {
  const job = aJob({ id: 'job-1', functionId: 'function-1', versionId: 'version-1', status: 'queued', runId: 'run-0', webhooks: HOOKS, createdAt: NOW });
  await store.jobs.create(job);
  return job;
};
/** What each COMMIT made while `action` ran holds of job-1, read from a second connection as a restart would read it. */
async function commitsWhile(action: () => Promise<unknown>): Promise<{ status: string; completions: number; usage: number }[]> {
  const reader = new Database(join(dir, 'sluice.db'), { readonly: true });
  const seen: { status: string; completions: number; usage: number }[] = [];
  const exec = Database.prototype.exec;
  const spy = vi.spyOn(Database.prototype, 'exec').mockImplementation(function (this: Database.Database, sql: string) {
    const result = exec.call(this, sql);
    if (sql === 'COMMIT')
      seen.push({
        status: JSON.parse(reader.prepare("SELECT data FROM jobs WHERE id = 'job-1'").pluck().get() as string).status,
        completions: reader.prepare("SELECT count(*) FROM webhook_deliveries WHERE job_id = 'job-1' AND data LIKE '%job.complete%'").pluck().get() as number,
        usage: reader.prepare("SELECT count(*) FROM usage_jobs WHERE job_id = 'job-1'").pluck().get() as number,
      });
    return result;
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
    reader.close();
  }
  return seen;
}
const eventsOf = async (jobId: string) => (await store.deliveries.listByJob(jobId)).map((delivery) => delivery.eventType).sort();

describe('what follows a job’s end', () => {
  it('is committed with the end itself: a crash after any commit leaves the job ended with its usage and deliveries, or none of them', async () => {
    const job = await queued();
    const started = (await lifecycle.start(job.id))!;
    await store.durable();

    const commits = await commitsWhile(() => lifecycle.finish(started));

    const ended = commits.filter((commit) => commit.status === 'finished');
    expect(ended.length).toBeGreaterThan(0);
    expect(ended[0]).toEqual({ status: 'finished', completions: 1, usage: 1 });
    expect(scheduled.map((delivery) => delivery.eventType)).toContain('job.complete');
  });

  it('is committed with a cancel: a cancelled job has its deliveries in the same commit', async () => {
    const job = await queued();
    const cancels = new JobCancels({
      store,
      notifier,
      clock,
      compute: { stopJob: () => undefined } as never,
      views: new JobViews({ store, artifacts: {} as never }),
    });

    const commits = await commitsWhile(() => cancels.cancel({ organizationId: job.organizationId, organizationName: 'acme' }, job.id));

    const ended = commits.filter((commit) => commit.status === 'cancelled');
    expect(ended[0]).toEqual({ status: 'cancelled', completions: 1, usage: 0 });
  });

  it('is made again, each delivery under the webhook-id it was first made with, by the worker that finds the job ended', async () => {
    const job = await queued();
    const started = (await lifecycle.start(job.id))!;
    await lifecycle.recordOutput(started, { index: 0, type: 'json', name: '', data: 1 });
    await lifecycle.finish(started);
    const made = await store.deliveries.listByJob(job.id);
    expect(made.map((delivery) => delivery.eventType).sort()).toEqual(['job.complete', 'job.new_output', 'job.start']);
    scheduled = [];

    // Its message comes back to another worker: nothing is missing, so nothing is made or sent.
    expect(await lifecycle.recoverAbandoned(job.id)).toBeNull();
    expect(await store.deliveries.listByJob(job.id)).toEqual(made);
    expect(scheduled).toEqual([]);
  });

  it('is made where it is missing, once, when the worker died between the job’s end and its deliveries', async () => {
    // As the end's write left it: ended, one output, no delivery, no usage.
    const job = aJob({
      id: 'job-1',
      functionId: 'function-1',
      versionId: 'version-1',
      status: 'finished',
      runId: 'run-0',
      webhooks: HOOKS,
      createdAt: NOW - 3_000_000,
      startedAt: NOW - 2_000_000,
      completedAt: NOW - 1_000_000,
    });
    await store.jobs.create(job);
    await store.jobs.appendOutput({ jobId: job.id, runId: 'run-0', index: 0, type: 'json', name: '', data: 1 });

    expect(await lifecycle.recoverAbandoned(job.id)).toBeNull();
    expect(await eventsOf(job.id)).toEqual(['job.complete', 'job.new_output', 'job.start']);
    expect(scheduled.map((delivery) => delivery.eventType)).toEqual(['job.start', 'job.new_output', 'job.complete']);
    expect(JSON.parse(scheduled[0]!.payload).body.status).toBe('processing');
    expect(
      await store.usage.recordJob(job.id, {
        organizationId: 'x',
        functionId: 'x',
        versionId: 'x',
        billingClass: 'cpu',
        hour: 0,
        computeSeconds: 0,
        costDollars: 0,
      }),
    ).toBe(false);

    const first = await store.deliveries.listByJob(job.id);
    await lifecycle.recoverAbandoned(job.id);
    expect(await store.deliveries.listByJob(job.id)).toEqual(first);
  });

  it('is made by the worker running a job whose cancel was written by a caller that died before its deliveries', async () => {
    const job = await queued();
    await lifecycle.start(job.id);
    // The start is told without holding its run back.
    await vi.waitFor(() => expect(scheduled.map((delivery) => delivery.eventType)).toEqual(['job.start']));
    scheduled = [];
    await store.jobs.transition(job.id, ['processing'], { status: 'cancelled', completedAt: NOW });

    await lifecycle.settleEnded(job.id);

    expect(await eventsOf(job.id)).toEqual(['job.complete', 'job.start']);
    expect(scheduled.map((delivery) => delivery.eventType)).toEqual(['job.complete']);
  });
});
