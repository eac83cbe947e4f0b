import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobRecord, JobStatus } from '../../shared/domain/job.js';
import { jobLogStream } from '../../shared/domain/log.js';
import { aDelivery, aJob, aLogEntry, anIncrement, anOutput } from '../support/fixtures.js';

const range = { organizationId: 'org-1', fromHour: 0, toHour: 2 ** 40 };

describe('SQLite retention: deleting ended jobs past their time', () => {
  let store: SqliteStore;
  afterEach(() => store.close());

  /** A job with one of everything retention deletes: an output, a log line, a delivery, its usage. */
  async function aJobWithEverything(id: string, status: JobStatus, createdAt: number): Promise<JobRecord> {
    const job = aJob({ id, status, createdAt });
    await store.jobs.create(job);
    await store.jobs.appendOutput(anOutput({ jobId: id }));
    await store.logs.append([aLogEntry({ stream: jobLogStream(id), jobId: id })]);
    await store.deliveries.create(aDelivery({ jobId: id }));
    await store.usage.recordJob(id, anIncrement());
    return job;
  }

  const remains = async (id: string) => ({
    job: (await store.jobs.get(id)) !== null,
    outputs: (await store.jobs.listOutputs(id, 0)).length,
    lines: (await store.logs.query({ stream: jobLogStream(id), organizationId: 'org-1', startNs: 0n, endNs: 2n ** 63n - 1n, limit: 10 })).length,
    deliveries: (await store.deliveries.listByJob(id)).length,
  });

  /** As the sweeper deletes: the ids first, then the jobs. */
  const deleteEndedBefore = async (createdBefore: number, limit: number): Promise<string[]> => {
    const ids = await store.retention.listEndedBefore(createdBefore, limit);
    await store.retention.deleteJobs(ids);
    return ids;
  };

  it('deletes ended jobs created before the cutoff with their outputs, lines and deliveries, and keeps the rest', async () => {
    store = createSqliteStore(':memory:');
    for (const status of ['finished', 'error', 'cancelled'] as const) await aJobWithEverything(`old-${status}`, status, 100);
    for (const status of ['queued', 'processing'] as const) await aJobWithEverything(`old-${status}`, status, 100);
    await aJobWithEverything('new-finished', 'finished', 300);

    expect(await store.retention.countEndedBefore(200)).toBe(3);
    expect((await deleteEndedBefore(200, 10)).sort()).toEqual(['old-cancelled', 'old-error', 'old-finished']);
    expect(await store.retention.countEndedBefore(200)).toBe(0);
    expect(await store.retention.countEndedBefore(400)).toBe(1);
    const gone = { job: false, outputs: 0, lines: 0, deliveries: 0 };
    const kept = { job: true, outputs: 1, lines: 1, deliveries: 1 };
    for (const id of ['old-finished', 'old-error', 'old-cancelled']) expect(await remains(id)).toEqual(gone);
    for (const id of ['old-queued', 'old-processing', 'new-finished']) expect(await remains(id)).toEqual(kept);
  });

  it('keeps the usage totals of the jobs it deletes: they are the bill', async () => {
    store = createSqliteStore(':memory:');
    await aJobWithEverything('old', 'finished', 100);
    const before = await store.usage.totals(range);
    await deleteEndedBefore(200, 10);
    expect(await store.usage.totals(range)).toEqual(before);
  });

  it("deletes the ended jobs of every organization, and counts them, none of another's spared or taken early", async () => {
    store = createSqliteStore(':memory:');
    const ofOrganization = async (organizationId: string, id: string, status: JobStatus, createdAt: number) =>
      store.jobs.create(aJob({ id, organizationId, status, createdAt }));
    for (const organizationId of ['org-a', 'org-b', 'org-c']) {
      await ofOrganization(organizationId, `${organizationId}-old-error`, 'error', 100);
      await ofOrganization(organizationId, `${organizationId}-old-finished`, 'finished', 110);
      await ofOrganization(organizationId, `${organizationId}-old-queued`, 'queued', 100);
      await ofOrganization(organizationId, `${organizationId}-new-finished`, 'finished', 300);
    }
    await ofOrganization('org-empty', 'org-empty-new', 'cancelled', 300);
    expect(await store.retention.countEndedBefore(200)).toBe(6);
    const deleted: string[] = [];
    for (let ids = await deleteEndedBefore(200, 4); ids.length > 0; ids = await deleteEndedBefore(200, 4)) deleted.push(...ids);
    expect(deleted.sort()).toEqual(['org-a', 'org-b', 'org-c'].flatMap((org) => [`${org}-old-error`, `${org}-old-finished`]).sort());
    expect(await store.retention.countEndedBefore(200)).toBe(0);
    for (const id of ['org-a-old-queued', 'org-b-new-finished', 'org-empty-new']) expect(await store.jobs.get(id)).not.toBeNull();
  });

  it('deletes at most `limit` jobs a call, oldest first within an organization', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 5; i++) await aJobWithEverything(`job-${i}`, 'finished', 100 + i);
    expect(await deleteEndedBefore(1000, 2)).toEqual(['job-0', 'job-1']);
    expect(await deleteEndedBefore(1000, 2)).toEqual(['job-2', 'job-3']);
    expect(await deleteEndedBefore(1000, 2)).toEqual(['job-4']);
    expect(await deleteEndedBefore(1000, 2)).toEqual([]);
  });
});
